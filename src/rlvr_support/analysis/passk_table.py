"""pass@k, best@k and coverage at every power-of-two k, per chain, eval set and benchmark, with CIs.

One group of rows per (chain, eval_set, benchmark) (analysis.benchmarks), at power-of-two k up
to that benchmark's n (per-benchmark sampling budgets may give benchmarks different n). Where an
eval set holds more than one benchmark, a pooled group (benchmark `all`) averages over the prompts
of all of them at k up to the smallest n among them, each prompt's value computed from its own
benchmark's samples; this table and the headline are the only ones with pooled rows.

RL seeds are aggregated: the point is the mean over seeds of the mean over prompts, the CI
resamples seeds and prompts (metrics.bootstrap.bootstrap_ci_grouped), so it includes seed
variation; the base policy has a single "seed".
"""

from __future__ import annotations

from collections import defaultdict

import numpy as np
import pandas as pd

from rlvr_support.metrics.bootstrap import bootstrap_ci_grouped
from rlvr_support.metrics.passk import best_at_k_matrix, coverage_at_k_per_prompt, pass_at_k_matrix, power_of_two_ks
from rlvr_support.analysis.benchmarks import POOLED
from rlvr_support.analysis.scores import ScoreFile, benchmark_matrices

METRICS = ("pass@k", "best@k", "coverage")


def per_prompt_metrics(success: np.ndarray, graded: np.ndarray, ks: list[int]) -> dict[str, np.ndarray]:
    """{metric: (P, K)} per-prompt values."""
    n = success.shape[1]
    return {
        "pass@k": pass_at_k_matrix(n, success.sum(1), ks),
        "best@k": best_at_k_matrix(graded, ks),
        "coverage": np.stack([coverage_at_k_per_prompt(success, k) for k in ks], axis=1).astype(float),
    }


def chain_order(chains) -> list[str]:
    return sorted(set(chains), key=lambda c: (c != "base", c.count("-"), c))


def _seed_matrices(chain: str, eval_set: str, group: list[ScoreFile]) -> tuple[list[dict], dict[str, int]]:
    """([{benchmark: (ids, success, graded)} per seed], {benchmark: n}); every seed must hold the
    same benchmarks, each with the same n."""
    per_seed = [benchmark_matrices(f.path) for f in group]
    benchmarks = list(per_seed[0])
    for f, m in zip(group[1:], per_seed[1:]):
        if list(m) != benchmarks:
            raise ValueError(f"{f.path}: benchmarks {list(m)} differ from {benchmarks} of {group[0].path}")
    ns = {}
    for b in benchmarks:
        n_b = {m[b][1].shape[1] for m in per_seed}
        if len(n_b) != 1:
            raise ValueError(f"{chain}/{eval_set} [{b}]: seeds were sampled with different n {sorted(n_b)}")
        ns[b] = n_b.pop()
    return per_seed, ns


def _prompts_of(mats: dict, benchmarks: list[str], ks: list[int]) -> dict[str, np.ndarray]:
    """{metric: (P, K)} of the prompts of `benchmarks` in one seed's file, each from its own n."""
    per_b = [per_prompt_metrics(mats[b][1], mats[b][2], ks) for b in benchmarks]
    return {metric: np.concatenate([v[metric] for v in per_b]) for metric in METRICS}


def passk_table(files: list[ScoreFile], *, n_boot: int, ci: float, seed: int) -> pd.DataFrame:
    """One row per chain, eval set, benchmark (pooled `all` included), metric and k."""
    groups: dict[tuple[str, str], list[ScoreFile]] = defaultdict(list)
    for f in files:
        groups[(f.chain, f.eval_set)].append(f)
    rows, bench_rank = [], {}
    for (chain, eval_set), group in sorted(groups.items()):
        group = sorted(group, key=lambda f: (f.seed is not None, f.seed))
        per_seed, ns = _seed_matrices(chain, eval_set, group)
        # (ks, benchmarks whose prompts the row averages over)
        parts = {b: (power_of_two_ks(n), [b]) for b, n in ns.items()}
        if len(ns) > 1:
            parts[POOLED] = (power_of_two_ks(min(ns.values())), list(ns))
        for bench, (ks, members) in parts.items():
            bench_rank.setdefault(bench, len(bench_rank))
            values = [_prompts_of(m, members, ks) for m in per_seed]
            for metric in METRICS:
                for j, k in enumerate(ks):
                    point, low, high, spread = bootstrap_ci_grouped(
                        [v[metric][:, j] for v in values], n_boot=n_boot, ci=ci, seed=seed)
                    rows.append({
                        "chain": chain, "eval_set": eval_set, "benchmark": bench, "metric": metric, "k": k,
                        "mean": float(point), "ci_low": float(low), "ci_high": float(high),
                        "seed_std": float(spread), "n_seeds": len(group),
                        "n_prompts": sum(len(per_seed[0][b][0]) for b in members),
                        "n_samples": min(ns[b] for b in members),  # pooled: the smallest n, which bounds k
                    })
    df = pd.DataFrame(rows)
    order = {c: i for i, c in enumerate(chain_order(df["chain"]))}
    bench_rank[POOLED] = len(bench_rank)  # benchmarks in the prompts' order, the pooled rows last
    keys = {"chain": order, "benchmark": bench_rank}
    df = df.sort_values(["eval_set", "benchmark", "chain", "metric", "k"],
                        key=lambda s: s.map(keys[s.name]) if s.name in keys else s)
    return df.reset_index(drop=True)


def headline_table(passk: pd.DataFrame) -> pd.DataFrame:
    """chain x eval set x benchmark: pass@1, best@k and coverage at the benchmark's largest k, each with its CI."""
    if "benchmark" not in passk:  # a table written before benchmarks: one per eval set
        passk = passk.assign(benchmark=passk["eval_set"])
    out = []
    for (chain, eval_set, bench), g in passk.groupby(["chain", "eval_set", "benchmark"], sort=False):
        kmax = int(g["k"].max())
        row = {"chain": chain, "eval_set": eval_set, "benchmark": bench, "n_seeds": int(g["n_seeds"].iloc[0]),
               "n_prompts": int(g["n_prompts"].iloc[0]), "k_max": kmax}
        for metric, k, name in (("pass@k", 1, "pass@1"), ("best@k", kmax, "best@kmax"), ("coverage", kmax, "coverage@kmax")):
            r = g[(g["metric"] == metric) & (g["k"] == k)].iloc[0]
            row[name], row[f"{name}_lo"], row[f"{name}_hi"] = r["mean"], r["ci_low"], r["ci_high"]
        out.append(row)
    return pd.DataFrame(out)
