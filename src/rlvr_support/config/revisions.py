"""Which hub downloads of a study are not pinned to a commit.

A hub model or dataset fetched without `revision:` (or with a branch or tag, which can move)
gives whatever the hub holds on the day a job runs, so two runs of one config can train and
evaluate on different weights or prompts. The commit actually used is recorded either way (a
model's manifest `commit`, a data source's sidecar `resolved.hub_sources[].commit`, an imported hub
dataset's manifest `commit`); this module
names what the config leaves open, so the workflow can warn before any job (`revisions: warn`,
the default) or refuse to start (`revisions: require`).
"""

from __future__ import annotations

import re
from pathlib import Path

from rlvr_support.config.import_models import import_models, import_tokenizers, is_hub_id
from rlvr_support.config.imports import hub_imports, import_key

COMMIT = re.compile(r"[0-9a-f]{40}")


def _hub_model(spec: dict) -> bool:
    """A model spec the base or checkpoint rule fetches from the hub (not a local folder)."""
    path = str(spec.get("path", ""))
    return (spec.get("kind") == "hf" and not Path(path).expanduser().is_dir() and path.count("/") == 1
            and not path.startswith((".", "/", "~")))


def unpinned_revisions(config: dict) -> list[str]:
    """One line per hub model or dataset whose `revision` is not a 40-hex commit, named by its key path."""
    found = []

    def check(where: str, what: str, revision) -> None:
        if revision is None:
            found.append(f"{where} ({what}): no revision")
        elif not COMMIT.fullmatch(str(revision)):
            found.append(f"{where} ({what}): revision {revision!r} is a branch or tag, not a commit")

    models = {"base": config["base"]} if "base" in config else {}
    models.update({f"models.{k}": v for k, v in config.get("models", {}).items()})
    models.update({f"checkpoints.{k}": v for k, v in config.get("checkpoints", {}).items()})
    models.update({f"imports.{k}.model": v for k, v in import_models(config).items()})
    for where, spec in models.items():
        if _hub_model(spec):
            check(where, spec["path"], spec.get("revision"))
    for label, tok in import_tokenizers(config).items():
        if is_hub_id(tok["path"]):
            check(f"imports.{label}.tokenizer", tok["path"], tok.get("revision"))
    world = config.get("world", {})
    for task, sources in (world.get("tasks") or {}).items() if world.get("kind") == "datasets" else ():
        for i, src in enumerate(sources):
            if "hub" in src:
                what = src["hub"] + (f" {src['data_files']}" if src.get("data_files") else "")
                check(f"world.tasks.{task}[{i}]", what, src.get("revision"))
    for label, eval_set, hub in hub_imports(config):  # imported samples' files in a hub dataset repo
        check(f"{import_key(label, eval_set)}.hub", hub["repo"], hub["revision"])
    return found


def revision_warning(config: dict) -> str | None:
    """The warning the workflow prints before any job, or None when everything is pinned."""
    lines = unpinned_revisions(config)
    if not lines:
        return None
    return ("WARNING: not pinned to a hub commit, so a rerun may fetch different weights or data "
            f"({len(lines)}; the commit used is recorded in each manifest and data sidecar; pin with "
            "`revision: <40-hex commit>`, or set `revisions: require` to make this an error):\n  " + "\n  ".join(lines))
