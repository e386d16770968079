"""The GPU check of the plan: the memory plan's and the throughput model's terms measured on one GPU, each
against what the plan says, written to the file that `budget --measured` reads (planning/check_report.py).

    scripts/gpu_check.sh --plan [--wheelhouse DIR]      (python scripts/gpu_check.py --plan; docs/cluster.md)

It runs on a bare GPU node, with the node's torch, transformers, accelerate and safetensors, TRL and datasets
from the wheelhouse (`make gpu-wheelhouse`) and PYTHONPATH=src; it says first which parts cannot run and why
(`requirements`), then measures, rewriting its file after every measurement, so a crash keeps what was measured:

a. context: what `torch.cuda.mem_get_info` reports against what the plan takes the GPU kind to report
   (planning/gpus.py GPU.total_gb), and the memory the CUDA context takes; after (b), the context, workspaces
   and allocator slack at the update's peak against the plan's 3 GB + its allocator headroom.
b. update: the study model's exact shapes (its stored config.json) with random bf16 weights, micro-batches of
   1, 2, 4, 8 x (prompt + completion) tokens, gradient checkpointing and TRL's fused LM head (the prompt's
   tokens not scored), as GRPO runs it; with the padding mask every GRPO batch has, and without any mask. The
   gradients exist before the step (the plan holds them resident), so memory above the allocated baseline is
   the update phase's: after the forward against the plan's activations term, at the peak against activations
   + the backward's largest moment (memory.py update_terms); tokens/s against the throughput model's at its assumed MFU, and the MFU in
   the model's own FLOP count (throughput.update_flops_per_token).
c. decode ceiling: one decode step over the model's weight shapes (every linear layer and the LM head) and the
   KV cache of each running sequence, CUDA-graphed so that no launch overhead counts, at the batch sizes the
   rollout model assumes (1, 8, the GRPO rollouts per GPU, vLLM's max_num_seqs); its time against the model's
   step at the assumed decode efficiency (throughput.decode_step_seconds). The efficiency it reaches bounds the
   model's decode_efficiency from above.
d. grpo: the study's own GRPO stage (planning/pilot.py: its trainer, HF rollouts, EOS ignored) on a model that
   fits one GPU, at a small size, 3 steps (the first is warm-up): each phase's time and peak memory against
   grpo_step and train_plan for that setup.

`--cpu`: the same code on a tiny model of the same family in seconds (the CI test). There memory is what the
tensors made during the step hold (LiveBytes, a dispatch mode counting each storage once), and nothing that
needs a GPU kind (times, the context) is planned.
"""

from __future__ import annotations

import copy
import gc
import platform
import time
import warnings
from dataclasses import replace
from datetime import datetime, timezone
from pathlib import Path

import torch

from rlvr_support.planning import check_report
from rlvr_support.planning.gpus import GPUS, GPU
from rlvr_support.planning.memory import (ALLOCATOR_HEADROOM, CUDA_OVERHEAD, GB, MemoryPlan, activation_bytes,
                                          train_plan, update_terms)
from rlvr_support.planning.pilot import gpu_kind, pilot_config
from rlvr_support.planning.shapes import shape_from_config
from rlvr_support.planning.throughput import (VLLM_MAX_NUM_SEQS, Efficiencies, GRPOSetup, decode_step_seconds,
                                              grpo_step, update_flops_per_token)

MICRO_BATCHES = (1, 2, 4, 8)
# the GRPO stage of (d): a model that fits one GPU with fp32 Adam, rollouts short enough for 3 steps in a minute
GRPO_MODEL = "Qwen/Qwen2.5-1.5B"
GRPO_RL = {"prompts_per_step": 2, "group_size": 4, "micro_batch": 4, "max_completion_tokens": 256,
           "rollout_backend": "hf"}
GRPO_PROMPT_TOKENS = 256
GRPO_SAMPLING = {"backend": "hf", "n": 2, "prompt_batch": 2, "max_new_tokens": 32}
GRPO_STEPS = 3
GRPO_NEEDS_S = 150  # (d) starts only with this much of --time-limit left
CPU_SEQ_LEN, CPU_PROMPT = 64, 16  # --cpu: tokens per sequence, of them prompt
CPU_KV_BUDGET = 64e6  # --cpu: bytes of KV cache per decode measurement


# ---- what each part needs


