"""Runs that repeat exactly: two fresh runs of the smoke config give byte-identical tables,
figures, data, samples, scores and model weights (only logs, benchmarks, manifests' wall-clock
fields and the provenance sidecars, which hold times and hosts, and the results tree's identity,
may differ). Reruns that redo
exactly what an edit affects: tests/test_rerun_plans.py."""

from __future__ import annotations

import hashlib
import re
import time

import pytest

from conftest import run_snakemake

# Files that record when/where/how long, never what: excluded from the byte comparison.
VOLATILE = re.compile(r"^results/(logs|benchmarks)/|\.prov\.json$|/manifest\.json$|^results/checkpoints/.*/_partial/"
                      r"|^results/\.provenance-tree$")


def _digests(root):
    return {p.relative_to(root).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted((root / "results").rglob("*")) if p.is_file()}


@pytest.mark.slow
def test_two_fresh_runs_are_byte_identical(smoke_run, tmp_path_factory):
    again = tmp_path_factory.mktemp("smoke_again")
    t0 = time.time()
    run_snakemake(again, "all")
    print(f"second smoke run: {time.time() - t0:.0f}s")
    a, b = _digests(smoke_run), _digests(again)
    assert set(a) == set(b), f"file sets differ: {sorted(set(a) ^ set(b))[:10]}"
    compared = [f for f in a if not VOLATILE.search(f)]
    for kind in ("tables/", "figures/", "samples/", "scores/", "data/", "model.safetensors"):
        assert any(kind in f for f in compared), f"no {kind} file compared"
    differ = [f for f in compared if a[f] != b[f]]
    assert not differ, f"not reproducible: {differ}"
