"""The perplexity claim (Invisible Leash): Math-RLVR raises the NLL per token of reference solutions,
read from the perplexity table's paired difference over every style."""

from __future__ import annotations

from rlvr_support.analysis.claims.claim import Claim, Effect, by_benchmark
from rlvr_support.analysis.papers import INVISIBLE_LEASH


def _nll_diff(table, at, study):
    for bench, p in by_benchmark(table, at.eval_set, {"chain": at.chain, "style": "all"}).items():
        r = p.iloc[0]
        yield Effect(bench, r["nll_diff"], r["nll_diff_lo"], r["nll_diff_hi"], r["n_seeds"])


CLAIMS = [
    Claim("Math-RLVR raises the perplexity of reference solutions", (INVISIBLE_LEASH,), +1, "perplexity", _nll_diff,
          "NLL per token of reference solutions, checkpoint - base (paired)", chains=("math",)),
]
