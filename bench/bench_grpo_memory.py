"""What micro-batching and gradient checkpointing buy and cost on one GRPO-sized forward/backward (CPU).

A SmolLM2-135M-shaped decoder (random weights, its width, heads and vocabulary; `--layers` of its 30) runs
one optimizer step's forward/backward over `--sequences` left-padded sequences of `--length` tokens, with
TRL's fused LM head, in four ways: all sequences at once (the baseline: what rl.micro_batch left unset does),
micro-batches of `--micro` with accumulation, and both again with gradient checkpointing. For each: the
activation bytes autograd saves in one forward (saved_tensors_hooks; the largest micro-batch is what a GPU
must hold), the memory plan's prediction of them (planning/memory.py), and the wall time of the whole step;
ratios against the baseline of the same run.

    .venv/bin/python bench/bench_grpo_memory.py [--layers 6] [--sequences 32] [--micro 8] [--length 256] [--repeat 3]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(REPO / "src"), str(REPO / "tests")]

from test_memory_plan import SMOLLM2, build, saved_bytes  # noqa: E402  (the same measurement as the test)


def step_seconds(model, sequences: int, micro: int, length: int, checkpointing: bool) -> float:
    import torch

    if checkpointing:
        model.gradient_checkpointing_enable(gradient_checkpointing_kwargs={"use_reentrant": False})
    else:
        model.gradient_checkpointing_disable()
    model.train()
    ids = torch.randint(0, model.config.vocab_size, (sequences, length), generator=torch.Generator().manual_seed(0))
    t0 = time.perf_counter()
    for start in range(0, sequences, micro):
        chunk = ids[start:start + micro]
        out = model(input_ids=chunk, attention_mask=torch.ones_like(chunk), labels=chunk, fused_lm_head=True)
        (out.loss * len(chunk) / sequences).backward()
    model.zero_grad(set_to_none=True)
    return time.perf_counter() - t0


def main() -> None:
    import torch

    from rlvr_support.planning.memory import activation_bytes
    from rlvr_support.planning.shapes import ModelShape, load_shape, stored_config

    p = argparse.ArgumentParser()
    p.add_argument("--layers", type=int, default=6)
    p.add_argument("--sequences", type=int, default=32)
    p.add_argument("--micro", type=int, default=8)
    p.add_argument("--length", type=int, default=256)
    p.add_argument("--repeat", type=int, default=3)
    a = p.parse_args()
    torch.set_num_threads(1)
    shape = load_shape(stored_config(SMOLLM2))
    shape = ModelShape(**{**shape.__dict__, "layers": a.layers})
    model = build(shape)
    cases = [("all at once (baseline)", a.sequences, False), (f"micro-batches of {a.micro}", a.micro, False),
             ("all at once, checkpointing", a.sequences, True), (f"micro-batches of {a.micro}, checkpointing",
                                                                  a.micro, True)]
    rows = []
    for label, micro, ckpt in cases:
        saved = saved_bytes(model, micro, a.length, ckpt)
        planned = sum(activation_bytes(shape, micro, a.length, 4, ckpt))  # saved + the recomputed layer
        secs = statistics.median(step_seconds(model, a.sequences, micro, a.length, ckpt) for _ in range(a.repeat))
        rows.append((label, saved, planned, secs))
    base_bytes, base_secs = rows[0][1], rows[0][3]
    print(f"SmolLM2-135M shape, {a.layers} of 30 layers; one step of {a.sequences} sequences x {a.length} tokens; "
          f"torch threads 1; median of {a.repeat}")
    print("| case | saved activations (MB) | vs baseline | planned peak activations (MB) | step (s) | time vs baseline |")
    print("|---|---:|---:|---:|---:|---:|")
    for label, saved, planned, secs in rows:
        print(f"| {label} | {saved / 1e6:,.1f} | {saved / base_bytes:.3f} | {planned / 1e6:,.1f} | {secs:.2f} | "
              f"{secs / base_secs:.2f} |")


if __name__ == "__main__":
    main()
