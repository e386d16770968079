"""Reading provenance sidecars: where a file's sidecar is, what it says about that file.

provenance.py writes the sidecars; integrity.py and review/audit.py check files against them. The
reading side lives here, below both, so that the writer can check a job's inputs as it hashes
them without an import cycle.
"""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass
from pathlib import Path

SUFFIX = ".prov.json"
SCHEMA = "rlvr-support/provenance/1"


def sidecar_of(path: str | os.PathLike) -> Path:
    return Path(f"{os.fspath(path)}{SUFFIX}")


def sha256_file(path: str | os.PathLike, chunk: int = 1 << 20) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        while block := f.read(chunk):
            h.update(block)
    return h.hexdigest()


def load(sidecar: str | os.PathLike) -> dict:
    try:
        rec = json.loads(Path(sidecar).read_text())
    except json.JSONDecodeError as e:
        raise ValueError(f"{sidecar}: not a valid provenance sidecar ({e.msg})") from None
    if rec.get("schema") != SCHEMA:
        raise ValueError(f"{sidecar}: unknown provenance schema {rec.get('schema')!r}")
    return rec


def tree_top(path: str | os.PathLike, cwd: Path) -> Path | None:
    """The results tree `path` lies in: the top folder under the workflow root `cwd` that holds it
    (`results/` for results/tables/x.csv); None for a file directly in `cwd` or outside it."""
    p = Path(path)
    try:
        rel = p.relative_to(cwd) if p.is_absolute() else Path(os.path.normpath(p))
    except ValueError:
        return None
    return cwd / rel.parts[0] if len(rel.parts) > 1 and rel.parts[0] != ".." else None


# A results tree's identity, in a file at its top: written by the first job that writes into the
# tree, recorded in every sidecar (`tree`), and carried along when the tree is copied or moved. The
# audit tells a file remade in this tree (stale) from one copied in from another tree (replaced)
# by it, not by the absolute path of the working directory, which a move changes.
TREE_ID = ".provenance-tree"
# The study the tree belongs to (lineage/study_tree.py), beside its identity: neither holds a result.
STUDY_STAMP = ".study"
TREE_FILES = (TREE_ID, STUDY_STAMP)


def tree_id(top: Path) -> str | None:
    try:
        return (top / TREE_ID).read_text().strip() or None
    except (FileNotFoundError, NotADirectoryError):
        return None


def same_tree(a: dict, b: dict) -> bool:
    """Were the jobs of sidecars `a` and `b` run in the same results tree? (Sidecars written before
    trees had an identity: the same working directory.)"""
    if a.get("tree") and b.get("tree"):
        return a["tree"] == b["tree"]
    return a.get("cwd") == b.get("cwd")


def job_root(sidecar: Path, rec: dict) -> Path:
    """The working directory of the job that wrote the sidecar (paths in it are relative to that)."""
    return (sidecar.parent / rec.get("root", ".")).resolve()


@dataclass
class Described:
    """What a file's sidecar says about it. `rec` is None when there is no sidecar; `entry` (the
    sidecar's `outputs` entry for this very file) is None also when the sidecar describes other
    files only: it was copied here with a file from elsewhere."""

    sidecar: Path
    rec: dict | None = None
    root: Path | None = None
    entry: dict | None = None


def described(path: str | os.PathLike) -> Described:
    side = sidecar_of(path)
    if not side.is_file():
        return Described(side)
    rec = load(side)
    root = job_root(side, rec)
    me = Path(path).resolve()
    entry = next((o for o in rec.get("outputs", []) if (root / o["path"]).resolve() == me), None)
    return Described(side, rec, root, entry)
