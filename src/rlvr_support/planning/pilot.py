"""The GPU pilot: a few GRPO steps and one sample shard of a real architecture with random weights, measured.

Nothing comes from the hub: the model is built from a stored config.json (planning/model_configs/) with
random weights and a tokenizer of plain token names over the model's whole vocabulary; prompts are random
token strings of the planned prompt length, and the end-of-sequence token is ignored (transformers:
min_new_tokens, vLLM: ignore_eos), so every rollout has the configured length. Speed and memory of a
random model are those of the trained one: the same shapes, kernels and lengths.

The GRPO steps go through the study's own trainer (training/stage.py grpo_config, SupportGRPOTrainer) with
the study's rl keys (micro-batch, checkpointing, rollout backend), timed by phase: rollout (generation),
update (log-prob passes, forward/backward and the optimizer step) and weight sync (vLLM). The first step is
warm-up (CUDA context, kernel selection, vLLM start) and is reported but not used. The file it writes is
what `python -m rlvr_support budget --measured <file>` reads: the utilisations its phase times imply
(planning/throughput.py efficiencies_from_pilot) replace the throughput model's assumptions.
"""

from __future__ import annotations

import json
import platform
import resource
import time
from pathlib import Path

# vLLM's CPU attention takes head sizes of 32 and up
QUICK_SHAPE = {"hidden_size": 128, "intermediate_size": 256, "num_hidden_layers": 2, "num_attention_heads": 4,
               "num_key_value_heads": 2, "head_dim": 32, "vocab_size": 512}
QUICK_RL = {"prompts_per_step": 2, "group_size": 4, "micro_batch": 4, "max_completion_tokens": 16}
QUICK_PROMPT_TOKENS = 12
ARCH_KEYS = ("model_type", "hidden_size", "intermediate_size", "num_hidden_layers", "num_attention_heads",
             "num_key_value_heads", "head_dim", "vocab_size", "max_position_embeddings", "tie_word_embeddings",
             "attention_bias")


def pilot_config(model_config: dict, quick: bool) -> dict:
    """The architecture keys the pilot builds; quick: the same family, shrunk to run on a CPU in seconds."""
    cfg = {k: model_config[k] for k in ARCH_KEYS if k in model_config}
    return {**cfg, **QUICK_SHAPE} if quick else cfg


def token_names(vocab: int) -> list[str]:
    return ["<pad>", "<eos>", "<unk>"] + [f"t{i}" for i in range(vocab - 3)]


def build_tokenizer(vocab: int):
    """A word-level tokenizer with one plain name per id of the model's vocabulary (no hub download)."""
    from tokenizers import Tokenizer, models, pre_tokenizers
    from transformers import PreTrainedTokenizerFast

    names = token_names(vocab)
    tok = Tokenizer(models.WordLevel({w: i for i, w in enumerate(names)}, unk_token="<unk>"))
    tok.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    return PreTrainedTokenizerFast(tokenizer_object=tok, pad_token="<pad>", eos_token="<eos>", unk_token="<unk>")


def build_model_dir(model_config: dict, out: Path, dtype, device: str) -> Path:
    """A model folder (config.json, random weights, tokenizer) of this architecture."""
    import torch
    from transformers import AutoConfig, AutoModelForCausalLM

    cfg = AutoConfig.for_model(**model_config, pad_token_id=0, eos_token_id=1, bos_token_id=None)
    torch.manual_seed(0)
    from rlvr_support.storage.atomic import atomic_dir

    with torch.device(device):
        model = AutoModelForCausalLM.from_config(cfg, dtype=dtype)
    with atomic_dir(out) as tmp:  # a killed pilot leaves no half-written model folder to be reused
        model.save_pretrained(tmp)
        build_tokenizer(model_config["vocab_size"]).save_pretrained(tmp)
    return out


def random_prompt_ids(n: int, length: int, vocab: int, seed: int = 0) -> list[list[int]]:
    """Random ordinary tokens (not pad, eos or unk), `length` per prompt."""
    import random

    rng = random.Random(seed)
    return [[rng.randrange(3, vocab) for _ in range(length)] for _ in range(n)]


