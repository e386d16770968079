"""pass@k, best@k and coverage at every power-of-two k, per chain and eval set, with CIs.

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
from rlvr_support.analysis.scores import ScoreFile, reward_matrices

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


def passk_table(files: list[ScoreFile], *, n_boot: int, ci: float, seed: int) -> pd.DataFrame:
    groups: dict[tuple[str, str], list[ScoreFile]] = defaultdict(list)
    for f in files:
        groups[(f.chain, f.eval_set)].append(f)
    rows = []
    for (chain, eval_set), group in sorted(groups.items()):
        group = sorted(group, key=lambda f: (f.seed is not None, f.seed))
        mats = [reward_matrices(f.path) for f in group]
        n = mats[0][1].shape[1]
        if any(m[1].shape[1] != n for m in mats):
            raise ValueError(f"{chain}/{eval_set}: seeds were sampled with different n")
        ks = power_of_two_ks(n)
        per_seed = [per_prompt_metrics(s, g, ks) for _, s, g in mats]
        for metric in METRICS:
            for j, k in enumerate(ks):
                point, low, high, spread = bootstrap_ci_grouped(
                    [m[metric][:, j] for m in per_seed], n_boot=n_boot, ci=ci, seed=seed)
                rows.append({
                    "chain": chain, "eval_set": eval_set, "metric": metric, "k": k,
                    "mean": float(point), "ci_low": float(low), "ci_high": float(high),
                    "seed_std": float(spread), "n_seeds": len(group),
                    "n_prompts": len(mats[0][0]), "n_samples": n,
                })
    df = pd.DataFrame(rows)
    order = {c: i for i, c in enumerate(chain_order(df["chain"]))}
    df = df.sort_values(["eval_set", "chain", "metric", "k"], key=lambda s: s.map(order) if s.name == "chain" else s)
    return df.reset_index(drop=True)


def headline_table(passk: pd.DataFrame) -> pd.DataFrame:
    """chain x eval set: pass@1, best@k and coverage at the largest k, each with its CI."""
    out = []
    for (chain, eval_set), g in passk.groupby(["chain", "eval_set"], sort=False):
        kmax = int(g["k"].max())
        row = {"chain": chain, "eval_set": eval_set, "n_seeds": int(g["n_seeds"].iloc[0]),
               "n_prompts": int(g["n_prompts"].iloc[0]), "k_max": kmax}
        for metric, k, name in (("pass@k", 1, "pass@1"), ("best@k", kmax, "best@kmax"), ("coverage", kmax, "coverage@kmax")):
            r = g[(g["metric"] == metric) & (g["k"] == k)].iloc[0]
            row[name], row[f"{name}_lo"], row[f"{name}_hi"] = r["mean"], r["ci_low"], r["ci_high"]
        out.append(row)
    return pd.DataFrame(out)