def versions() -> dict:
    """Python, CUDA and the version of every package a part needs (None: not importable, with why)."""
    import importlib

    out = {"python": platform.python_version(), "torch": torch.__version__, "cuda": torch.version.cuda}
    for name in ("transformers", "accelerate", "safetensors", "trl", "datasets", "tokenizers", "pandas", "yaml"):
        try:
            out[name] = getattr(importlib.import_module(name), "__version__", "?")
        except Exception as e:  # noqa: BLE001 - any failure to import is what the check reports
            out[name] = None
            out[f"{name}_error"] = f"{type(e).__name__}: {e}"[:300]
    return out


def requirements(cpu: bool) -> dict[str, str]:
    """{part: why it cannot run} for the parts this environment cannot run."""
    import importlib

    out = {}
    if not cpu and not torch.cuda.is_available():
        return {p: "torch sees no CUDA device (run with --cpu on a machine without one)"
                for p in ("context", "update", "decode", "grpo")}
    if cpu:
        out["context"] = "--cpu: no CUDA context to measure"
    needs = {"update": ["transformers", "trl.trainer.utils", "rlvr_support.training.stage"],
             "decode": ["transformers"],
             "grpo": ["transformers", "trl", "datasets", "rlvr_support.training.trainer",
                      "rlvr_support.sampling.backends", "yaml"]}
    hint = ("; TRL (the fused LM head, the GRPO trainer) and datasets come from the wheelhouse: make gpu-wheelhouse, "
            "then scripts/gpu_check.sh --wheelhouse DIR on the node")
    for part, modules in needs.items():
        for module in modules:
            try:
                importlib.import_module(module)
            except Exception as e:  # noqa: BLE001 - any failure to import is what the check reports
                said = f"cannot import {module}: {type(e).__name__}: {e}"[:400]
                out[part] = said + (hint if any(m in said for m in ("trl", "datasets", "dill", "multiprocess"))
                                    else "")
                break
    if not cpu and torch.cuda.is_available() and not torch.cuda.is_bf16_supported():
        for part in ("update", "decode"):
            out.setdefault(part, f"{torch.cuda.get_device_name(0)} has no bf16")
    return out


# ---- memory meters: bytes above a baseline, now and at the peak


class CudaMeter:
    """PyTorch's CUDA allocator: memory allocated above the baseline at `start`, now and at its peak."""

    def start(self, known=()):
        torch.cuda.synchronize()
        self.base = torch.cuda.memory_allocated()
        torch.cuda.reset_peak_memory_stats()
        return self

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    def now(self) -> int:
        torch.cuda.synchronize()
        return torch.cuda.memory_allocated() - self.base

    def peak(self) -> int:
        torch.cuda.synchronize()
        return torch.cuda.max_memory_allocated() - self.base


def live_bytes_meter():
    """On the CPU, which has no allocator statistics: a dispatch mode that counts each storage an operator
    returns once, until it is freed (its weak reference expires), and the peak of that sum. Storages that
    existed at `start` (`known`: weights, gradients, the batch) are not counted; when one of them is freed
    (a gradient replaced out of place) its bytes are taken off, so the count is the net change."""
    from torch.multiprocessing.reductions import StorageWeakRef
    from torch.utils._python_dispatch import TorchDispatchMode
    from torch.utils._pytree import tree_flatten

    class LiveBytes(TorchDispatchMode):
        def start(self, known=()):
            self.known = {}
            for t in known:
                ref = StorageWeakRef(t.untyped_storage())
                self.known[ref.cdata] = (ref, t.untyped_storage().nbytes())
            self.live, self.count, self.top = {}, 0, 0
            return self

        def _sweep(self):
            for table, sign in ((self.live, 1), (self.known, -1)):
                for key in [k for k, (ref, _) in table.items() if ref.expired()]:
                    self.count -= sign * table.pop(key)[1]

        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            out = func(*args, **(kwargs or {}))
            for t in tree_flatten(out)[0]:
                if isinstance(t, torch.Tensor):
                    storage = t.untyped_storage()
                    ref = StorageWeakRef(storage)
                    if ref.cdata not in self.live and ref.cdata not in self.known:
                        self.live[ref.cdata] = (ref, storage.nbytes())
                        self.count += storage.nbytes()
            if self.count > self.top:  # freed storages only make the count smaller: sweep them when it matters
                self._sweep()
                self.top = max(self.top, self.count)
            return out

        def now(self) -> int:
            self._sweep()
            return self.count

        def peak(self) -> int:
            return self.top

    return LiveBytes()


# ---- the check's file, rewritten after every measurement