def random_prompts(n: int, length: int, vocab: int, seed: int = 0) -> list[str]:
    """The same as text of the pilot tokenizer's token names (one token each)."""
    names = token_names(vocab)
    return [" ".join(names[i] for i in ids) for ids in random_prompt_ids(n, length, vocab, seed)]


class PhaseTimer:
    """Wall time and, on a GPU, peak memory per phase per optimizer step, from wrapped trainer methods.

    The wrapped methods nest (transformers' training_step prepares the inputs, which generates: the rollout runs
    inside `_generate_and_score`, inside `_training_step`), so every stretch between two marks (a wrapped call
    beginning or ending, a step ending) belongs to the innermost phase running, `_other` outside them all (the
    optimizer step, the data loader): step["_seconds"][phase] and step["_peak"][phase] (bytes PyTorch allocated
    at most, its peak statistics read and reset at each mark; CUDA synchronised at each mark)."""

    def __init__(self):
        self.steps: list[dict] = [{}]
        self._open: list[str] = []
        self._t: float | None = None
        self.max_allocated = 0  # over the whole run (warm-up included)

    def _mark(self):
        import torch

        on_gpu = torch.cuda.is_available()
        if on_gpu:
            torch.cuda.synchronize()
        now, phase, step = time.perf_counter(), self._open[-1] if self._open else "_other", self.steps[-1]
        if self._t is not None:
            seconds = step.setdefault("_seconds", {})
            seconds[phase] = seconds.get(phase, 0.0) + now - self._t
        self._t = now
        if on_gpu:
            peak = torch.cuda.max_memory_allocated()
            self.max_allocated = max(self.max_allocated, peak)
            peaks = step.setdefault("_peak", {})
            peaks[phase] = max(peaks.get(phase, 0), peak)
            torch.cuda.reset_peak_memory_stats()

    def wrap(self, obj, name: str, phase: str):
        fn = getattr(obj, name)

        def timed(*args, **kwargs):
            self._mark()
            self._open.append(phase)
            try:
                return fn(*args, **kwargs)
            finally:
                self._mark()
                self._open.pop()

        setattr(obj, name, timed)

    def next_step(self):
        self._mark()  # the optimizer step's stretch belongs to the step it ends
        self.steps.append({})

    def peak_gb(self) -> float:
        """This process's peak over the run: GPU memory PyTorch allocated, else the CPU process's resident set."""
        self._mark()
        return self.max_allocated / 1e9 if self.max_allocated else peak_memory_gb()


def phase_seconds(step: dict) -> dict[str, float]:
    """A step's time in the plan's phases: the rollout (generation), the weight sync (vLLM), and the update: the
    log-prob passes and reward scoring of `_generate_and_score`, the forward/backward of `_training_step` and the
    optimizer step (`_other`)."""
    s = step.get("_seconds", {})
    return {"rollout": s.get("rollout", 0.0), "sync": s.get("sync", 0.0),
            "update": s.get("_generate_and_score", 0.0) + s.get("_training_step", 0.0) + s.get("_other", 0.0)}


def peak_memory_gb() -> float:
    """This process's peak: GPU memory PyTorch allocated, else the CPU process's resident set."""
    import torch

    if torch.cuda.is_available():
        return torch.cuda.max_memory_allocated() / 1e9
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024 / 1e9


def gpu_kind() -> str | None:
    """The planner's GPU kind of the visible GPU (by its name), None on a CPU."""
    import torch

    if not torch.cuda.is_available():
        return None
    name = torch.cuda.get_device_name(0).lower()
    gb = torch.cuda.get_device_properties(0).total_memory / 1e9
    if "h200" in name:
        return "h200"
    if "h100" in name:
        return "h100"
    if "a100" in name:
        return "a100-80gb" if gb > 50 else "a100-40gb"
    return None


