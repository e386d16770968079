"""Routing prior at sampling time against plain sampling: pass@1 and best@k of the same checkpoints.

Seed 000 proposes the routing prior as a mitigation that keeps base openings reachable; sampling
the trained checkpoint with routing and without shows its effect on best@k directly. Rows are
per benchmark as in analysis.passk_table (pooled `all` rows included where it writes them).
"""

from __future__ import annotations

import pandas as pd

from rlvr_support.analysis.passk_table import passk_table
from rlvr_support.analysis.scores import ScoreFile

KEEP = ["chain", "eval_set", "benchmark", "metric", "k", "mean", "ci_low", "ci_high", "n_seeds", "n_prompts",
        "n_samples"]


def routed_table(plain: pd.DataFrame, routed_files: list[ScoreFile], *, n_boot: int, ci: float, seed: int) -> pd.DataFrame:
    routed = passk_table(routed_files, n_boot=n_boot, ci=ci, seed=seed).assign(sampling="routed")
    chains = set(routed["chain"]) | {"base"}
    if "benchmark" not in plain:  # a table written before benchmarks: one per eval set
        plain = plain.assign(benchmark=plain["eval_set"])
    plain = plain[plain["chain"].isin(chains)].assign(sampling="plain")
    return pd.concat([plain[KEEP + ["sampling"]], routed[KEEP + ["sampling"]]], ignore_index=True)


def routed_summary(table: pd.DataFrame) -> pd.DataFrame:
    """One row per chain, eval set, benchmark and sampling: pass@1 and best@k at the benchmark's
    largest k with CIs."""
    rows = []
    for (chain, eval_set, bench, sampling), g in table.groupby(["chain", "eval_set", "benchmark", "sampling"],
                                                                sort=True):
        kmax = int(g["k"].max())
        row = {"chain": chain, "eval_set": eval_set, "benchmark": bench, "sampling": sampling, "k_max": kmax}
        for metric, k, name in (("pass@k", 1, "pass@1"), ("best@k", kmax, "best@kmax")):
            r = g[(g["metric"] == metric) & (g["k"] == k)].iloc[0]
            row[name], row[f"{name}_lo"], row[f"{name}_hi"] = r["mean"], r["ci_low"], r["ci_high"]
        rows.append(row)
    return pd.DataFrame(rows)
