"""Imported samples as checkpoints of a study: the `imports:` block, read once.

    imports:
      lmeval-rl:
        eval_sets:
          math: {format: lm_eval, files: ["evals/rl/samples_math_*.jsonl"]}

Each label is a checkpoint whose samples come from files another tool wrote instead of the
`sample` rule (workflow/rules/imports.smk: one `import_samples` job per label and eval set). It
joins a one-model study beside the base and the trained chains, on the study's own prompts
(matched by text or id: imports/study_prompts.py), so every samples-only table compares it with
the base. Analyses that need the model (JS, the opening intervention, perplexity, large k, single
tokens) cover a label that names the weights its samples came from (`model:`), like an external
checkpoint, and leave the others out; `tokenizer:` counts a label's openings in tokens
(config/import_models.py).

The job's spec is the entry's reader keys plus the task (the eval set); `files`, `hub`, `match` and
`agreement_threshold` are the workflow's (what the rule passes beside the spec).

An entry's files are local paths or globs (`files:`) or the files of a Hugging Face dataset repo at a
revision (`hub: {repo, revision, files}`, lighteval's and lm-eval's pushed details): exactly one. A hub
entry's files are fetched on the submit host by the `prefetch` target (workflow/rules/imports.smk,
imports/hub_files.py), which lists them with their sha256 in a manifest the import job reads.
"""

from __future__ import annotations

import glob
from pathlib import Path

from rlvr_support.config.benchmarks import eval_benchmarks
from rlvr_support.config.checkpoints import external_checkpoints, name_problem

WORKFLOW_KEYS = ("files", "hub", "match", "agreement_threshold", "verifiers")  # the rule's, not the import job's spec


class ImportConfigError(ValueError):
    """An `imports:` entry the study cannot run (config/validate.py raises it as a ConfigError)."""


def import_labels(config: dict) -> list[str]:
    """The imported labels, in the config's order (not the base: see imported_base)."""
    return list(config.get("imports") or {})


def import_bases(config: dict) -> dict[str, str]:
    """{imported label: the label its support is measured against}, for the labels that name one (`base:`)."""
    return {label: entry["base"] for label, entry in (config.get("imports") or {}).items() if entry.get("base")}


def imported_base(config: dict) -> bool:
    """Whether the study's base is imported (`base: {kind: import}`): its samples, and with them the study's
    prompts (`world: {kind: imports}`), come from files; nothing is trained or run from a model."""
    return (config.get("base") or {}).get("kind") == "import"


def study_benchmarks(config: dict) -> dict[str, list[str]]:
    """{eval set: its benchmarks}: the world's (config.benchmarks.eval_benchmarks), or for an imports world
    the imported base's benchmark of each eval set (its `benchmark`, default the eval set's name).

    Here, not in config/benchmarks.py: that module is part of every job's code (lineage/job_code.py), so
    an edit there would rerun every study's training and sampling."""
    if config["world"]["kind"] != "imports":
        return eval_benchmarks(config)
    return {e: [config["base"]["eval_sets"][e].get("benchmark", e)] for e in config["eval_sets"]}


def imports_world_config(config: dict) -> dict:
    """`config` with what an imports world needs before config.defaults.fill_defaults: trajectory.n, whose
    default is read from the world's benchmarks (an imports world has none: they are its base's files)
    and which a study that trains nothing never reads. The config as it is for any other world."""
    if config["world"]["kind"] != "imports" or (config.get("trajectory") or {}).get("n") is not None:
        return config
    return {**config, "trajectory": {**(config.get("trajectory") or {}), "n": 1}}


def import_source(config: dict, label: str, eval_set: str) -> dict:
    """One label's eval-set entry (`imports.<label>.eval_sets.<e>`, or `base.eval_sets.<e>` for label `base`)."""
    entry = config["base"] if label == "base" and imported_base(config) else config["imports"][label]
    return entry["eval_sets"][eval_set]


def import_key(label: str, eval_set: str) -> str:
    """Where the entry sits in the config, for messages."""
    return f"base.eval_sets.{eval_set}" if label == "base" else f"imports.{label}.eval_sets.{eval_set}"


def import_entries(config: dict) -> list[tuple[str, str]]:
    """(label, eval set) of every entry the study runs: the imported base's (label `base`) first, then each
    label's, in the config's order."""
    labels = (["base"] if imported_base(config) else []) + import_labels(config)
    return [(label, e) for label in labels for e in config["eval_sets"]]


def import_hub(config: dict, label: str, eval_set: str) -> dict | None:
    """The hub dataset an entry's files come from (`hub: {repo, revision, files}`); None for local `files`."""
    return import_source(config, label, eval_set).get("hub")


def hub_imports(config: dict) -> list[tuple[str, str, dict]]:
    """(label, eval set, hub) of every entry whose files the `prefetch` target fetches from the hub."""
    return [(label, e, hub) for label, e in import_entries(config) if (hub := import_hub(config, label, e))]


def import_spec(config: dict, label: str, eval_set: str) -> dict:
    """The `import-samples --spec` of one label's eval set: its reader keys, the task and the benchmark."""
    source = import_source(config, label, eval_set)
    spec = {k: v for k, v in source.items() if k not in WORKFLOW_KEYS}
    return {"task": eval_set, "benchmark": eval_set, **spec}


