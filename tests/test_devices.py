"""require_gpus: a GPU job stops at once, with a message that says why, when it sees too few GPUs."""

from __future__ import annotations

import pytest
import torch

from rlvr_support.cli import main as cli
from rlvr_support.models import devices
from rlvr_support.models.devices import GPUUnavailableError, require_gpus


def _fake_gpus(monkeypatch, n):
    monkeypatch.setattr(torch.cuda, "is_available", lambda: n > 0)
    monkeypatch.setattr(torch.cuda, "device_count", lambda: n)


def test_zero_gpus_asked_never_fails(monkeypatch):
    _fake_gpus(monkeypatch, 0)
    assert require_gpus(0) == 0


@pytest.mark.parametrize("seen,asked", [(1, 1), (8, 4), (2, 2)])
def test_enough_gpus_pass(monkeypatch, seen, asked):
    _fake_gpus(monkeypatch, seen)
    assert require_gpus(asked) == seen


def test_too_few_gpus_name_what_the_job_saw(monkeypatch):
    _fake_gpus(monkeypatch, 1)
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "3")
    monkeypatch.setenv("SLURM_JOB_ID", "4242")
    monkeypatch.setenv("SLURM_JOB_PARTITION", "cpu")
    with pytest.raises(GPUUnavailableError) as err:
        require_gpus(4)
    msg = str(err.value)
    assert "asked for 4 GPU(s) but sees 1" in msg
    assert "CUDA_VISIBLE_DEVICES='3'" in msg
    assert "'SLURM_JOB_ID': '4242'" in msg and "'SLURM_JOB_PARTITION': 'cpu'" in msg


def test_no_cuda_runtime_counts_as_zero(monkeypatch):
    # device_count may report devices that an unusable driver then refuses: is_available decides.
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    monkeypatch.setattr(torch.cuda, "device_count", lambda: 2)
    monkeypatch.delenv("SLURM_JOB_ID", raising=False)
    with pytest.raises(GPUUnavailableError, match="not inside a SLURM job"):
        require_gpus(1)


def test_negative_request_is_an_error():
    with pytest.raises(ValueError):
        require_gpus(-1)


def test_torch_device_follows_visibility(monkeypatch):
    _fake_gpus(monkeypatch, 0)
    assert devices.torch_device() == "cpu"
    _fake_gpus(monkeypatch, 2)
    assert devices.torch_device() == "cuda"


@pytest.mark.parametrize("verb,extra", [
    ("train", ["--parent", "p.json", "--task", "math", "--prompts", "x.jsonl", "--seed", "0", "--chain", "math"]),
    ("sample", ["--model", "m.json", "--prompts", "x.jsonl", "--job", "base/math"]),
    ("pretrain", ["--corpus", "c.jsonl", "--seed", "0"]),
])
def test_cli_gpu_verbs_check_before_any_work(monkeypatch, capsys, tmp_path, verb, extra):
    _fake_gpus(monkeypatch, 0)
    out = tmp_path / "out.json"
    rc = cli.main([verb, *extra, "--cfg", "{}", "--out", str(out), "--gpus", "1"])
    assert rc == 1
    assert "asked for 1 GPU(s) but sees 0" in capsys.readouterr().err
    assert not out.exists()
