"""The JS claim (Support reshaping): the checkpoint's divergence from the base concentrates in the first m
tokens, read from the JS share table's early - late difference on base prefixes."""

from __future__ import annotations

from rlvr_support.analysis.claims.claim import Claim, Effect, by_benchmark
from rlvr_support.analysis.papers import SUPPORT_RESHAPING


def _early_minus_late(table, at, study):
    for bench, j in by_benchmark(table, at.eval_set, {"chain": at.chain, "eval_set": at.eval_set,
                                                      "source": "base"}).items():
        r = j.iloc[0]
        yield Effect(bench, r["early_minus_late"], r["early_minus_late_lo"], r["early_minus_late_hi"], r["n_seeds"])


CLAIMS = [
    Claim("{task}-RLVR: divergence concentrates in the first m={m} tokens", (SUPPORT_RESHAPING,), +1, "js_share",
          _early_minus_late, "mean JS in positions < m - mean JS after (base prefixes)"),
]
