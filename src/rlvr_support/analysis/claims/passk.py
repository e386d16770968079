"""The pass@k claims: pass@1 and best@kmax of a checkpoint against its base, paired per prompt, from
the score files as the pass@k table measures them (which the `source` cell names)."""

from __future__ import annotations

from rlvr_support.analysis.claims.claim import EXTERNAL, SCORES, TRAINED_TASK, Claim, Effect
from rlvr_support.analysis.claims.study import Where
from rlvr_support.analysis.papers import INVISIBLE_LEASH, SHARPENING_COLLAPSE, SUPPORT_RESHAPING


def _passk(metric: str):
    def rows(scores, at, study):
        for bench, eff in study.passk.get((at.chain, at.eval_set), {}).items():
            yield Effect(bench, *eff[metric])

    return rows


def _claim(claim, papers, metric, sign, at=TRAINED_TASK) -> Claim:
    return Claim(claim, papers, sign, SCORES, _passk(metric), f"{metric} checkpoint - base (paired)", at=at,
                 cites="passk")


RESHAPING_LEASH, LEASH_COLLAPSE = (SUPPORT_RESHAPING, INVISIBLE_LEASH), (INVISIBLE_LEASH, SHARPENING_COLLAPSE)
CLAIMS = [
    _claim("{task}-RLVR raises pass@1 on the trained task", RESHAPING_LEASH, "pass@1", +1),
    _claim("{task}-RLVR lowers best@kmax on the trained task (sharpening)", LEASH_COLLAPSE, "best@kmax", -1),
    # checkpoints trained elsewhere, each against its base, on every eval set (Invisible Leash)
    _claim("RLVR raises pass@1", (INVISIBLE_LEASH,), "pass@1", +1, EXTERNAL),
    _claim("RLVR lowers best@kmax (sharpening)", LEASH_COLLAPSE, "best@kmax", -1, EXTERNAL),
    # cross task (Support reshaping)
    _claim("Math-RLVR raises IF pass@1", (SUPPORT_RESHAPING,), "pass@1", +1, Where("math", "if")),
    _claim("Math-RLVR lowers IF best@kmax", (SUPPORT_RESHAPING,), "best@kmax", -1, Where("math", "if")),
    _claim("IF-RLVR lowers math best@kmax (searchability)", (SUPPORT_RESHAPING,), "best@kmax", -1,
           Where("if", "math")),
]
