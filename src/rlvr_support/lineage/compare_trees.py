"""Did two runs of a study give the same bytes? Two results trees compared by what their provenance
sidecars record: the sha256 of every output and artifact (a checkpoint's weights, its reward curve).

This is how a rerun on another machine, or under another kernel capability, is checked against a
finished tree (config/numerics.py says why the pins should make them equal). It reads sidecars
only, so either tree may be a stored copy without weights (tests/data/results-doc/); `audit` is what
checks that each tree's files still match their sidecars. A file is compared when both trees have
a sidecar for it, under the same path below the tree's parent (results/checkpoints/math/seed0/
manifest.json); the files only one tree made are counted, not compared, because studies with
other chains or seeds share only part of their DAG.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from rlvr_support.lineage.sidecar import SUFFIX, load


def recorded_hashes(results: str | Path) -> dict[str, str]:
    """{path below the tree's parent: sha256} of every output and artifact the tree's sidecars record."""
    results = Path(results)
    if not results.is_dir():
        raise FileNotFoundError(f"{results}: no such results tree")
    out: dict[str, str] = {}
    for sidecar in sorted(results.rglob(f"*{SUFFIX}")):
        rec = load(sidecar)
        for o in rec.get("outputs", []):
            for f in [o, *o.get("artifacts", [])]:
                if f.get("sha256"):
                    out[f["path"]] = f["sha256"]
    return out


@dataclass
class Comparison:
    same: list[str] = field(default_factory=list)
    differ: list[str] = field(default_factory=list)
    only_a: list[str] = field(default_factory=list)
    only_b: list[str] = field(default_factory=list)

    def lines(self, a: str, b: str, show: int = 20) -> list[str]:
        out = [f"{len(self.same)} files the same in both trees, {len(self.differ)} differ; "
               f"{len(self.only_a)} only in {a}, {len(self.only_b)} only in {b} (not compared)"]
        out += [f"differs: {p}" for p in self.differ[:show]]
        if len(self.differ) > show:
            out.append(f"... and {len(self.differ) - show} more")
        return out


def compare_trees(a: str | Path, b: str | Path) -> Comparison:
    ha, hb = recorded_hashes(a), recorded_hashes(b)
    c = Comparison()
    for path in sorted(ha.keys() | hb.keys()):
        if path not in hb:
            c.only_a.append(path)
        elif path not in ha:
            c.only_b.append(path)
        else:
            (c.same if ha[path] == hb[path] else c.differ).append(path)
    return c
