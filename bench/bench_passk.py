"""Benchmark of the pass@k / best@k fast paths and of streaming memory.

Run: ``python bench/bench_passk.py [--prompts 10000] [--n 8192]``.  Prints a markdown
table to stdout and writes nothing else.

* pass@k: ``pass_at_k_matrix`` for P prompts x n samples at all power-of-two k,
  median of 3 runs, vs. a straightforward per-prompt, per-k Python loop using the
  numpy snippet of Chen et al. (2021), ``1 - prod(1 - k/arange(n-c+1, n+1))``.
* best@k: ``best_at_k_matrix`` on a (P, n) float32 reward matrix (5 reward levels),
  median of 3, vs. a per-prompt loop that sorts the prompt's rewards and, per k,
  builds the weights C(i-1,k-1)/C(n,k) by a numpy cumulative product and takes a dot.
* The baselines are timed on a subset of prompts and scaled linearly to P (their cost
  is exactly linear in the number of prompts); the table says which subset.
* Streaming: one million samples (1,000 prompts x 1,000 samples, arriving shuffled in
  chunks of 65,536 like Parquet row groups, generated chunk by chunk) through
  ``PassKAccumulator`` (pass@k counts + 5 reward levels for best@k); peak traced
  Python/numpy memory (tracemalloc) and the process's max RSS so far.
"""

from __future__ import annotations

import argparse
import resource
import statistics
import time
import tracemalloc

import numpy as np

from rlvr_support.metrics.passk import (
    PassKAccumulator,
    best_at_k_matrix,
    pass_at_k_matrix,
    power_of_two_ks,
)


def median_time(fn, repeat: int = 3) -> tuple[float, object]:
    times, out = [], None
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times), out


def baseline_pass(n: int, c: np.ndarray, ks: list[int]) -> np.ndarray:
    out = np.empty((len(c), len(ks)))
    for p, cp in enumerate(c.tolist()):
        for j, k in enumerate(ks):
            out[p, j] = 1.0 if n - cp < k else 1.0 - np.prod(1.0 - k / np.arange(n - cp + 1, n + 1))
    return out


def baseline_best(rewards: np.ndarray, ks: list[int]) -> np.ndarray:
    P, n = rewards.shape
    out = np.empty((P, len(ks)))
    i = np.arange(1, n + 1, dtype=np.float64)
    for p in range(P):
        r = np.sort(rewards[p].astype(np.float64))
        for j, k in enumerate(ks):
            # w_i = C(i-1,k-1)/C(n,k): w_n = k/n, w_{i-1} = w_i * (i-k)/(i-1), built top-down
            factors = np.ones(n)
            factors[:-1] = np.clip((i[1:] - k) / (i[1:] - 1), 0.0, None)[::-1]
            w = (k / n) * np.cumprod(np.concatenate([[1.0], factors[:-1]]))[::-1]
            out[p, j] = float(w @ r)
    return out


def stream_memory(total: int = 1_000_000, prompts: int = 1_000, chunk: int = 65_536, seed: int = 0):
    tracemalloc.start()  # includes the 8 MB permutation that stands in for the file's row order
    rng = np.random.default_rng(seed)
    levels = [0.0, 0.25, 0.5, 0.75, 1.0]
    per_prompt = total // prompts
    order = rng.permutation(total)  # sample order of the "file": shuffled across prompts
    difficulty = rng.random(prompts)
    t0 = time.perf_counter()
    acc = PassKAccumulator(success_threshold=1.0, levels=levels)
    for start in range(0, total, chunk):
        rows = order[start : start + chunk]
        pid = rows // per_prompt
        # graded reward on the 5-level grid, success rate depending on the prompt
        r = np.minimum(rng.binomial(4, difficulty[pid]) / 4.0, 1.0)
        acc.update(pid, r)
    ks = power_of_two_ks(per_prompt)
    pk = acc.pass_at_k(ks)
    bk = acc.best_at_k(ks)
    elapsed = time.perf_counter() - t0
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert pk.shape == bk.shape == (prompts, len(ks)) and np.all(bk + 1e-12 >= pk)
    return elapsed, peak


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--prompts", type=int, default=10_000)
    ap.add_argument("--n", type=int, default=8_192)
    ap.add_argument("--baseline-prompts-pass", type=int, default=200)
    ap.add_argument("--baseline-prompts-best", type=int, default=20)
    args = ap.parse_args()
    P, n = args.prompts, args.n
    ks = power_of_two_ks(n)
    rng = np.random.default_rng(0)
    rows = []

    # streaming first, so that max RSS reflects it before the big matrices exist
    s_time, s_peak = stream_memory()
    rss_stream = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KiB -> MiB on Linux

    # pass@k
    c = rng.binomial(n, rng.random(P) ** 3)
    t_fast, fast = median_time(lambda: pass_at_k_matrix(n, c, ks))
    sub = args.baseline_prompts_pass
    t_base_sub, base = median_time(lambda: baseline_pass(n, c[:sub], ks), repeat=1)
    np.testing.assert_allclose(fast[:sub], base, rtol=1e-9, atol=1e-12)
    t_base = t_base_sub * P / sub
    rows.append((f"pass@k, {P} x n={n}, {len(ks)} k", t_fast, t_base, f"{sub} prompts x{P / sub:g}"))

    # best@k
    rewards = np.empty((P, n), dtype=np.float32)  # filled in blocks to keep generation memory small
    for start in range(0, P, 1000):
        b = min(1000, P - start)
        rewards[start : start + b] = rng.binomial(4, rng.random((b, 1)), size=(b, n)) / 4.0
    t_fast_b, fast_b = median_time(lambda: best_at_k_matrix(rewards, ks))
    sub_b = args.baseline_prompts_best
    t_base_sub_b, base_b = median_time(lambda: baseline_best(rewards[:sub_b], ks), repeat=1)
    np.testing.assert_allclose(fast_b[:sub_b], base_b, atol=1e-5)
    t_base_b = t_base_sub_b * P / sub_b
    rows.append((f"best@k, {P} x n={n}, {len(ks)} k (float32)", t_fast_b, t_base_b, f"{sub_b} prompts x{P / sub_b:g}"))

    print("| task | fast (s, median of 3) | per-prompt baseline (s, scaled) | speed-up | baseline measured on |")
    print("|---|---:|---:|---:|---|")
    for name, tf, tb, note in rows:
        print(f"| {name} | {tf:.3f} | {tb:.1f} | {tb / tf:,.0f}x | {note} |")
    print()
    print("| streaming (1,000,000 samples, 1,000 prompts, chunks of 65,536) | value |")
    print("|---|---:|")
    print(f"| time: accumulate + pass@k + best@k (s) | {s_time:.2f} |")
    print(f"| peak traced memory, tracemalloc (MiB) | {s_peak / 2**20:.1f} |")
    print(f"| process max RSS after streaming, incl. interpreter + numpy (MiB) | {rss_stream:.0f} |")
    print(f"| process max RSS at end, incl. the {P} x {n} float32 reward matrix (MiB) | "
          f"{resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} |")


if __name__ == "__main__":
    main()
