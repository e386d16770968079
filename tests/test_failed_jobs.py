"""A failed job's error reaches the terminal (cli/failed_jobs.py, the workflow's onerror handler), not only its
log file: a hub failure in `prefetch` is the case users meet first."""

from __future__ import annotations

import pytest
import yaml

from conftest import SMOL_CONFIG, run_snakemake
from rlvr_support.cli.failed_jobs import failed_job_logs

SNAKEMAKE_LOG = """Error in rule source_data:
    jobid: 3
    output: results/data/prompts/math.jsonl
    log: results/logs/data/prompts_math.log (check log file(s) for error details)
    shell: ...
Error in rule budget:
    log: results/logs/budget.log, results/logs/budget.extra.log (check log file(s) for error details)
"""


def test_the_end_of_each_failed_jobs_log_is_shown(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "results" / "logs" / "data").mkdir(parents=True)
    (tmp_path / "results" / "logs" / "data" / "prompts_math.log").write_text(
        "".join(f"progress {i}\n" for i in range(30)) + "error: HuggingFaceH4/MATH-500: cannot reach the hub\n")
    (tmp_path / "results" / "logs" / "budget.log").write_text("error: budget: no prompts\n")
    (tmp_path / "snakemake.log").write_text(SNAKEMAKE_LOG)
    shown = failed_job_logs(tmp_path / "snakemake.log", lines=5)
    assert "results/logs/data/prompts_math.log" in shown and "cannot reach the hub" in shown
    assert "progress 25" not in shown and "progress 26" in shown  # the last 5 lines only
    assert "budget: no prompts" in shown and "budget.extra.log" not in shown  # a log that was never written
    assert failed_job_logs(tmp_path / "missing.log") == ""
    assert failed_job_logs([tmp_path / "missing.log", tmp_path / "snakemake.log"], lines=5) == shown  # Snakemake 9


@pytest.mark.snakemake
def test_a_hub_failure_in_prefetch_is_explained_on_the_terminal(tmp_path, monkeypatch):
    """A hub dataset with the hub unreachable (HF_HUB_OFFLINE): the data job's one-line error is on stderr."""
    cfg = yaml.safe_load(SMOL_CONFIG.read_text())
    cfg["world"]["tasks"]["math"][1] = {"format": "math500", "hub": "HuggingFaceH4/MATH-500", "hf_split": "test",
                                        "split": "eval", "name": "math500", "limit": 3}
    config = tmp_path / "hub.yaml"
    config.write_text(yaml.safe_dump(cfg, sort_keys=False))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("HF_DATASETS_OFFLINE", "1")
    monkeypatch.setenv("HF_HOME", str(tmp_path / "hf"))
    proc = run_snakemake(tmp_path / "work", "results/data/prompts/math.jsonl", config=config, check=False)
    assert proc.returncode != 0
    assert "the end of results/logs/data/prompts_math.log" in proc.stderr, proc.stderr[-3000:]
    tail = proc.stderr.split("the end of results/logs/data/prompts_math.log", 1)[1]
    assert "MATH-500" in tail, tail