def run_pilot(model_config: dict, rl: dict, sampling: dict, prompt_tokens: int, steps: int, workdir: Path,
              quick: bool, gpu_type: str | None = None) -> dict:
    import torch
    from datasets import Dataset

    from rlvr_support.models.loading import load_model
    from rlvr_support.planning.study import rollout_kind
    from rlvr_support.planning.throughput import GRPOSetup
    from rlvr_support.training.frozen import frozen_copies
    from rlvr_support.config.batches import micro_batches
    from rlvr_support.training.stage import grpo_config
    from rlvr_support.training.trainer import SupportGRPOTrainer

    on_gpu = torch.cuda.is_available()
    arch = pilot_config(model_config, quick)
    rl = {**rl, **(QUICK_RL if quick else {}), "steps": steps, "log_every": 1, "save_every": 10 ** 6}
    rl.pop("monitor", None)
    prompt_tokens = QUICK_PROMPT_TOKENS if quick else prompt_tokens
    model_dir = workdir / "model"
    from accelerate import PartialState

    with PartialState().main_process_first():  # rank 0 builds the folder; the other ranks wait, then read it
        if not (model_dir / "config.json").is_file():
            build_model_dir(arch, model_dir, torch.bfloat16 if on_gpu else torch.float32, "cuda" if on_gpu else "cpu")

    # ignore EOS: every rollout runs to max_completion_tokens, as the longest of a real group does
    backend = rl.get("rollout_backend", "auto")
    gen = {"ignore_eos": True} if backend == "vllm" else {"min_new_tokens": rl["max_completion_tokens"]}
    args = grpo_config(workdir / "run", rl, seed=0)
    args.generation_kwargs = gen
    args.save_strategy = "no"
    # the tokenizer object itself: AutoTokenizer would swap in the family's own class (and pre-tokenizer) by model_type
    model, tok = load_model(model_dir), build_tokenizer(arch["vocab_size"])
    tok.padding_side = "left"
    model.train()
    per_step = rl["prompts_per_step"] * rl["group_size"]
    prompts = random_prompts(rl["prompts_per_step"] * (steps + 1), prompt_tokens, arch["vocab_size"])

    def reward(completions, **_):  # random, so that the advantages (and so the update) are not zero
        return torch.rand(len(completions)).tolist()

    trainer = SupportGRPOTrainer(model=model, reward_funcs=[reward], args=args, processing_class=tok,
                                 train_dataset=Dataset.from_list([{"prompt": p} for p in prompts]),
                                 reference=model_dir, rollout_backend="hf" if backend == "auto" else backend)
    timer = PhaseTimer()
    timer.wrap(trainer, "_generate_single_turn", "rollout")
    timer.wrap(trainer, "_generate_and_score_completions", "_generate_and_score")
    timer.wrap(trainer, "training_step", "_training_step")
    if getattr(trainer, "vllm_generation", None) is not None:
        # the weight sync runs inside the rollout call (TRL's on GPUs, vLLM-CPU's own reload on a CPU)
        import rlvr_support.training.trainer as trainer_module

        timer.wrap(trainer.vllm_generation, "sync_weights", "sync")
        timer.wrap(trainer_module, "sync_cpu_engine", "sync")
    from transformers import TrainerCallback

    class StepEnd(TrainerCallback):
        def on_step_end(self, *_, **__):
            timer.next_step()

    trainer.add_callback(StepEnd())
    t0 = time.perf_counter()
    trainer.train()
    wall = time.perf_counter() - t0
    timed = [s for s in timer.steps if s.get("_seconds")]
    measured = timed[1:] or timed  # drop the warm-up step
    phases = {phase: sum(phase_seconds(s)[phase] for s in measured) / len(measured)
              for phase in ("rollout", "update", "sync")}
    phase_peaks = None
    if on_gpu:  # the plan's phases: rollout; update (log-prob passes, forward/backward, optimizer); the whole step
        def peak(s, *names):
            return max([s.get("_peak", {}).get(n, 0) for n in names] or [0]) / 1e9

        phase_peaks = {"rollout": max(peak(s, "rollout") for s in measured),
                       "update": max(peak(s, "_generate_and_score", "_training_step", "_other") for s in measured),
                       "step": max(peak(s, *s.get("_peak", {})) for s in measured)}
    lengths = [h["completions/mean_length"] for h in trainer.state.log_history if "completions/mean_length" in h]
    mean_len = sum(lengths) / len(lengths) if lengths else float(rl["max_completion_tokens"])
    micro, _ = micro_batches(rl)
    processes = trainer.accelerator.num_processes
    step_s = sum(phases.values())
    setup = GRPOSetup(processes=processes, sequences=per_step, group_size=rl["group_size"],
                      prompt_tokens=prompt_tokens, max_completion=rl["max_completion_tokens"],
                      mean_completion=mean_len, rollout=rollout_kind(rl), kv_sequences=float("inf"),
                      checkpointing=bool(args.gradient_checkpointing),
                      nograd_passes=int(rollout_kind(rl).startswith("vllm")) + frozen_copies({}, rl.get("beta", 0.0)),
                      sharded=trainer.is_deepspeed_enabled or trainer.is_fsdp_enabled)
    peaks = trainer.accelerator.gather(torch.tensor([timer.peak_gb()], device=trainer.accelerator.device)).tolist()
    out = {
        "source": f"rlvr-support pilot on {platform.node()}",
        "device": torch.cuda.get_device_name(0) if on_gpu else f"cpu ({platform.processor() or platform.machine()})",
        "gpu_type": gpu_type or gpu_kind(), "quick": quick, "torch": torch.__version__,
        "model_config": arch,
        "grpo": {"setup": {**setup.__dict__, "kv_sequences": None}, "steps": steps, "micro_batch": micro, "wall_seconds": round(wall, 2),
                 "phase_seconds": phases, "step_seconds": [round(sum(phase_seconds(s).values()), 3)
                                                           for s in timed],
                 "mean_completion_tokens": mean_len,
                 "tokens_per_s_per_gpu": per_step * mean_len / step_s if step_s else None,
                 "peak_memory_gb_per_rank": peaks, "phase_peak_gb": phase_peaks},
    }
    if trainer.accelerator.is_main_process:
        out["sample"] = sample_shard(model_dir, sampling, prompt_tokens, arch["vocab_size"], quick)
    return out


