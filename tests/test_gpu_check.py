"""scripts/gpu_check.sh --quick: runs end to end on this machine and reports what it measured."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
import torch

from conftest import REPO

sys.path.insert(0, str(REPO / "scripts"))  # the GPU check is a script, not a package module
import gpu_check  # noqa: E402


def test_plan_keeps_the_study_model_at_full_size_and_shrinks_only_in_quick_mode():
    full, quick = gpu_check.plan(REPO / "config.yaml", quick=False), gpu_check.plan(REPO / "config.yaml", quick=True)
    import yaml

    study = yaml.safe_load((REPO / "config.yaml").read_text())
    assert full["base"]["arch"] == study["base"]["arch"]
    assert quick["base"]["arch"]["hidden_size"] < study["base"]["arch"]["hidden_size"]
    assert full["sampling"]["backend"] == quick["sampling"]["backend"] == "hf"  # the same code on both devices
    assert "monitor" not in full["rl"]


@pytest.mark.slow
def test_quick_check_runs_and_reports(tmp_path):
    out = tmp_path / "report.json"
    proc = subprocess.run(["bash", str(REPO / "scripts" / "gpu_check.sh"), "--quick", "--threads", "1",
                           "--out", str(out)], capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-4000:]
    report = json.loads(out.read_text())
    cpu = report["legs"]["cpu"]
    assert cpu["device"] == "cpu"
    for stage in ("pretrain", "grpo", "sample"):
        assert cpu[stage]["tokens_per_s"] > 0, stage
    assert cpu["sample"]["samples"] == 4 * 2  # sample_prompts x n of the quick plan
    for stage in gpu_check.ANALYSES:  # every model-based analysis ran and has a rate
        assert "error" not in cpu[stage], cpu[stage]
        assert cpu[stage]["amount"] > 0 and cpu[stage]["seconds"] >= 0, stage
    assert cpu["analysis_base_metrics"]["amount"] == 4 * 5  # quick plan's eval prompts x (1 greedy + 4 sampled)
    assert "analysis_js" in proc.stdout
    if torch.cuda.is_available():
        assert report["legs"]["gpu"]["device"] == "cuda"
        assert set(report["ratio_gpu_over_cpu"]) == {"pretrain", "grpo", "sample"}
    else:
        assert "gpu" not in report["legs"] and "no GPU found" in report["note"]
        assert "no GPU found" in proc.stdout
