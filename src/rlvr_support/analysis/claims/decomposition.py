"""The re-ranking claim (Support reshaping): RLVR moves the openings' frequencies toward the more
successful ones, read from the opening intervention's decomposition table of the eval set."""

from __future__ import annotations

from rlvr_support.analysis.claims.claim import Claim, Effect, by_benchmark
from rlvr_support.analysis.papers import SUPPORT_RESHAPING


def _rerank_gain(table, at, study):
    for bench, d in by_benchmark(table, at.eval_set, {"chain": at.chain}).items():
        pooled = d[d["model"] == f"{at.chain}/pooled"]  # pooled over RL seeds, not over benchmarks
        r = (pooled if len(pooled) else d).iloc[0]
        # NaN (no forced opening ever sampled by the checkpoint) -> inconclusive
        r = r.reindex(["rerank_gain", "rerank_gain_lo", "rerank_gain_hi"]).astype(float)
        yield Effect(bench, r["rerank_gain"], r["rerank_gain_lo"], r["rerank_gain_hi"], max(1, len(d) - len(pooled)))


CLAIMS = [
    Claim("{task}-RLVR re-ranks openings toward more successful ones", (SUPPORT_RESHAPING,), +1,
          "intervention_decomposition_{eval_set}", _rerank_gain,
          "base continuations' success under checkpoint - base opening frequencies (forced set)"),
]