def sample_shard(model_dir: Path, sampling: dict, prompt_tokens: int, vocab: int, quick: bool) -> dict:
    """One sample shard through the study's sampling backend: tokens/s and peak memory."""
    from rlvr_support.sampling.backends import Request, Sampler

    n = 2 if quick else sampling["n"]
    max_new = 16 if quick else sampling["max_new_tokens"]
    prompts = random_prompt_ids(4 if quick else sampling["prompt_batch"], prompt_tokens, vocab, seed=1)  # token ids: exact
    backend = sampling["backend"] if sampling["backend"] in ("hf", "vllm") else "hf"
    # a job's start-up: the sampler and a one-token request (HF loads the weights in the constructor, vLLM reads
    # them and starts its engine, CUDA graphs included, at each call); the budget's start-up term reads it. The
    # weights were just written, so they come from the page cache: the disk read is not in it
    t0 = time.perf_counter()
    sampler = Sampler(str(model_dir), backend, prompt_batch=sampling["prompt_batch"], vllm=sampling.get("vllm"),
                      dtype="auto")
    sampler.generate(Request(prompts[:1], n=1, temperature=1.0, top_p=1.0, max_new_tokens=1, seed=0))
    startup = time.perf_counter() - t0
    t0 = time.perf_counter()
    rows = sampler.generate(Request(prompts, n=n, temperature=1.0, top_p=1.0, max_new_tokens=max_new, seed=0))
    dt = time.perf_counter() - t0
    tokens = sum(r["n_tokens"] for r in rows)
    return {"backend": backend, "sequences": len(rows), "tokens": tokens, "seconds": round(dt, 3),
            "tokens_per_s_per_gpu": tokens / dt, "peak_memory_gb": peak_memory_gb(),
            "startup_seconds": round(startup, 3)}


def write_pilot(out: str | Path, result: dict) -> None:
    from rlvr_support.storage.atomic import write_text

    write_text(out, json.dumps(result, indent=1) + "\n")
