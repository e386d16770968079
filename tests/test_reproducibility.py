"""Runs that repeat exactly, and reruns that redo exactly what a code change affects.

* Two fresh runs of the smoke config give byte-identical tables, figures, data, samples,
  scores and model weights (only logs, benchmarks, manifests' wall-clock fields and the
  provenance sidecars, which hold times and hosts, may differ).
* Editing one package module reruns the rules whose code imports it and their dependents,
  and nothing upstream (code hashes are rule params, see codehash.py).
"""

from __future__ import annotations

import hashlib
import re
import shutil
import time

import pytest

from conftest import REPO, run_snakemake

# Files that record when/where/how long, never what: excluded from the byte comparison.
VOLATILE = re.compile(r"^results/(logs|benchmarks)/|\.prov\.json$|/manifest\.json$|^results/checkpoints/.*/_partial/")


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


def _copy_repo(dst):
    dst.mkdir(parents=True)
    ignore = shutil.ignore_patterns(".git", ".venv", "results", ".snakemake", "__pycache__", "*.egg-info",
                                    "report.html", ".pytest_cache")
    for name in ("Snakefile", "config.yaml", "workflow", "src", "tests", "slurm", "envs", "configs"):
        src = REPO / name
        if src.is_dir():
            shutil.copytree(src, dst / name, ignore=ignore)
        elif src.exists():
            shutil.copy2(src, dst / name)
    return dst


def _planned_jobs(workdir, snakefile) -> dict[str, list[str]]:
    """rule -> outputs of every job a dry run would execute."""
    proc = run_snakemake(workdir, "all", "-n", "--rerun-triggers", "params", "input", "mtime", "code",
                         snakefile=snakefile)
    jobs: dict[str, list[str]] = {}
    for block in re.split(r"\n(?=\S*rule \w+:)", proc.stdout + proc.stderr):
        m = re.match(r"\S*rule (\w+):", block.strip())
        if m:
            out = re.search(r"output: (.*)", block)
            jobs.setdefault(m.group(1), []).extend(out.group(1).split(", ") if out else [])
    return jobs


UPSTREAM = {"toy_data", "toy_corpus", "pretrain_base", "base_metrics", "train_stage", "sample", "score"}


@pytest.mark.slow
def test_editing_a_module_reruns_its_rules_and_nothing_upstream(smoke_run, tmp_path):
    repo = _copy_repo(tmp_path / "repo")
    snakefile = repo / "Snakefile"
    assert _planned_jobs(smoke_run, snakefile) == {}, "the completed smoke run is not up to date"

    # A figure module: its two figure rules rerun (the pass@k and best@k curves) and no table or
    # anything upstream. (Figure rules that hash the whole `figures` package rerun too: their
    # params name the package, not their module.)
    fig = repo / "src/rlvr_support/figures/passk_curves.py"
    fig.write_text(fig.read_text() + "\n# an edit\n")
    jobs = _planned_jobs(smoke_run, snakefile)
    assert {"figure_passk", "figure_bestk"} <= set(jobs), jobs
    outputs = [o for r, outs in jobs.items() if r != "all" for o in outs]
    assert outputs and all(o.startswith("results/figures/") for o in outputs), f"non-figure jobs rerun: {jobs}"

    # A table module the figures import: the table and what reads it rerun; no training, sampling or scoring.
    table = repo / "src/rlvr_support/analysis/passk_table.py"
    table.write_text(table.read_text() + "\n# an edit\n")
    jobs = _planned_jobs(smoke_run, snakefile)
    assert {"passk_table", "figure_passk", "figure_bestk"} <= set(jobs), jobs
    assert not UPSTREAM & set(jobs), f"upstream rules rerun: {sorted(UPSTREAM & set(jobs))}"
