"""Does a file still match the sha256 recorded for it? Checked before every job reads its inputs,
and by `audit` on every file of a lineage.

Two records say what a file must hash to:

* its provenance sidecar (sidecar.py), whose `outputs` entry for the file holds its sha256 and,
  for a checkpoint manifest, the sha256 of every file of the checkpoint (`artifacts`);
* a checkpoint manifest's own `sha256` map (weight files and config.json of its `model_dir`),
  written by the verb that made the checkpoint. Checked even when the manifest's sidecar is gone
  or was rewritten, so swapped or truncated weights are found either way.

provenance.begin hashes every input a verb declares and hands each digest to `verify_input`
before the verb runs, so a damaged input stops the job with an error naming the file, and no
file is hashed twice. The weight files behind a manifest are not inputs of their own; they are
hashed here, shards in parallel (hashlib releases the GIL), because a bit flip in a shard is as
wrong as one in a samples file. Cost: sha256 ran at 580-770 MiB/s on one core from the page cache
on the (busy, 2-core) dev VM, so a 16 GB checkpoint adds about 25 s to every job that reads it
(sample, base-metrics, train, the analyses), less when its shards hash on several idle cores, more
when the disk reads slower than that.

An input without a sidecar from outside the results tree (a config file, a downloaded model
folder) has nothing to be checked against and passes; one inside the tree is refused by
provenance.begin, and reported by `audit`.
"""

from __future__ import annotations

import json
import os
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from rlvr_support.lineage.sidecar import Described, described, sha256_file

HASH_THREADS = 8  # a checkpoint's shards hashed at once; more only queue on the disk


@dataclass
class Problem:
    path: str
    kind: str  # missing | edited | replaced | stale | no-sidecar
    detail: str

    def __str__(self) -> str:
        return f"{self.path}: {self.kind}: {self.detail}"


class IntegrityError(ValueError):
    """An input no longer matches the sha256 recorded for it."""


def short(h: str | None) -> str:
    return (h or "?")[:12]


def display_path(path: str | os.PathLike) -> str:
    """A path relative to the working directory when it lies inside it."""
    try:
        return str(Path(path).resolve().relative_to(Path.cwd().resolve()))
    except ValueError:
        return str(path)


def own_problems(path: str | os.PathLike, digest: str, desc: Described) -> list[Problem]:
    """`path` (hashing to `digest`) against its own sidecar; none when it has no sidecar."""
    if desc.rec is None:
        return []
    if desc.entry is None:
        other = desc.rec.get("self") or ", ".join(o["path"] for o in desc.rec.get("outputs", []))
        return [Problem(str(path), "replaced", f"its sidecar {desc.sidecar.name} describes {other}, not this file: "
                                               "file and sidecar were edited/replaced together (copied here from "
                                               "elsewhere). Restore the originals; rerunning the workflow would "
                                               "build on the replacement")]
    if desc.entry["sha256"] != digest:
        return [Problem(str(path), "edited", f"sha256 {short(digest)} differs from {short(desc.entry['sha256'])} "
                                             f"recorded in {desc.sidecar.name} when {desc.rec['verb']} wrote it")]
    return []


def _manifest(path: Path) -> dict | None:
    """The content of a checkpoint manifest (a JSON object with `model_dir` and a `sha256` map); else None."""
    if path.suffix != ".json":
        return None
    try:
        m = json.loads(path.read_text())
    except (OSError, UnicodeDecodeError, json.JSONDecodeError):
        return None
    ok = isinstance(m, dict) and isinstance(m.get("model_dir"), str) and isinstance(m.get("sha256"), dict)
    return m if ok else None


def checkpoint_files(manifest: Path, desc: Described) -> dict[Path, tuple[Path, list[tuple[str, str]]]]:
    """Every file a checkpoint manifest or its sidecar records a sha256 for:
    resolved path -> (path as shown, [(sha256, where it is recorded)])."""
    listed = []
    m = _manifest(manifest)
    if m is not None:
        model_dir = manifest.parent / m["model_dir"]
        listed += [(model_dir / name, sha, manifest.name) for name, sha in sorted(m["sha256"].items())]
    if desc.entry:
        listed += [(Path(display_path(desc.root / a["path"])), a["sha256"], desc.sidecar.name)
                   for a in desc.entry.get("artifacts", [])]
    out: dict[Path, tuple[Path, list]] = {}
    for shown, sha, where in listed:
        out.setdefault(shown.resolve(), (shown, []))[1].append((sha, where))
    return out


def checkpoint_record(path: Path) -> tuple[Path, list[tuple[str, str]]] | None:
    """(manifest, [(sha256, where recorded)]) when `path` is a file of a checkpoint: listed by a
    manifest beside it or one folder up (the weights in model/, monitor.csv beside the manifest)."""
    me = path.resolve()
    for folder in (path.parent, path.parent.parent):
        for m in sorted(folder.glob("*.json")):
            if me in (files := checkpoint_files(m, described(m))):
                return m, files[me][1]
    return None


def hash_files(paths: list[Path]) -> dict[Path, str]:
    if not paths:
        return {}
    with ThreadPoolExecutor(max_workers=min(len(paths), os.cpu_count() or 1, HASH_THREADS)) as pool:
        return dict(zip(paths, pool.map(sha256_file, paths)))


def checkpoint_problems(manifest: Path, desc: Described) -> tuple[int, list[Problem]]:
    """(how many checkpoint files were checked, what is wrong with them) for a manifest; (0, []) for any other file."""
    files = checkpoint_files(Path(manifest), desc)
    digests = hash_files([p for p in files if p.is_file()])
    problems = []
    for key, (shown, records) in files.items():
        if key not in digests:
            problems.append(Problem(str(shown), "missing", f"checkpoint file listed in {records[0][1]} is gone"))
            continue
        wrong = next(((sha, where) for sha, where in records if sha != digests[key]), None)
        if wrong:
            problems.append(Problem(str(shown), "edited", f"sha256 {short(digests[key])} differs from "
                                                          f"{short(wrong[0])} recorded in {wrong[1]} when the "
                                                          "checkpoint was written"))
    return len(files), problems


def verify_input(path: str | os.PathLike, digest: str) -> None:
    """Raise IntegrityError, naming the file, if the input `path` (hashing to `digest`) or, for a
    checkpoint manifest, any of its files no longer matches what was recorded."""
    desc = described(path)
    if problems := own_problems(path, digest, desc):
        remake = "delete it"
    elif problems := checkpoint_problems(Path(path), desc)[1]:
        remake = f"delete {path} (the checkpoint's declared output)"  # Snakemake sees the manifest, not the weights
    else:
        return
    raise IntegrityError(f"input {problems[0]}; the job stops before reading it: restore the file, or {remake} "
                         "and rerun the workflow to remake it")