class Record:
    """The check's results (planning/check_report.py's format), written atomically after every change."""

    def __init__(self, path: str | Path | None, head: dict):
        self.path, self.data = path, {"kind": check_report.KIND, "format": 1, **head, "parts": {}, "rows": [],
                                      "efficiencies": {}, "finished": False}
        self.save()

    def row(self, *args, **kwargs) -> dict:
        r = check_report.row(*args, **kwargs)
        self.data["rows"].append(r)
        self.save()
        verdict = "FAIL" if r["fail"] else "ok" if r["ratio"] is not None else "-"
        print(f"[{r['part']}] {r['term']} ({r['unit']}): planned {check_report.number(r['planned'])}, measured "
              f"{check_report.number(r['measured'])}, ratio {check_report.number(r['ratio'])} {verdict}", flush=True)
        return r

    def part(self, name: str, **info) -> None:
        self.data["parts"].setdefault(name, {}).update(info)
        self.save()

    def save(self) -> None:
        if self.path:
            import json

            from rlvr_support.storage.atomic import write_text

            write_text(self.path, json.dumps(self.data, indent=1) + "\n")


# ---- (a) the CUDA context and the memory the device reports


def measure_context(rec: Record, gpu: GPU | None) -> dict:
    free, total = torch.cuda.mem_get_info()
    # the context and the libraries' workspaces: what is used outside PyTorch's allocator once a matrix product
    # and an attention kernel have run
    a = torch.randn(1024, 1024, device="cuda", dtype=torch.bfloat16)
    q = torch.randn(1, 8, 128, 128, device="cuda", dtype=torch.bfloat16)
    (a @ a).sum().item()
    torch.nn.functional.scaled_dot_product_attention(q, q, q).sum().item()
    free_after, _ = torch.cuda.mem_get_info()
    context = total - free_after - torch.cuda.memory_reserved()
    del a, q
    rec.part("context", total_gb=total / GB, free_before_gb=free / GB, context_gb=context / GB,
             device=torch.cuda.get_device_name(0))
    rec.row("context", "GPU memory (mem_get_info total)", "GB", gpu.total_gb if gpu else None, total / GB,
            "the memory the plan takes the GPU kind to report (planning/gpus.py GPU.total_gb; its nominal "
            f"{gpu.mem_gb if gpu else '?'} GB), which every plan divides and vLLM's gpu_memory_utilization multiplies")
    rec.row("context", "CUDA context and library workspaces (used outside PyTorch's allocator)", "GB", None,
            context / GB, "part of the plan's 3 GB 'CUDA context and workspaces' (assumed); the whole term is "
                          "compared after the update")
    return {"total": total, "context": context}


# ---- (b) the update


def random_model(arch: dict, device: str, dtype):
    """A causal LM of this architecture with random weights, built on `device` (no hub)."""
    from transformers import AutoConfig, AutoModelForCausalLM

    cfg = AutoConfig.for_model(**arch, pad_token_id=0, eos_token_id=1, bos_token_id=None)
    torch.manual_seed(0)
    with torch.device(device):
        return AutoModelForCausalLM.from_config(cfg, dtype=dtype)


