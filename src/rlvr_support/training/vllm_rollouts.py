"""GRPO rollouts from vLLM (`rl.rollout_backend: vllm`) through TRL's own integration. Targets trl==1.16.0
with vllm 0.31.0 (TRL 1.16 supports vLLM 0.22-0.31; envs/train.yaml, envs/vllm-cpu.txt).

TRL generates with vLLM when GRPOConfig.use_vllm is set, and keeps the engine's weights equal to the
policy's itself: before the first rollout of every optimizer step (`GRPOTrainer._generate_single_turn`:
whenever `state.global_step` differs from `_last_loaded_step`) it copies the parameters in, one at a
time, gathering ZeRO-3 / FSDP shards. With the default `steps_per_generation` (= gradient
accumulation steps) one generation serves exactly one optimizer step, so every rollout comes from the
weights being updated; only the engine's numerics differ, and TRL's importance-sampling correction
(`rl.vllm.importance_sampling`) reweights the loss by exp(log pi_trainer - log pi_vllm) per sequence.

The mode is TRL's colocate: one engine per training process, on its GPU(s), taking
`gpu_memory_utilization` of their memory (`tensor_parallel_size` processes share one engine). TRL's
server mode (`trl vllm-serve` on GPUs of their own, weights over NCCL) is not offered: the train job
would have to start and stop a server on part of its GPUs, and TRL 1.16 syncs a server's weights on
CUDA only (VLLMClient.init_communicator refuses any other device), so nothing here could test it.

What this module adds to TRL, and why:
- `grpo_vllm_kwargs`: the GRPOConfig keys from `rl.vllm` (defaults: config/defaults.py).
- `colocated_engine`: two engine options TRL 1.16 does not pass. The dtype follows the trainer's
  precision (vLLM would run an fp32 checkpoint in bf16, so the toy study's rollouts would come from
  another distribution than the one its loss is computed for), and the seed follows the RL seed (TRL
  seeds every engine with its rank, so every RL seed would draw the same random stream).
- `sync_cpu_engine`: the weight sync on vLLM's CPU backend. vLLM-CPU repacks each linear layer's
  weights for oneDNN after loading and drops the original parameter, so TRL's in-place
  `model.load_weights` fails there ("'Parameter' object has no attribute 'weight_loader'"). vLLM's
  own `reload_weights` (layerwise reload: restore, load, repack) updates them; a tied output head is
  re-tied and repacked after it (vLLM's layerwise reload keeps its old packed copy).
- `run_train_in_vllm_env`: the train verb re-run in the vLLM interpreter ($RLVR_VLLM_PYTHON or
  <repo>/.venv-vllm) when vLLM is not importable in this one (the CPU study keeps vLLM in its own venv).
"""

from __future__ import annotations

import os
import subprocess
from contextlib import contextmanager
from pathlib import Path

from rlvr_support.config.defaults import vllm_rollout_cfg


def grpo_vllm_kwargs(rl: dict) -> dict:
    """GRPOConfig keys for `rl.rollout_backend: vllm` (nothing for the other backends)."""
    if rl.get("rollout_backend", "auto") != "vllm":
        return {}
    v = vllm_rollout_cfg(rl)
    imp = v["importance_sampling"]
    out = {
        "use_vllm": True,
        "vllm_mode": "colocate",
        "vllm_gpu_memory_utilization": v["gpu_memory_utilization"],
        "vllm_tensor_parallel_size": v["tensor_parallel_size"],
        "vllm_enable_sleep_mode": v["enable_sleep_mode"],
        "vllm_max_model_length": v["max_model_len"],
        "vllm_importance_sampling_correction": imp["mode"] != "none",
    }
    if imp["mode"] != "none":
        out["vllm_importance_sampling_mode"] = imp["mode"]
        out["vllm_importance_sampling_clip_max"] = imp["clip_max"]
    return out


def engine_seed(rl_seed: int, trl_seed: int) -> int:
    """The colocated engine's seed: TRL's (the rank's tensor-parallel group, equal within a group so that
    its ranks sample alike) offset by the RL seed."""
    return (rl_seed * 1_000_003 + trl_seed) % 2**31


@contextmanager
def colocated_engine(args):
    """While TRL builds its colocated engine (VLLMGeneration._init_vllm calls `LLM(...)` from
    trl.generation.vllm_generation), pass the trainer's dtype and an RL-seeded engine seed; on the CPU
    backend also a KV cache of $VLLM_CPU_KVCACHE_SPACE GiB (default 1, as sampling does)."""
    if args is None or not args.use_vllm:
        yield
        return
    from trl.generation import vllm_generation

    import torch

    if not torch.cuda.is_available():
        os.environ.setdefault("VLLM_CPU_KVCACHE_SPACE", "1")
    make = vllm_generation.LLM

    def llm(*a, **kw):
        kw["dtype"] = "bfloat16" if args.bf16 else "float16" if args.fp16 else "float32"
        kw["seed"] = engine_seed(args.seed, kw.get("seed") or 0)
        return make(*a, **kw)

    vllm_generation.LLM = llm
    try:
        yield
    finally:
        vllm_generation.LLM = make


def is_cpu_engine(generation) -> bool:
    """Whether TRL's VLLMGeneration runs a colocated engine on vLLM's CPU backend."""
    if generation.mode != "colocate":
        return False
    from vllm.platforms import current_platform

    return current_platform.is_cpu()


def sync_cpu_engine(generation) -> None:
    """Copy the policy's weights into a colocated vLLM-CPU engine (see the module docstring for why TRL's
    own sync cannot), then drop its prefix cache as TRL's sync does."""
    runner = generation.llm.llm_engine.model_executor.driver_worker.model_runner
    runner.reload_weights(weights_iterator=generation._iter_named_params(), is_checkpoint_format=True)
    model = runner.get_model()
    hf_config = runner.model_config.hf_text_config
    if getattr(hf_config, "tie_word_embeddings", False):
        head, embed = getattr(model, "lm_head", None), getattr(getattr(model, "model", None), "embed_tokens", None)
        if head is None or embed is None:
            raise NotImplementedError(f"vLLM-CPU weight sync: tied output head of {type(model).__name__} not found "
                                      "(Llama / Qwen2 layouts only)")
        head.tie_weights(embed)
        head.quant_method.process_weights_after_loading(head)
    generation.llm.reset_prefix_cache()


def vllm_importable() -> bool:
    import importlib.util

    return importlib.util.find_spec("vllm") is not None


def run_train_in_vllm_env(argv: list[str]) -> int:
    """Run `python -m rlvr_support <argv>` in the vLLM interpreter, this package first on its path; its
    output passes through to our log, its exit status is returned."""
    from rlvr_support.sampling.vllm_env import vllm_python

    python = vllm_python()
    if os.environ.get("RLVR_IN_VLLM_ENV"):
        raise ValueError(f"rl.rollout_backend vllm: the vLLM environment {python} cannot import vllm")
    if python is None:
        raise ValueError("rl.rollout_backend vllm: vllm is not importable here and no vLLM environment was found "
                         "(set RLVR_VLLM_PYTHON or run `make setup-vllm`)")
    src = str(Path(__file__).resolve().parents[2])
    env = {**os.environ, "RLVR_IN_VLLM_ENV": "1", "PYTHONPATH": os.pathsep.join(p for p in (src, os.environ.get("PYTHONPATH")) if p)}
    print(f"rl.rollout_backend vllm: training in {python}", flush=True)
    return subprocess.run([python, "-m", "rlvr_support", *argv], env=env).returncode