def import_files(config: dict, label: str, eval_set: str, root: str | Path = ".") -> list[str]:
    """The files of one label's eval set: each entry of `files` as a path or a glob (relative to `root`,
    the working directory), globs sorted, in the order given; an entry matching nothing is an error."""
    out: list[str] = []
    for pattern in import_source(config, label, eval_set)["files"]:
        pattern = str(Path(pattern).expanduser())
        found = sorted(glob.glob(pattern, root_dir=root)) if glob.has_magic(pattern) else (
            [pattern] if Path(root, pattern).is_file() else [])
        if not found:
            raise ImportConfigError(f"{import_key(label, eval_set)}.files: {pattern!r} matches no file "
                                    f"(relative to {Path(root).resolve()})")
        out += found
    return out


def check_import_files(config: dict, root: str | Path = ".") -> None:
    """Every entry's globs match a file under `root`, the study's working directory: run where the study
    runs (common.smk, at parse time: before any job), not in `check_imports`, which a config is put
    through anywhere (the docs' checks, `budget`). A hub entry's files exist only once `prefetch` has
    fetched them: its manifest is the import job's input, and a repo without the files fails that fetch."""
    for label, eval_set in import_entries(config):
        if import_hub(config, label, eval_set) is None:
            import_files(config, label, eval_set, root)


def check_imports(config: dict) -> None:
    """What an `imports:` block must satisfy before any job (each an ImportConfigError naming the key);
    the files themselves: `check_import_files`."""
    labels = import_labels(config)
    world_imports = config["world"]["kind"] == "imports"
    if imported_base(config) != world_imports:
        raise ImportConfigError("base.kind / world.kind: an imported base (`base: {kind: import}`) and a world of "
                                "imported prompts (`world: {kind: imports}`) go together: the base's files hold "
                                "the study's prompts")
    _check_sources(config)
    if imported_base(config):
        _check_imported_base(config)
    if not labels:
        return
    if config.get("models") or "base" not in config:
        raise ImportConfigError("imports: imported labels join a one-model study (`base:`); a study of several "
                                "starting models (`models:`, `role: base` checkpoints) cannot take them yet")
    taken = {**{c: "a chain" for c in config["chains"]}, **{c: "an external checkpoint" for c in external_checkpoints(config)}}
    for label in labels:
        problem = name_problem(label) or (f"it is {taken[label]}'s name" if label in taken else None)
        if problem:
            raise ImportConfigError(f"imports.{label}: cannot name an imported label: {problem}")
        other = config["imports"][label].get("base")
        if other is not None and (other == label or (other not in labels and other not in external_checkpoints(config))):
            raise ImportConfigError(f"imports.{label}.base: {other!r} is not another imported label or an external "
                                    f"checkpoint of the study ({', '.join(sorted((set(labels) - {label}) | set(external_checkpoints(config)))) or 'none'})")
        missing = [e for e in config["eval_sets"] if e not in config["imports"][label]["eval_sets"]]
        if missing:
            raise ImportConfigError(f"imports.{label}.eval_sets: {', '.join(missing)} missing: an imported label is "
                                    f"compared on every eval set of the study ({', '.join(config['eval_sets'])})")
    # `model:`, `tokenizer:` and the keys naming a label for a model analysis: config/import_models.py


def _check_sources(config: dict) -> None:
    """Each entry names its files one way: local `files`, or a hub dataset's (`hub`)."""
    entries = {"base": config["base"]} if imported_base(config) else {}
    entries.update(config.get("imports") or {})
    for label, entry in entries.items():
        for eval_set, source in entry["eval_sets"].items():
            where = import_key(label, eval_set)
            if "files" in source and "hub" in source:
                raise ImportConfigError(f"{where}: give exactly one of `files` (local paths or globs) and `hub` (a "
                                        "Hugging Face dataset repo's files), not both")
            if "files" not in source and "hub" not in source:
                raise ImportConfigError(f"{where}: no files: give `files` (local paths or globs) or `hub` (a Hugging "
                                        "Face dataset repo's files: `{repo, revision, files}`)")


# what an imported base leaves without a model: the analyses that run one (the study's keys that ask for them)
MODEL_PARTS = {"analysis.large_k": ("analysis", "large_k"), "analysis.single_token": ("analysis", "single_token")}


def _check_imported_base(config: dict) -> None:
    missing = [e for e in config["eval_sets"] if e not in config["base"]["eval_sets"]]
    if missing:
        raise ImportConfigError(f"base.eval_sets: {', '.join(missing)} missing: the imported base's files hold the "
                                "prompts of every eval set of the study")
    if config["chains"]:
        raise ImportConfigError("chains: an imported base has no weights to train from; give `chains: []`")
    if external_checkpoints(config):
        raise ImportConfigError("checkpoints: an imported base has no weights for a checkpoint's JS and "
                                "intervention; import its samples too (`imports:`)")
    for key, (part, sub) in MODEL_PARTS.items():
        if (config.get(part) or {}).get(sub):
            raise ImportConfigError(f"{key}: samples at large k or single-token swaps are drawn from a model, and "
                                    "an imported base has none; leave it out")
