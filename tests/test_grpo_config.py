"""rl.precision: bf16 only on a GPU that has it; the CPU always trains in fp32."""

import pytest
import torch
import yaml

from rlvr_support.training import stage as grpo
from rlvr_support.config.validate import load_config


def test_bf16_is_off_on_cpu_whatever_the_config(monkeypatch):
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    assert grpo.use_bf16({"precision": "bf16"}) is False
    assert grpo.use_bf16({"precision": "fp32"}) is False
    assert grpo.use_bf16({}) is False  # fp32 unless asked


def test_bf16_on_a_gpu_switches_cudnn_attention_off(monkeypatch):
    calls = []
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    monkeypatch.setattr(torch.cuda, "is_bf16_supported", lambda *a, **k: True)
    monkeypatch.setattr(torch.backends.cuda, "enable_cudnn_sdp", lambda on: calls.append(on))
    assert grpo.use_bf16({"precision": "bf16"}) is True
    assert calls == [False]
    assert grpo.use_bf16({"precision": "fp32"}) is False and calls == [False]


def test_bf16_on_a_gpu_without_it_is_an_error(monkeypatch):
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    monkeypatch.setattr(torch.cuda, "is_bf16_supported", lambda *a, **k: False)
    monkeypatch.setattr(torch.cuda, "get_device_name", lambda *a: "Tesla V100")
    with pytest.raises(ValueError, match="V100 has no bf16"):
        grpo.use_bf16({"precision": "bf16"})


def test_precision_is_validated(tmp_path):
    from pathlib import Path
    cfg = yaml.safe_load((Path(__file__).parents[1] / "config.yaml").read_text())
    cfg["rl"]["precision"] = "fp16"
    bad = tmp_path / "bad.yaml"
    bad.write_text(yaml.safe_dump(cfg))
    with pytest.raises(Exception, match="fp16"):
        load_config(bad)


def test_each_training_process_takes_its_share_of_the_jobs_cores():
    """--threads is the job's cores on the node; torchrun's LOCAL_WORLD_SIZE processes share them (at least 1 each)."""
    assert grpo.process_threads(32, {}) == 32  # one process (launcher python)
    assert grpo.process_threads(32, {"LOCAL_WORLD_SIZE": "8"}) == 4
    assert grpo.process_threads(6, {"LOCAL_WORLD_SIZE": "8"}) == 1
