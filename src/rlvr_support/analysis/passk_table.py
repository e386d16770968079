"""pass@k, best@k, coverage and (math) maj@k at every power-of-two k, per chain, eval set and
benchmark, with CIs.

One group of rows per (chain, eval_set, benchmark) (analysis.benchmarks), at power-of-two k up
to that benchmark's n (per-benchmark sampling budgets may give benchmarks different n; imported
samples may give prompts different n: a row at k averages the prompts with n >= k, each from its
own samples, and says how many in `n_prompts`). Where an eval set holds more than one benchmark, a
pooled group (benchmark `all`) averages over the prompts of all of them at k up to the smallest n
among them, each prompt's value computed from its own benchmark's samples; this table and the
headline are the only ones with pooled rows. maj@k (metrics.majority) is written for math
benchmarks, whose samples have extracted answers.

RL seeds are aggregated: the point is the mean over seeds of the mean over prompts, the CI
resamples seeds and prompts (metrics.bootstrap.bootstrap_ci_grouped), so it includes seed
variation; the base policy has a single "seed".
"""

from __future__ import annotations

from collections import defaultdict

import numpy as np
import pandas as pd

from rlvr_support.metrics.bootstrap import bootstrap_ci_grouped
from rlvr_support.metrics.majority import maj_at_k_matrix
from rlvr_support.metrics.passk import best_at_k_matrix, coverage_at_k_per_prompt, pass_at_k_matrix, power_of_two_ks
from rlvr_support.analysis.benchmarks import POOLED
from rlvr_support.analysis.scores import PromptBlock, ScoreFile, benchmark_blocks

METRICS = ("pass@k", "best@k", "coverage", "maj@k")  # maj@k: math benchmarks only


def per_prompt_metrics(block: PromptBlock, ks: list[int], *, seed: int, first: int = 0) -> dict[str, np.ndarray]:
    """{metric: (P, K)} per-prompt values of prompts sharing n, at ks <= n; maj@k where the block has
    answer classes. `first`: the block's first prompt's position in the table (seeds maj@k's draws)."""
    out = {
        "pass@k": pass_at_k_matrix(block.n, block.success.sum(1), ks),
        "best@k": best_at_k_matrix(block.graded, ks),
        "coverage": np.stack([coverage_at_k_per_prompt(block.success, k) for k in ks], axis=1).astype(float),
    }
    if block.answers is not None:
        out["maj@k"] = maj_at_k_matrix(block.answers, ks, seed=seed, first=first)
    return out


def chain_order(chains) -> list[str]:
    return sorted(set(chains), key=lambda c: (c != "base", c.count("-"), c))


def _seed_blocks(chain: str, eval_set: str, group: list[ScoreFile]) -> list[dict[str, list[PromptBlock]]]:
    """[{benchmark: its prompt blocks} per seed]; every seed must hold the same benchmarks, each with
    the same prompts at the same n."""
    per_seed = [benchmark_blocks(f.path) for f in group]
    shape = {b: [(blk.n, blk.ids) for blk in blocks] for b, blocks in per_seed[0].items()}
    for f, m in zip(group[1:], per_seed[1:]):
        if list(m) != list(shape):
            raise ValueError(f"{f.path}: benchmarks {list(m)} differ from {list(shape)} of {group[0].path}")
        for b, blocks in m.items():
            if [(blk.n, blk.ids) for blk in blocks] != shape[b]:
                raise ValueError(f"{chain}/{eval_set} [{b}]: seeds were sampled with different n "
                                 f"{sorted({blk.n for blk in blocks} | {n for n, _ in shape[b]})}")
    return per_seed


def _prompts_of(seed_blocks: dict, benchmarks: list[str], ks: list[int], seed: int) -> dict[str, np.ndarray]:
    """{metric: (P, K)} of the prompts of `benchmarks` in one seed's file, each from its own n: NaN at
    k above a prompt's n (that prompt is not in the row), maj@k only where every prompt has answers."""
    parts: dict[str, list[np.ndarray]] = defaultdict(list)
    first = 0
    for b in benchmarks:
        for blk in seed_blocks[b]:
            inside = [k for k in ks if k <= blk.n]
            values = per_prompt_metrics(blk, inside, seed=seed, first=first)
            for metric, v in values.items():
                parts[metric].append(np.pad(v, ((0, 0), (0, len(ks) - len(inside))), constant_values=np.nan))
            first += len(blk.ids)
    n_blocks = len(parts["pass@k"])
    return {metric: np.concatenate(v) for metric, v in parts.items() if len(v) == n_blocks}


