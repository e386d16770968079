"""The single-token claims (Support reshaping's single-token table): IF-RLVR's math responses with one
token of the base, the base's with one of IF-RLVR's; the first position against the deepest swept."""

from __future__ import annotations

from rlvr_support.analysis.claims.claim import Claim, Effect, by_benchmark
from rlvr_support.analysis.claims.study import Where
from rlvr_support.analysis.papers import SUPPORT_RESHAPING


def _swap(recipient: str, column: str, deepest: bool = False):
    """The rows of a swap into `recipient` at position 1, or (deepest) at the deepest position swept."""

    def rows(table, at, study):
        if not len(table):
            return
        last = int(table.loc[table["condition"] == "swap", "position"].max())
        if deepest and last == 1:  # 1 alone: no fade to measure
            return
        match = {"chain": at.chain, "eval_set": at.eval_set, "recipient": recipient, "condition": "swap",
                 "position": last if deepest else 1}
        for bench, r in by_benchmark(table, at.eval_set, match).items():
            r = r.iloc[0]
            yield Effect(bench, r[column], r[f"{column}_lo"], r[f"{column}_hi"], int(r["n_seeds"]), {"last": last})

    return rows


SWAP = "best@k after the swap - own samples (paired)"
CLAIMS = [
    Claim("A base first token raises IF-RLVR's math best@k (single-token swap)", (SUPPORT_RESHAPING,), +1,
          "single_token", _swap("if", "best@k_diff"), SWAP, at=Where("if", "math")),
    Claim("An IF-RLVR first token lowers the base's math best@k (single-token swap)", (SUPPORT_RESHAPING,), -1,
          "single_token", _swap("base", "best@k_diff"), SWAP, at=Where("if", "math")),
    Claim("A base token moves IF-RLVR's math best@k more at position 1 than at {last}", (SUPPORT_RESHAPING,), +1,
          "single_token", _swap("if", "best@k_fade", deepest=True),
          "best@k after a swap at 1 - after a swap at {last} (paired)", at=Where("if", "math")),
]
