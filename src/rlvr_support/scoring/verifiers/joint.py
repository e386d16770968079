"""Joint math + instruction-following score, as in MathIF (Fu et al. 2025,
"Scaling Reasoning, Losing Control: Evaluating Instruction Following in Large
Reasoning Models"): hard accuracy (HAcc) is 1 only when the answer is correct and
*every* constraint is satisfied; soft accuracy (SAcc) is the fraction of
constraints satisfied. Both use strict IFEval checks. MathIF reports answer
correctness separately, so soft accuracy here does not include it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:  # types only: a joint job's code covers the verifier families it names, no others
    from rlvr_support.scoring.verifiers.instructions import IFResult
    from rlvr_support.scoring.verifiers.math import MathResult


def score_joint(math_result: MathResult, if_result: IFResult) -> tuple[float, float]:
    """Return (hard, soft) for one response; soft is 1.0 with no constraints."""
    hard = 1.0 if (math_result.correct and if_result.prompt_strict) else 0.0
    return hard, float(if_result.frac_strict)