def passk_table(files: list[ScoreFile], *, n_boot: int, ci: float, seed: int) -> pd.DataFrame:
    """One row per chain, eval set, benchmark (pooled `all` included), metric and k: a benchmark's rows
    run up to its largest n, each prompt counted at the k up to its own n (`n_prompts`, `n_samples`:
    the prompts in the row and their smallest n); pooled rows up to the smallest n of any prompt."""
    groups: dict[tuple[str, str], list[ScoreFile]] = defaultdict(list)
    for f in files:
        groups[(f.chain, f.eval_set)].append(f)
    rows, bench_rank = [], {}
    for (chain, eval_set), group in sorted(groups.items()):
        group = sorted(group, key=lambda f: (f.seed is not None, f.seed))
        per_seed = _seed_blocks(chain, eval_set, group)
        ns = {b: [blk.n for blk in blocks] for b, blocks in per_seed[0].items()}
        # (ks, benchmarks whose prompts the row averages over)
        parts = {b: (power_of_two_ks(max(n)), [b]) for b, n in ns.items()}
        if len(ns) > 1:
            parts[POOLED] = (power_of_two_ks(min(min(n) for n in ns.values())), list(ns))
        for bench, (ks, members) in parts.items():
            bench_rank.setdefault(bench, len(bench_rank))
            values = [_prompts_of(m, members, ks, seed) for m in per_seed]
            n_of = np.concatenate([[blk.n] * len(blk.ids) for b in members for blk in per_seed[0][b]])
            for metric in (m for m in METRICS if m in values[0]):
                for j, k in enumerate(ks):
                    inside = n_of >= k
                    point, low, high, spread = bootstrap_ci_grouped(
                        [v[metric][inside, j] for v in values], n_boot=n_boot, ci=ci, seed=seed)
                    rows.append({
                        "chain": chain, "eval_set": eval_set, "benchmark": bench, "metric": metric, "k": k,
                        "mean": float(point), "ci_low": float(low), "ci_high": float(high),
                        "seed_std": float(spread), "n_seeds": len(group),
                        "n_prompts": int(inside.sum()), "n_samples": int(n_of[inside].min()),
                    })
    df = pd.DataFrame(rows)
    order = {c: i for i, c in enumerate(chain_order(df["chain"]))}
    bench_rank[POOLED] = len(bench_rank)  # benchmarks in the prompts' order, the pooled rows last
    keys = {"chain": order, "benchmark": bench_rank}
    df = df.sort_values(["eval_set", "benchmark", "chain", "metric", "k"],
                        key=lambda s: s.map(keys[s.name]) if s.name in keys else s)
    return df.reset_index(drop=True)


def headline_table(passk: pd.DataFrame) -> pd.DataFrame:
    """chain x eval set x benchmark: pass@1, best@k and coverage at the benchmark's largest k that every
    prompt reaches, each with its CI."""
    if "benchmark" not in passk:  # a table written before benchmarks: one per eval set
        passk = passk.assign(benchmark=passk["eval_set"])
    out = []
    for (chain, eval_set, bench), g in passk.groupby(["chain", "eval_set", "benchmark"], sort=False):
        every = int(g["n_prompts"].max())  # k max: the largest k every prompt reaches (each prompt's own n)
        kmax = int(g.loc[g["n_prompts"] == every, "k"].max())
        row = {"chain": chain, "eval_set": eval_set, "benchmark": bench, "n_seeds": int(g["n_seeds"].iloc[0]),
               "n_prompts": every, "k_max": kmax}
        for metric, k, name in (("pass@k", 1, "pass@1"), ("best@k", kmax, "best@kmax"), ("coverage", kmax, "coverage@kmax")):
            r = g[(g["metric"] == metric) & (g["k"] == k)].iloc[0]
            row[name], row[f"{name}_lo"], row[f"{name}_hi"] = r["mean"], r["ci_low"], r["ci_high"]
        out.append(row)
    return pd.DataFrame(out)
