"""Reasoning Gym tasks scored by reasoning_gym's own `score_answer` (reasoning-gym==0.1.25).

The answer is the text inside the last `<answer>...</answer>` block (reasoning_gym's
`utils.extract_answer`, a non-greedy regex, linear in the text); `score_answer(answer, entry)`
gives a graded score in [0, 1] and the reward is that score binarised at 1.0, so partial
credit (e.g. graph_color's 0.01 for parseable JSON) is no success.

Only tasks whose `score_answer` was read and found not to execute model text are allowed:
several others `eval()` the answer or pass it to `sympy.parse_expr` (string_insertion,
spiral_matrix, binary_matrix, n_queens, countdown, puzzle24, polynomial_multiplication, the
integration tasks), which a verifier must never do with model output.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

# Each entry: scoring path checked in reasoning_gym 0.1.25 (base class = exact / substring match).
SAFE_TASKS = {
    "arc_1d": "base class string comparison",
    "basic_arithmetic": "base class string comparison",
    "chain_sum": "utils.compute_decimal_reward (float parsing, no eval)",
    "graph_color": "json.loads + graph check",
    "leg_counting": "base class string comparison",
}


@dataclass(frozen=True)
class RGResult:
    score: float          # reasoning_gym's graded score
    correct: bool         # score >= 1.0
    extracted: str | None


def check_task(name: str) -> None:
    if name not in SAFE_TASKS:
        raise ValueError(f"reasoning_gym task {name!r} is not allowed: its scorer was not checked to be free of "
                         f"eval/parse_expr on model output (allowed: {sorted(SAFE_TASKS)})")


@functools.lru_cache(maxsize=None)
def _scorer(name: str):
    import reasoning_gym

    check_task(name)
    # score_answer reads only the entry passed to it; a size-1 instance provides the method.
    return reasoning_gym.create_dataset(name, size=1, seed=0)


def score_rg(text: str, task: str, entry: dict) -> RGResult:
    from reasoning_gym.utils import extract_answer

    answer = extract_answer(text)
    try:
        score = float(_scorer(task).score_answer(answer=answer, entry=entry))
    except Exception:  # a malformed answer is a wrong answer, never a crash of the scoring job
        score = 0.0
    return RGResult(score, score >= 1.0, answer)
