"""The support claim (Invisible Leash): RLVR shrinks the empirical support (k = n) of more prompts than
it expands, from the support categories per prompt (cited: the support table)."""

from __future__ import annotations

import pandas as pd

from rlvr_support.analysis.claims.claim import EXTERNAL, Claim, Effect, by_benchmark
from rlvr_support.analysis.runs import is_trained
from rlvr_support.analysis.papers import INVISIBLE_LEASH
from rlvr_support.metrics.bootstrap import bootstrap_ci_grouped


def _shrinkage(table, at, study):
    for bench, sp in by_benchmark(table, at.eval_set, {"chain": at.chain, "eval_set": at.eval_set}).items():
        # a checkpoint trained elsewhere has no RL seed: its prompts are one group
        groups = [g for _, g in sp.groupby("seed", sort=True)] if is_trained(at.chain) else [sp]
        per_seed = [(g["category"] == "shrinkage").to_numpy(float) - (g["category"] == "expansion").to_numpy(float)
                    for g in groups]
        p, lo, hi, _ = bootstrap_ci_grouped(per_seed, **study.boot)
        yield Effect(bench, p, lo, hi, len(per_seed))


def one_seed(table: pd.DataFrame, seed: int) -> pd.DataFrame:
    """The rows of one RL seed, and those of the checkpoints trained elsewhere (no RL seed)."""
    return table[table["seed"].isin([seed]) | table["seed"].isna()]


MEASURE = "share of prompts shrunk - share expanded (k = n)"
CLAIMS = [
    Claim("{task}-RLVR: empirical support shrinkage exceeds expansion", (INVISIBLE_LEASH,), +1, "support_categories",
          _shrinkage, MEASURE, cites="support"),
    Claim("RLVR: empirical support shrinkage exceeds expansion", (INVISIBLE_LEASH,), +1, "support_categories",
          _shrinkage, MEASURE, at=EXTERNAL, cites="support"),
]
ONE_SEED = {"support_categories": one_seed}
