"""The entropy claims (Invisible Leash): answer-level entropy falls, token-level entropy rises, read
from the entropy table's paired checkpoint - base difference."""

from __future__ import annotations

from rlvr_support.analysis.claims.claim import EXTERNAL, TRAINED_TASK, Claim, Effect, by_benchmark
from rlvr_support.analysis.papers import INVISIBLE_LEASH


def _diff(metric: str):
    def rows(table, at, study):
        match = {"chain": at.chain, "eval_set": at.eval_set, "metric": metric}
        for bench, e in by_benchmark(table, at.eval_set, match).items():
            r = e.iloc[0]
            yield Effect(bench, r["diff"], r["diff_lo"], r["diff_hi"], r["n_seeds"])

    return rows


def _claim(claim, metric, sign, at) -> Claim:
    return Claim(claim, (INVISIBLE_LEASH,), sign, "entropy", _diff(metric), f"{metric} checkpoint - base (paired)",
                 at=at)


CLAIMS = [
    _claim("{task}-RLVR: answer-level entropy falls", "answer_entropy", -1, TRAINED_TASK),
    _claim("{task}-RLVR: token-level entropy rises", "token_entropy", +1, TRAINED_TASK),
    _claim("RLVR: answer-level entropy falls", "answer_entropy", -1, EXTERNAL),
    _claim("RLVR: token-level entropy rises", "token_entropy", +1, EXTERNAL),
]