def update_batch(mb: int, seq_len: int, prompt: int, vocab: int, padded: bool, device: str):
    """Random tokens; labels score the completion only (TRL passes -100 for the prompt, so the fused LM head
    projects the completion's positions alone); `padded`: rows left-padded by different widths, as a GRPO
    batch of prompts of different lengths is, else no attention mask at all."""
    g = torch.Generator().manual_seed(mb)
    ids = torch.randint(3, vocab, (mb, seq_len), generator=g)
    labels = ids.clone()
    labels[:, :prompt] = -100
    mask = None
    if padded:
        mask = torch.ones_like(ids)
        for r in range(mb):
            mask[r, : (r + 1) * max(1, prompt // (2 * mb))] = 0
        labels = labels.masked_fill(mask == 0, -100)
    return ids.to(device), None if mask is None else mask.to(device), labels.to(device)


def update_step(model, ids, mask, labels, meter=None) -> int | None:
    """One forward/backward as GRPO's loss runs it (TRL's fused LM head); returns the meter's count after the
    forward (what the forward keeps for the backward)."""
    out = model(input_ids=ids, attention_mask=mask, labels=labels, fused_lm_head=True)
    scored = (labels[:, 1:] != -100)
    loss = -(out.log_probs.float() * scored).sum() / scored.sum()
    after = meter.now() if meter is not None else None
    loss.backward()
    return after


def prepare_for_update(model) -> list:
    """GRPO's training setup of the policy: TRL's fused LM head (log-probs and entropy in tiles), gradient
    checkpointing as transformers' Trainer enables it, cuDNN attention off under bf16 (training/stage.py
    use_bf16), and the gradients allocated before the step."""
    from trl.trainer.utils import add_fused_lm_head

    from rlvr_support.training.stage import use_bf16

    use_bf16({"precision": "bf16"})
    add_fused_lm_head(model, outputs=("log_probs", "entropy"))
    model.train()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        model.gradient_checkpointing_enable()
    params = [p for p in model.parameters() if p.requires_grad]
    for p in params:
        p.grad = torch.zeros_like(p)
    return params


def measure_update(rec: Record, model, shape, gpu: GPU | None, seq_len: int, prompt: int, device: str,
                   deadline: float, study_micro_batch: int) -> None:
    params = prepare_for_update(model)
    on_gpu = device == "cuda"
    flops = update_flops_per_token(shape, seq_len, checkpointing=True)
    assumed = Efficiencies().mfu
    unit, scale = ("GB", GB) if on_gpu else ("MB", 1e6)  # --cpu: a tiny model's megabytes
    top = [0, 0]  # (bytes allocated at the highest peak, reserved beyond them then)
    for padded in (True, False):
        label = "padding mask" if padded else "no mask"
        for mb in MICRO_BATCHES:
            term = f"micro-batch {mb} x {seq_len}, {label}"
            if time.monotonic() > deadline:
                rec.part("update", skipped=f"--time-limit reached before {term}")
                return
            saved, recompute = activation_bytes(shape, mb, seq_len, 2, True, padded)
            ids, mask, labels = update_batch(mb, seq_len, prompt, shape.vocab, padded, device)
            # the plan's update phase for the tokens this batch scores (a smaller logits tile under 4,096 of them)
            terms = update_terms(shape, mb, seq_len, int((labels[:, 1:] != -100).sum()), 2, 2, True, padded)
            update_peak = MemoryPlan("update", "", gpu, terms=terms).phase("update")
            moments = {}
            for t in terms:
                if t.moment:
                    moments[t.moment] = moments.get(t.moment, 0.0) + t.bytes / GB
            try:
                update_step(model, ids, mask, labels)  # warm-up: kernel selection, the allocator's first blocks
                for p in params:
                    p.grad.zero_()
                meter = CudaMeter() if on_gpu else live_bytes_meter()
                with meter:
                    meter.start(known=[*params, *(p.grad for p in params), *model.buffers(), ids, labels,
                                       *([mask] if mask is not None else [])])
                    t0 = time.perf_counter()
                    after = update_step(model, ids, mask, labels, meter)
                    peak = meter.peak()
                    metered_s = time.perf_counter() - t0
                if on_gpu and torch.cuda.max_memory_allocated() > top[0]:  # the allocator's slack at the highest peak
                    top[:] = [torch.cuda.max_memory_allocated(),
                              torch.cuda.max_memory_reserved() - torch.cuda.max_memory_allocated()]
                    rec.part("update", peak_allocated_gb=top[0] / GB, slack_at_peak_gb=top[1] / GB)
                if on_gpu:
                    torch.cuda.synchronize()
                t0 = time.perf_counter()
                update_step(model, ids, mask, labels)
                if on_gpu:
                    torch.cuda.synchronize()
                seconds = time.perf_counter() - t0
                if on_gpu:  # the allocator's statistics cost nothing: the metered step is timed too
                    seconds = (seconds + metered_s) / 2
            except torch.cuda.OutOfMemoryError as e:
                rec.row("update", f"{term}: peak above baseline", unit, update_peak / scale, None,
                        "out of memory", note=f"out of memory: {str(e)[:160]}")
                model.zero_grad(set_to_none=False)
                gc.collect()
                torch.cuda.empty_cache()
                continue
            tokens = mb * seq_len
            tps = tokens / seconds
            mfu = tps * flops / (gpu.bf16_tflops * 1e12) if gpu else None
            shown = dict(micro_batch=mb, seq_len=seq_len, padded=padded)
            rec.row("update", f"{term}: kept by the forward", unit, saved / scale, after / scale,
                    "the plan's activations term (planning/memory.py activation_bytes: layer inputs with "
                    "checkpointing, embedding output, final norm, the LM head's per-token state)", **shown)
            rec.row("update", f"{term}: peak above baseline", unit, update_peak / scale, peak / scale,
                    "the plan's update phase (planning/memory.py update_terms): activations + the largest of the "
                    "backward's moments (the LM head's: logits tile, fp32 weight gradient and its cast, input "
                    "gradient; a recomputed layer's: its saved tensors and gradients; the embedding's gradient); "
                    "the baseline holds the weights and their gradients (on the CPU, TRL's torch fallback of the "
                    "LM head makes tile-sized temporaries its Triton kernel does not)", **shown,
                    activations_gb=saved / GB, recomputed_layer_gb=recompute / GB, moments_gb=moments)
            planned_tps = gpu.bf16_tflops * 1e12 * assumed / flops if gpu else None
            rec.row("update", f"{term}: tokens/s", "tokens/s", planned_tps, tps,
                    f"the throughput model's update at mfu {assumed} (assumed), {flops / shape.params:.2f} N FLOPs "
                    "per token", mfu=mfu, seconds=seconds, **shown)
            if mfu is not None and padded:  # the study's micro-batch, or the nearest measured so far
                best = rec.data["efficiencies"].get("mfu")
                if best is None or abs(mb - study_micro_batch) <= abs(best["micro_batch"] - study_micro_batch):
                    rec.data["efficiencies"]["mfu"] = {"value": mfu, "micro_batch": mb, "seq_len": seq_len,
                                                       "padded": True}
                    rec.save()
    rec.part("update", done=True)


def measure_overhead(rec: Record, context: dict | None) -> None:
    """After the update: the context and workspaces, and what the allocator reserved beyond what it handed out
    at the peak, against the plan's 3 GB 'CUDA context and workspaces' + its allocator headroom (a share of what
    was allocated at the peak)."""
    slack = rec.data["parts"].get("update", {}).get("slack_at_peak_gb")
    if context is None or slack is None:
        return
    free, total = torch.cuda.mem_get_info()
    outside = total - free - torch.cuda.memory_reserved()
    slack *= GB
    headroom = ALLOCATOR_HEADROOM * rec.data["parts"]["update"]["peak_allocated_gb"] * GB
    rec.row("context", "CUDA context, workspaces and allocator slack at the update's peak", "GB",
            (CUDA_OVERHEAD + headroom) / GB, (outside + slack) / GB,
            f"planning/memory.py CUDA_OVERHEAD + ALLOCATOR_HEADROOM ({ALLOCATOR_HEADROOM:.0%} of the allocated peak; "
            "both assumed); measured: used outside PyTorch's allocator + reserved beyond allocated at the peak",
            outside_gb=outside / GB, slack_gb=slack / GB, planned_headroom_gb=headroom / GB)


# ---- (c) the decode ceiling


def decode_step_fn(model, shape, batch: int, context: int, device: str):
    """One decode step of `batch` sequences over the model's weights and a KV cache of `context` tokens each:
    every projection of every layer, attention reading each layer's cache once (grouped heads, no copy), the
    MLP and the LM head. Norms and rotary embeddings are left out (a few kB)."""
    import torch.nn.functional as F

    dt = torch.bfloat16
    g = shape.heads // shape.kv_heads
    x = torch.randn(batch, shape.hidden, device=device, dtype=dt) * 0.02
    caches = [(torch.randn(batch, shape.kv_heads, context, shape.head_dim, device=device, dtype=dt),
               torch.randn(batch, shape.kv_heads, context, shape.head_dim, device=device, dtype=dt))
              for _ in range(shape.layers)]
    layers, head = model.model.layers, model.lm_head.weight

    def step():
        y = x
        for layer, (k, v) in zip(layers, caches):
            a, m = layer.self_attn, layer.mlp
            q = F.linear(y, a.q_proj.weight, a.q_proj.bias)
            F.linear(y, a.k_proj.weight, a.k_proj.bias)  # the new token's key and value (the cache is what is read)
            F.linear(y, a.v_proj.weight, a.v_proj.bias)
            s = q.view(batch, shape.kv_heads, g, shape.head_dim) @ k.transpose(-1, -2)
            o = torch.softmax(s.float() * shape.head_dim ** -0.5, dim=-1).to(dt) @ v
            y = y + F.linear(o.reshape(batch, shape.q_width), a.o_proj.weight)
            gate, up = F.linear(y, m.gate_proj.weight), F.linear(y, m.up_proj.weight)
            y = y + F.linear(F.silu(gate) * up, m.down_proj.weight)
        return F.linear(y, head)

    weight_bytes = sum(w.numel() * w.element_size() for layer in layers
                       for w in (layer.self_attn.q_proj.weight, layer.self_attn.k_proj.weight,
                                 layer.self_attn.v_proj.weight, layer.self_attn.o_proj.weight,
                                 layer.mlp.gate_proj.weight, layer.mlp.up_proj.weight, layer.mlp.down_proj.weight))
    weight_bytes += head.numel() * head.element_size()
    return step, weight_bytes, caches


def time_step(step, device: str, repeats: int) -> tuple[float, str]:
    """Seconds per call of `step`: replayed from a CUDA graph on a GPU (no launch overhead), else called."""
    with torch.no_grad():
        if device != "cuda":
            step()
            t0 = time.perf_counter()
            for _ in range(repeats):
                step()
            return (time.perf_counter() - t0) / repeats, "eager (CPU)"
        side = torch.cuda.Stream()
        side.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(side):
            for _ in range(3):
                step()
        torch.cuda.current_stream().wait_stream(side)
        how = "CUDA graph"
        try:
            graph = torch.cuda.CUDAGraph()
            with torch.cuda.graph(graph):
                step()
            run = graph.replay
        except Exception as e:  # noqa: BLE001 - timed eagerly instead, and said so
            how, run = f"eager (graph capture failed: {type(e).__name__})", step
        run()
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        for _ in range(repeats):
            run()
        end.record()
        torch.cuda.synchronize()
        return start.elapsed_time(end) / 1e3 / repeats, how


def measure_decode(rec: Record, model, shape, gpu: GPU | None, batches: list[int], context: int, device: str,
                   kv_budget: float, rollout_batch: int, deadline: float) -> None:
    eff = Efficiencies()
    kvb = shape.kv_bytes_per_token(2)
    for batch in batches:
        if time.monotonic() > deadline:
            rec.part("decode", skipped=f"--time-limit reached before batch {batch}")
            return
        ctx = int(min(context, kv_budget // (batch * kvb)))
        if ctx < 1:
            rec.part("decode", **{f"batch_{batch}": "no room for one token of KV cache"})
            continue
        try:
            step, weight_bytes, caches = decode_step_fn(model, shape, batch, ctx, device)
            seconds, how = time_step(step, device, repeats=20 if device == "cuda" else 3)
        except torch.cuda.OutOfMemoryError as e:
            rec.row("decode", f"batch {batch}, context {ctx}: step", "ms", None, None, "out of memory",
                    note=f"out of memory: {str(e)[:160]}")
            gc.collect()
            torch.cuda.empty_cache()
            continue
        kv_bytes = batch * ctx * kvb
        planned = decode_step_seconds(shape, gpu, eff, batch, ctx) if gpu else None
        bandwidth = (weight_bytes + kv_bytes) / seconds
        # in the model's own accounting (all N parameters read per step): the decode_efficiency that makes the
        # model's step take the measured time
        ceiling = (shape.params * 2 + kv_bytes) / (gpu.hbm_tb_s * 1e12 * seconds) if gpu else None
        rec.row("decode", f"batch {batch}, context {ctx}: step", "ms", planned * 1e3 if planned else None,
                seconds * 1e3, f"throughput.decode_step_seconds at decode_efficiency {eff.decode_efficiency} "
                               f"(assumed); {how}", batch=batch, context=ctx, bandwidth_tb_s=bandwidth / 1e12,
                efficiency=ceiling, bytes=weight_bytes + kv_bytes)
        if ceiling is not None and batch == rollout_batch:
            rec.data["efficiencies"]["decode_efficiency"] = {"value": ceiling, "batch": batch, "context": ctx,
                                                             "bandwidth_tb_s": bandwidth / 1e12}
            rec.save()
        del caches, step
        if device == "cuda":
            torch.cuda.empty_cache()
    rec.part("decode", done=True)


# ---- (d) the GRPO stage


def grpo_plan(cfg: dict, model: str, arch: dict, rl: dict, prompt: int, gpu: GPU):
    """(train_plan, its TrainSetup) of the stage (d) runs: the study's config with (d)'s rl keys and prompt
    length, one GPU, one process, no frozen copies beyond what rl.beta asks (the pilot runs no remedy); `arch`:
    the architecture the pilot built."""
    from rlvr_support.planning import study
    from rlvr_support.training.frozen import frozen_copies

    c = copy.deepcopy(cfg)
    c["rl"].update(rl)
    c["budget"]["max_prompt_tokens"] = prompt
    c["resources"]["train"] = {**c["resources"]["train"], "gpu": 1, "nodes": 1, "launcher": "python"}
    spec = {"kind": "hf", "path": model}
    setup = replace(study.train_setup(c, spec), frozen_copies=frozen_copies({}, rl.get("beta", 0.0)))
    return train_plan(model, shape_from_config(arch), setup, gpu), setup


def measure_grpo(rec: Record, cfg: dict, model: str, model_config: dict, gpu: GPU | None, gpu_type: str | None,
                 workdir: Path, cpu: bool) -> None:
    from rlvr_support.planning.pilot import QUICK_PROMPT_TOKENS, QUICK_RL, run_pilot

    rl = {**{k: v for k, v in cfg["rl"].items() if k not in ("seeds", "monitor")}, **GRPO_RL}
    result = run_pilot(model_config, rl, {**cfg["sampling"], **GRPO_SAMPLING}, GRPO_PROMPT_TOKENS, GRPO_STEPS,
                       workdir, quick=cpu, gpu_type=gpu_type)
    rec.part("grpo", model=model, model_config=result["model_config"], grpo=result["grpo"],
             sample=result.get("sample"), rl={**rl, **(QUICK_RL if cpu else {})},
             prompt_tokens=QUICK_PROMPT_TOKENS if cpu else GRPO_PROMPT_TOKENS)
    grpo_rows(rec, result, cfg, model, rl, None if cpu else gpu)


def grpo_rows(rec: Record, result: dict, cfg: dict, model: str, rl: dict, gpu: GPU | None) -> None:
    """(d)'s rows from the pilot's result: each phase's time against grpo_step at the assumed utilisations, and on
    a GPU kind the planner knows each phase's peak memory against train_plan for the setup that ran."""
    g = result["grpo"]
    setup = GRPOSetup(**{**g["setup"], "kv_sequences": float("inf")})
    ideal = grpo_step(shape_from_config(result["model_config"]), gpu, setup, Efficiencies()) if gpu else None
    where = f"{setup.sequences} x ({setup.prompt_tokens} + {setup.max_completion}) tokens"
    for phase in ("rollout", "update"):
        rec.row("grpo", f"{phase} time, {where}", "s", getattr(ideal, f"{phase}_s") if ideal else None,
                g["phase_seconds"][phase], "planning/throughput.py grpo_step at the assumed utilisations; measured: "
                                          "the mean of the steps after the warm-up")
    if gpu is None:
        return
    plan, train = grpo_plan(cfg, model, result["model_config"], rl, setup.prompt_tokens, gpu)
    resident = plan.phase("resident") - CUDA_OVERHEAD  # PyTorch's allocations: the context is not among them
    planned = {"rollout": resident + plan.phase("rollout"), "update": resident + plan.phase("update"),
               "step": plan.peak - CUDA_OVERHEAD}
    peaks = g.get("phase_peak_gb") or {}
    for phase in ("rollout", "update", "step"):
        how = (f"train_plan for one process, p = {train.p} B per parameter, {train.sharding} sharding: resident "
               f"terms (without the CUDA context) + the {phase} phase" if phase != "step" else
               "train_plan's peak without the CUDA context; measured: the step's peak, optimizer step included")
        rec.row("grpo", f"{phase} peak memory", "GB", planned[phase] / GB, peaks.get(phase), how,
                terms=[{"name": t.name, "gb": t.bytes / GB, "phase": t.phase} for t in plan.terms])


# ---- the whole check


def study_keys(configfile: str | Path) -> dict:
    """The study config with its defaults (config/defaults.py fill_defaults; not validated: the check needs no
    jsonschema on the node, and CI validates the repository's configs)."""
    import yaml

    from rlvr_support.config.defaults import fill_defaults

    return fill_defaults(yaml.safe_load(Path(configfile).read_text()))


PARTS = ("context", "update", "decode", "grpo")


def run_check(configfile: str | Path, model: str, model_config: dict, out: str | Path | None, workdir: Path,
              time_limit: float, grpo_model: str, grpo_config: dict, gpu_type: str | None = None,
              parts: tuple[str, ...] = PARTS, *, cpu: bool) -> dict:
    """Every part of `parts` that can run, in order (a)-(d), within `time_limit` seconds, the file `out` written
    after each measurement; returns its content. --cpu runs in one thread: the tiny tensors go fastest so, and a
    busy machine cannot stall each operator's thread pool (2 threads on 2 shared cores took 3 ms an operator)."""
    threads = torch.get_num_threads()
    if cpu:
        torch.set_num_threads(1)
    try:
        return _run_check(configfile, model, model_config, out, workdir, time_limit, grpo_model, grpo_config,
                          gpu_type, parts, cpu)
    finally:
        torch.set_num_threads(threads)


def _run_check(configfile, model, model_config, out, workdir, time_limit, grpo_model, grpo_config, gpu_type,
               parts, cpu) -> dict:
    t_start = time.monotonic()
    deadline = t_start + time_limit
    on_gpu = torch.cuda.is_available() and not cpu
    device = "cuda" if on_gpu else "cpu"
    gpu_type = gpu_type or (gpu_kind() if on_gpu else None)
    gpu = GPUS.get(gpu_type) if gpu_type else None
    cfg = study_keys(configfile)
    rl, budget = cfg["rl"], cfg["budget"]
    prompt = CPU_PROMPT if cpu else budget["max_prompt_tokens"]
    seq_len = CPU_SEQ_LEN if cpu else prompt + rl["max_completion_tokens"]
    mean_new = budget["response_fraction"] * rl["max_completion_tokens"]
    context = CPU_SEQ_LEN if cpu else int(budget["max_prompt_tokens"] + mean_new / 2)  # the model's mean KV per step
    rollout_batch = rl["prompts_per_step"] * rl["group_size"]
    arch = pilot_config(model_config, quick=cpu)
    shape = shape_from_config(arch)
    head = {"source": f"rlvr-support GPU check on {platform.node()}",
            "started": datetime.now(timezone.utc).isoformat(timespec="seconds"), "cpu": cpu,
            "device": torch.cuda.get_device_name(0) if on_gpu else f"cpu ({platform.machine()})",
            "gpu_type": gpu_type, "versions": versions(), "cannot_run": requirements(cpu), "model": model,
            "model_config": arch, "configfile": str(configfile),
            "study": {"micro_batch": rl.get("micro_batch") or rollout_batch, "seq_len": seq_len,
                      "prompt_tokens": prompt, "rollout_batch": rollout_batch, "decode_context": context},
            "time_limit_s": time_limit}
    rec = Record(out, head)
    for part, why in rec.data["cannot_run"].items():
        print(f"cannot run {part}: {why}", flush=True)
    if gpu is None and on_gpu:
        print(f"{head['device']}: no GPU kind the planner knows (planning/gpus.py; --gpu-type names one): "
              "times and utilisations are measured but not planned", flush=True)
    skip = {**rec.data["cannot_run"], **{p: "not asked for (--parts)" for p in PARTS if p not in parts}}
    for part in PARTS:
        if part not in parts:
            rec.part(part, skipped="not asked for (--parts)")

    def attempt(part, fn):
        if part in skip:
            return None
        t0 = time.monotonic()
        try:
            result = fn()
            rec.part(part, seconds=round(time.monotonic() - t0, 1))
            return result
        except Exception as e:  # noqa: BLE001 - one part failing leaves the others' measurements
            import traceback

            traceback.print_exc()
            rec.part(part, error=f"{type(e).__name__}: {e}"[:1000], seconds=round(time.monotonic() - t0, 1))
            return None

    ctx = attempt("context", lambda: measure_context(rec, gpu)) if on_gpu else None
    model_obj = None
    if "update" not in skip or "decode" not in skip:
        def build():
            return random_model(arch, device, torch.bfloat16)

        model_obj = attempt("model", build)
        rec.part("model", params=shape.params, family=arch.get("model_type"), bf16_gb=shape.params * 2 / GB)
    if model_obj is not None:
        attempt("update", lambda: measure_update(rec, model_obj, shape, gpu, seq_len, prompt, device,
                                                 deadline - (GRPO_NEEDS_S if "grpo" not in skip else 0) - 30,
                                                 rec.data["study"]["micro_batch"]))
        if on_gpu and ctx is not None and "update" not in skip:
            attempt("overhead", lambda: measure_overhead(rec, ctx))
        for p in model_obj.parameters():  # the gradients are the update's; the decode reads the weights alone
            p.grad = None
        gc.collect()
        if on_gpu:
            torch.cuda.empty_cache()
        kv_budget = 0.5 * torch.cuda.mem_get_info()[0] if on_gpu else CPU_KV_BUDGET
        batches = sorted({1, 8, rollout_batch, VLLM_MAX_NUM_SEQS})
        attempt("decode", lambda: measure_decode(rec, model_obj, shape, gpu, batches, context, device, kv_budget,
                                                 rollout_batch, deadline - (GRPO_NEEDS_S if "grpo" not in skip else 0)))
        del model_obj
        gc.collect()
        if on_gpu:
            torch.cuda.empty_cache()
    if "grpo" not in skip:
        if deadline - time.monotonic() < (GRPO_NEEDS_S if on_gpu else 0):
            rec.part("grpo", skipped=f"less than {GRPO_NEEDS_S} s of --time-limit left")
        else:
            attempt("grpo", lambda: measure_grpo(rec, cfg, grpo_model, grpo_config, gpu, gpu_type,
                                                 workdir / "grpo", cpu))
    rec.data["finished"] = True
    rec.data["seconds"] = round(time.monotonic() - t_start, 1)
    rec.save()
    return rec.data
