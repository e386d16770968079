"""The bypass claim (Support reshaping's mechanism, ReasonIF-style segments): IF-RLVR follows
instructions by skipping the reasoning, read from the reasoning-IF table's paired bypass difference."""

from __future__ import annotations

from rlvr_support.analysis.claims.claim import Claim, Effect, by_benchmark
from rlvr_support.analysis.claims.study import Where
from rlvr_support.analysis.papers import SUPPORT_RESHAPING


def _bypass_diff(table, at, study):
    for bench, r in by_benchmark(table, at.eval_set, {"chain": at.chain, "eval_set": at.eval_set}).items():
        r = r.iloc[0]
        yield Effect(bench, r["bypass_diff"], r["bypass_diff_lo"], r["bypass_diff_hi"], int(r["n_seeds"]))


CLAIMS = [
    Claim("IF-RLVR: more of the constraint-following responses skip the reasoning (bypass)", (SUPPORT_RESHAPING,),
          +1, "reasoning_if", _bypass_diff,
          "share of all-constraints-met responses with no reasoning segment, checkpoint - base (paired)",
          at=Where("if", "if")),
]
