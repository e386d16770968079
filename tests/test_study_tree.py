"""One study per working directory (lineage/study_tree.py): the first run that starts a job records its study in
results/.study; another study's run there is refused before any job, naming the way out (`--directory`)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from conftest import REPO, SMOKE_CONFIG, run_snakemake
from rlvr_support.lineage.study_tree import STAMP, record_study, recorded_study, study_conflict


def test_a_tree_records_its_first_study_and_refuses_another(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert recorded_study("results") is None and study_conflict("results", "paper", ["configs/paper.yaml"]) is None
    record_study("results", "toy", ["config.yaml"])
    record_study("results", "paper", ["configs/paper.yaml"])  # kept as first recorded
    assert recorded_study("results") == {"study": "toy", "configfiles": ["config.yaml"]}
    assert study_conflict("results", "toy", ["config.yaml", "configs/toy-seeds.yaml"]) is None
    err = study_conflict("results", "paper", ["configs/paper.yaml"])
    assert "study 'toy'" in err and "study 'paper'" in err and "--directory" in err and "configs/paper.yaml" in err
    (tmp_path / "results" / STAMP).write_text("{not json")
    with pytest.raises(ValueError, match=r"\.study: not the JSON"):
        recorded_study("results")


@pytest.mark.snakemake
def test_a_second_study_is_refused_before_any_job_in_another_studys_directory(tmp_path):
    """A real run records the study; the paper study's dry run there stops at parse time (nothing planned, nothing
    written), while the same study (another seed) plans as usual."""
    run_snakemake(tmp_path, "results/data/prompts/math.jsonl")
    assert json.loads((tmp_path / "results" / STAMP).read_text())["study"] == "smoke"
    audit = subprocess.run([sys.executable, "-m", "rlvr_support", "audit", "results", "--quick"], cwd=tmp_path,
                           capture_output=True, text=True)
    assert audit.returncode == 0, audit.stdout + audit.stderr  # the stamp holds no result: not an audit finding
    prompts = {p: p.stat().st_mtime_ns for p in (tmp_path / "results" / "data" / "prompts").glob("*.jsonl")}
    proc = run_snakemake(tmp_path, "-n", "--", "all", config=REPO / "configs" / "paper.yaml", check=False)
    out = proc.stdout + proc.stderr
    assert proc.returncode != 0 and "study 'smoke'" in out and "study 'paper'" in out and "--directory" in out, out
    assert "Job stats" not in out  # refused while parsing: no job was planned
    assert {p: p.stat().st_mtime_ns for p in prompts} == prompts
    same = run_snakemake(tmp_path, "-n", "results/data/prompts/math.jsonl", config=SMOKE_CONFIG)
    assert same.returncode == 0
