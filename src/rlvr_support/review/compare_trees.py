"""Did two runs of a study give the same bytes? Two results trees compared by what their provenance
sidecars record: the sha256 of every output and artifact (a checkpoint's weights, its reward curve).

This is how a rerun on another machine, or under another kernel capability, is checked against a
finished tree (config/numerics.py says why the pins should make them equal). It reads sidecars
only, so either tree may be a stored copy without weights (tests/data/results-doc/); `audit` is what
checks that each tree's files still match their sidecars. A file is compared when both trees have
a sidecar for it, under the same path below the tree's parent (results/checkpoints/math/seed0/
manifest.json); the files only one tree made are counted, not compared, because studies with
other chains or seeds share only part of their DAG.

One kind of output records how long its job took: a checkpoint manifest holds the job's
`WALL_CLOCK` fields (`seconds`, and the pretraining's `tokens_per_second`), so two runs that
trained the same weights never record the same sha256 for it. A manifest whose recorded sha256
differs is therefore read in both trees and compared without those fields; when a tree has no copy
of the file (a stored copy holds sidecars only) it cannot be, and it is counted as unchecked, not
as differing, while its weights, reward curve and monitor, which the sidecar lists as artifacts,
are still compared byte for byte like every sample and table.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

from rlvr_support.lineage.sidecar import SUFFIX, job_root, load

# The fields of a checkpoint manifest that record how long its job ran, not what it made: `seconds`
# (the wall time of training, training/stage.py, and of pretraining, models/pretrain.py) and
# `tokens_per_second` (pretraining's tokens over those seconds). They differ between any two runs,
# on one machine too, so comparing them would fail every pair of trees with trained checkpoints.
# Nothing else is left out: `steps`, `trained_steps`, `final_reward`, the weights' `sha256` map and
# every other field still have to be equal.
WALL_CLOCK = ("seconds", "tokens_per_second")


@dataclass(frozen=True)
class Recorded:
    sha256: str
    file: Path  # where the file is (or was) in this tree
    manifest: bool  # a checkpoint manifest: its sidecar entry lists the checkpoint's files as artifacts


def recorded_files(results: str | Path) -> dict[str, Recorded]:
    """{path below the tree's parent: what the tree's sidecars record of it}, every output and artifact."""
    results = Path(results)
    if not results.is_dir():
        raise FileNotFoundError(f"{results}: no such results tree")
    out: dict[str, Recorded] = {}
    for sidecar in sorted(results.rglob(f"*{SUFFIX}")):
        rec = load(sidecar)
        root = job_root(sidecar, rec)
        for o in rec.get("outputs", []):
            for f in [o, *o.get("artifacts", [])]:
                if f.get("sha256"):
                    out[f["path"]] = Recorded(f["sha256"], root / f["path"], f is o and "artifacts" in o)
    return out


def recorded_hashes(results: str | Path) -> dict[str, str]:
    """{path below the tree's parent: sha256} of every output and artifact the tree's sidecars record."""
    return {path: r.sha256 for path, r in recorded_files(results).items()}


def without_wall_clock(manifest: Path) -> dict | None:
    """A checkpoint manifest's content without its WALL_CLOCK fields; None when the file is not there."""
    try:
        content = json.loads(manifest.read_text())
    except FileNotFoundError:
        return None
    except (UnicodeDecodeError, json.JSONDecodeError) as e:
        raise ValueError(f"{manifest}: not a readable checkpoint manifest ({e})") from None
    return {k: v for k, v in content.items() if k not in WALL_CLOCK}


@dataclass
class Comparison:
    same: list[str] = field(default_factory=list)
    differ: list[str] = field(default_factory=list)
    only_a: list[str] = field(default_factory=list)
    only_b: list[str] = field(default_factory=list)
    wall_clock_only: list[str] = field(default_factory=list)  # manifests in `same` that differ in WALL_CLOCK only
    unchecked: list[str] = field(default_factory=list)  # manifests whose hashes differ, with no copy in a tree

    def lines(self, a: str, b: str, show: int = 20) -> list[str]:
        timed = (f" ({len(self.wall_clock_only)} of them checkpoint manifests that differ only in "
                 f"{', '.join(WALL_CLOCK)})" if self.wall_clock_only else "")
        out = [f"{len(self.same)} files the same in both trees{timed}, {len(self.differ)} differ; "
               f"{len(self.only_a)} only in {a}, {len(self.only_b)} only in {b} (not compared)"]
        if self.unchecked:
            out.append(f"{len(self.unchecked)} checkpoint manifests not compared: their recorded sha256 covers "
                       f"{', '.join(WALL_CLOCK)} and a tree has no copy of the file to compare without them "
                       "(their checkpoints' files are compared)")
        out += [f"differs: {p}" for p in self.differ[:show]]
        if len(self.differ) > show:
            out.append(f"... and {len(self.differ) - show} more")
        return out


def compare_trees(a: str | Path, b: str | Path) -> Comparison:
    ra, rb = recorded_files(a), recorded_files(b)
    c = Comparison()
    for path in sorted(ra.keys() | rb.keys()):
        if path not in rb:
            c.only_a.append(path)
        elif path not in ra:
            c.only_b.append(path)
        elif ra[path].sha256 == rb[path].sha256:
            c.same.append(path)
        elif not (ra[path].manifest and rb[path].manifest):
            c.differ.append(path)
        else:
            ma, mb = without_wall_clock(ra[path].file), without_wall_clock(rb[path].file)
            if ma is None or mb is None:
                c.unchecked.append(path)
            elif ma == mb:
                c.same.append(path)
                c.wall_clock_only.append(path)
            else:
                c.differ.append(path)
    return c
