"""Faults: a training job killed with SIGKILL and rerun resumes from its last save and reaches
the same weights as an uninterrupted run; `_partial/` from another job is never resumed."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import torch
import yaml
from safetensors.torch import load_file

from conftest import SMOKE_CONFIG
from rlvr_support.models import resume

CONFIG = yaml.safe_load(SMOKE_CONFIG.read_text())


def test_prepare_keeps_own_progress_and_drops_foreign_or_incomplete(tmp_path):
    partial = tmp_path / "_partial"
    resume.prepare(partial, {"seed": 0})
    (partial / "checkpoint-2").mkdir()
    (partial / "checkpoint-2" / "trainer_state.json").write_text("{}")
    (partial / "checkpoint-4").mkdir()  # killed while saving: no trainer_state.json
    resume.prepare(partial, {"seed": 0})
    assert sorted(p.name for p in partial.glob("checkpoint-*")) == ["checkpoint-2"]
    resume.prepare(partial, {"seed": 1})
    assert not list(partial.glob("checkpoint-*")), "progress of a job with another seed was kept"
    (partial / "state.pt").write_text("x")
    (partial / "fingerprint.json").unlink()
    resume.prepare(partial, {"seed": 1})
    assert not (partial / "state.pt").exists(), "progress without a fingerprint was kept"


def _cli(cwd: Path, *args: str) -> list[str]:
    return [sys.executable, "-m", "rlvr_support", *args]


# The smoke base policy earns no reward, so GRPO advantages (and updates) would all be zero and
# any resume would "match". This graded stand-in reward gives every group a spread.
LENGTH_REWARD = """
import sys
import rlvr_support.training.stage as grpo
def make_reward(task, scoring=None):
    def length_reward(prompts, completions, **_):
        return [len(c if isinstance(c, str) else c[-1]["content"]) % 5 / 4 for c in completions]
    return length_reward
grpo.make_reward = make_reward
from rlvr_support.cli.main import main
sys.exit(main(sys.argv[1:]))
"""


def _train_cli(*args: str) -> list[str]:
    return [sys.executable, "-c", LENGTH_REWARD, *args]


def _kill_when(cmd: list[str], cwd: Path, marker: Path, timeout: float = 300) -> None:
    """Start `cmd`, SIGKILL it as soon as `marker` exists (a save finished); fail if it ends first."""
    proc = subprocess.Popen(cmd, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    t0 = time.time()
    while not marker.exists():
        if proc.poll() is not None:
            pytest.fail(f"{cmd[-1]} finished (rc {proc.returncode}) before {marker} appeared; cannot test the kill")
        if time.time() - t0 > timeout:
            proc.kill()
            pytest.fail(f"{marker} did not appear within {timeout}s")
        time.sleep(0.02)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    assert proc.returncode == -signal.SIGKILL


def _run(cmd, cwd):
    proc = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return proc.stdout + proc.stderr


def _same_weights(a: Path, b: Path) -> None:
    wa, wb = load_file(a / "model/model.safetensors"), load_file(b / "model/model.safetensors")
    assert wa.keys() == wb.keys()
    for k in wa:
        assert torch.equal(wa[k], wb[k]), f"{k} differs between the resumed and the uninterrupted run"


@pytest.mark.slow
def test_pretraining_killed_and_rerun_matches_uninterrupted(smoke_run, tmp_path):
    base = {**CONFIG["base"], "train": {**CONFIG["base"]["train"], "steps": 60, "save_every": 20}}
    corpus = str(smoke_run / "results/data/corpus.jsonl")
    args = ["pretrain", "--corpus", corpus, "--cfg", json.dumps(base), "--seed", "0"]
    _run(_cli(tmp_path, *args, "--out", "a/manifest.json"), tmp_path)
    _kill_when(_cli(tmp_path, *args, "--out", "b/manifest.json"), tmp_path, tmp_path / "b/_partial/state.pt")
    assert not (tmp_path / "b/manifest.json").exists()
    log = _run(_cli(tmp_path, *args, "--out", "b/manifest.json"), tmp_path)
    assert "resuming pretraining from step" in log
    _same_weights(tmp_path / "a", tmp_path / "b")
    ma, mb = (json.loads((tmp_path / d / "manifest.json").read_text()) for d in "ab")
    assert mb["resumed_from"] > 0 and ma["final_loss"] == mb["final_loss"]
    assert not (tmp_path / "b/_partial").exists(), "_partial/ was left after a finished job"


@pytest.mark.slow
def test_grpo_stage_killed_and_rerun_matches_uninterrupted(smoke_run, tmp_path):
    rl = {**CONFIG["rl"], "steps": 6, "save_every": 2}
    args = ["train", "--parent", str(smoke_run / "results/checkpoints/base/manifest.json"), "--task", "math",
            "--prompts", str(smoke_run / "results/data/prompts/math.jsonl"), "--cfg", json.dumps(rl),
            "--seed", "0", "--chain", "math"]
    _run(_train_cli(*args, "--out", "a/manifest.json"), tmp_path)
    _kill_when(_train_cli(*args, "--out", "b/manifest.json"), tmp_path,
               tmp_path / "b/_partial/checkpoint-2/trainer_state.json")
    log = _run(_train_cli(*args, "--out", "b/manifest.json"), tmp_path)
    assert "resuming from" in log
    _same_weights(tmp_path / "a", tmp_path / "b")
    curve = (tmp_path / "a/reward_curve.csv").read_bytes()
    assert curve == (tmp_path / "b/reward_curve.csv").read_bytes()
    parent = load_file(smoke_run / "results/checkpoints/base/model/model.safetensors")
    trained = load_file(tmp_path / "a/model/model.safetensors")
    assert any(not torch.equal(parent[k], trained[k]) for k in parent), "GRPO did not change the weights"
    assert json.loads((tmp_path / "b/manifest.json").read_text())["resumed"] is True
    assert not (tmp_path / "b/_partial").exists(), "_partial/ was left after a finished job"
    # A rerun (say after a config or code change) starts afresh instead of "resuming" a finished run.
    log = _run(_train_cli(*args, "--out", "b/manifest.json"), tmp_path)
    assert "resuming from" not in log
    _same_weights(tmp_path / "a", tmp_path / "b")
