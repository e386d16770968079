"""Runs that repeat exactly: jobs rerun with `--forcerun` in a copy of the smoke run, in another folder, give
byte-identical outputs (data, corpus, pretrained and RL weights, samples, scores, a table, a figure). Every
job of the DAG is deterministic given its inputs, so a fresh second run gives the same bytes; rerunning one
job of each kind along one path (base -> math/seed0 -> its math samples and scores) and the tables and figure
built from all of them checks that at a fraction of a second full run's cost (3 to 8 minutes here). Only logs,
benchmarks, manifests' wall-clock fields and the provenance sidecars (times, hosts) may differ. Reruns that
redo exactly what an edit affects: tests/test_rerun_plans.py."""

from __future__ import annotations

import hashlib
import re
import shutil
import time

import pytest

from conftest import run_snakemake

# Files that record when/where/how long, never what: excluded from the byte comparison.
VOLATILE = re.compile(r"^results/(logs|benchmarks)/|\.prov\.json$|/manifest\.json$|^results/checkpoints/.*/_partial/"
                      r"|^results/\.provenance-tree$")

# rule -> the outputs it is rerun for. Tables first (their inputs untouched), then one path of upstream jobs
# (targets of their own: nothing downstream of a rerun file is rerun, so the copy stays consistent)
FORCED = [
    {"passk_table": ["results/tables/passk.csv"], "figure_passk": ["results/figures/passk_math.png"]},
    {"toy_data": ["results/data/prompts/math.jsonl"], "toy_corpus": ["results/data/corpus.jsonl"],
     "pretrain_base": ["results/checkpoints/base/manifest.json"],
     "train_stage": ["results/checkpoints/math/seed0/manifest.json"],
     "sample": ["results/samples/math/seed0/math.parquet"], "score": ["results/scores/math/seed0/math.parquet"]},
]


def _digests(root):
    return {p.relative_to(root).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted((root / "results").rglob("*")) if p.is_file()}


def _ran(proc) -> set[str]:
    """The rules of the jobs a snakemake run executed (its log's `rule x:` lines)."""
    return set(re.findall(r"^(?:local)?rule (\w+):", proc.stdout + proc.stderr, re.M))


@pytest.mark.slow
def test_forced_reruns_in_another_folder_are_byte_identical(smoke_run, tmp_path_factory):
    again = tmp_path_factory.mktemp("smoke_again") / "run"
    # mtimes and Snakemake's job records kept: nothing but the forced jobs is due
    shutil.copytree(smoke_run / "results", again / "results", symlinks=True)
    shutil.copytree(smoke_run / ".snakemake" / "metadata", again / ".snakemake" / "metadata")
    t0 = time.time()
    for forced in FORCED:
        proc = run_snakemake(again, "--forcerun", *forced, "--", *(t for ts in forced.values() for t in ts))
        ran = _ran(proc)
        # (and the cheap jobs between them, e.g. a prompt subset of the rerun prompts)
        assert set(forced) <= ran and len(ran) <= 2 * len(forced), f"forced {sorted(forced)}, ran {sorted(ran)}"
    print(f"forced reruns: {time.time() - t0:.0f}s")
    a, b = _digests(smoke_run), _digests(again)
    assert set(a) == set(b), f"file sets differ: {sorted(set(a) ^ set(b))[:10]}"
    redone = {f for f in b if not VOLATILE.search(f)
              and (again / f).stat().st_mtime > (smoke_run / f).stat().st_mtime}
    for kind in ("tables/", "figures/", "samples/", "scores/", "data/", "base/model/model.safetensors",
                 "math/seed0/model/model.safetensors"):
        assert any(kind in f for f in redone), f"no rerun {kind} file compared"
    differ = [f for f in sorted(redone) if a[f] != b[f]]
    assert not differ, f"not reproducible: {differ}"
