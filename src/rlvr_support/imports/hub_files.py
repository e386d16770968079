"""Imported samples in a Hugging Face dataset repo: fetch them once, list them in a manifest, read them by it.

lighteval and lm-eval push their details to hub dataset repos. An import entry's `hub: {repo, revision,
files}` (config/imports.py) is fetched by `fetch_hub_files` on the submit host (the `import_hub_files`
local rule, part of `prefetch`): `huggingface_hub.snapshot_download(repo_type="dataset", revision=...,
allow_patterns=files)` into the Hugging Face cache, like a base model's weights (models/base_models.py).
The manifest it writes lists the repo, the revision asked for, the commit the snapshot holds (the cache
names a snapshot's folder by its commit, whatever the revision said), the patterns, and per file its
path in the repo, its local path, its size and its sha256.

The import job, on a compute node that may not reach the hub, reads the files the manifest lists
(`manifest_files`), each checked against its size and sha256 first: the manifest is the job's input
(its sha256 in the samples' provenance sidecar), so the lineage of an imported number ends at the
manifest and the files' checksums in it, and a cache file changed since the fetch stops the import.

A snapshot folder holds every file fetched at that commit so far, by any pattern: the files listed are
those of the folder that match the patterns, by huggingface_hub's own matching (`filter_repo_objects`:
fnmatch, where `*` also matches `/`), sorted by their path in the repo.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from rlvr_support.config.revisions import COMMIT

REPO_TYPE = "dataset"


def file_sha256(path: str | Path) -> str:
    with open(path, "rb") as f:
        return hashlib.file_digest(f, "sha256").hexdigest()


def matching_files(snapshot: Path, patterns: list[str]) -> list[str]:
    """The repo paths of the files under `snapshot` that `patterns` match (huggingface_hub's matching), sorted."""
    from huggingface_hub.utils import filter_repo_objects

    if not snapshot.is_dir():
        return []
    paths = sorted(p.relative_to(snapshot).as_posix() for p in snapshot.rglob("*") if p.is_file())
    return list(filter_repo_objects(paths, allow_patterns=patterns))


def snapshot_commit(snapshot: Path) -> str | None:
    """The commit a cache snapshot holds (its folder's name), None for a folder outside the cache's layout."""
    return snapshot.name if snapshot.parent.name == "snapshots" and COMMIT.fullmatch(snapshot.name) else None


def unpinned_note(hub: dict, commit: str | None) -> str | None:
    """The fetch log's warning for a revision that can move (a branch or tag), naming the commit it gave."""
    if COMMIT.fullmatch(hub["revision"]):
        return None
    return (f"WARNING: {hub['repo']}: revision {hub['revision']!r} is a branch or tag, not a commit: this fetch got "
            f"commit {commit or 'unknown'}, a later one may get another; pin it with `revision: <40-hex commit>` "
            "(config key `revisions`)")


def fetch_hub_files(hub: dict) -> dict:
    """Download the files of `hub` ({repo, revision, files}) into the Hugging Face cache; return the manifest."""
    from huggingface_hub import snapshot_download

    repo, revision, patterns = hub["repo"], hub["revision"], list(hub["files"])
    try:
        snapshot = Path(snapshot_download(repo, repo_type=REPO_TYPE, revision=revision, allow_patterns=patterns))
    except Exception as e:  # no network, an unknown or gated repo, a revision the repo lacks
        raise ValueError(f"hub dataset {repo} (revision {revision}): cannot fetch from the Hugging Face hub: "
                         f"{type(e).__name__}: {e}") from None
    found = matching_files(snapshot, patterns)
    if not found:
        raise ValueError(f"hub dataset {repo} at revision {revision}: no file matches {patterns} (huggingface_hub "
                         "patterns: fnmatch, `*` also matches `/`): check the repo's file list at that revision")
    files = []
    for rel in found:
        path = snapshot / rel
        files.append({"repo_path": rel, "path": str(path), "bytes": path.stat().st_size, "sha256": file_sha256(path)})
    return {"repo": repo, "repo_type": REPO_TYPE, "revision": revision, "commit": snapshot_commit(snapshot),
            "patterns": patterns, "snapshot": str(snapshot), "files": files}


def manifest_files(manifest: str | Path) -> list[str]:
    """The local paths a fetch manifest lists, in its order, each checked against its recorded size and sha256."""
    m = json.loads(Path(manifest).read_text())
    out = []
    for f in m["files"]:
        path = Path(f["path"])
        if not path.is_file():
            raise FileNotFoundError(f"{manifest}: {f['repo_path']} of hub dataset {m['repo']} is gone from {path} "
                                    "(the Hugging Face cache was cleaned?): run the `prefetch` target again")
        if path.stat().st_size != f["bytes"] or file_sha256(path) != f["sha256"]:
            raise ValueError(f"{manifest}: {path} ({f['repo_path']} of hub dataset {m['repo']}) no longer matches the "
                             "sha256 the fetch recorded: it changed since; remove it and the manifest, then run `prefetch` again")
        out.append(str(path))
    return out
