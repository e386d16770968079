"""Toy arithmetic problems and their solutions in three styles that open differently.

Levels: 1 `a + b` (two-digit a, b), 2 `a + b * c` (two-digit a, one-digit b, c),
3 `a * b + c * d` (one-digit factors). Results stay below 200, so a model of a million
parameters learns the arithmetic in minutes on a CPU. Solutions:
- step:   `step : 48 * 2 = 96 ; 37 + 96 = 133 . answer : 133` (one line per operation)
- so:     `so : 37 + 96 = 133 . answer : 133` (products done silently, the last sum shown)
- answer: `answer : 133` (everything done silently)
The step style is the easiest for a small model (each line is one operation), the direct one
the hardest: the styles differ in success, which is what lets RL re-rank openings.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass

# Each level's operands, as inclusive (low, high) ranges in order: the problems drawn and the
# size of the problem space both come from here.
OPERAND_RANGES = {
    1: ((10, 99), (10, 99)),
    2: ((10, 99), (2, 9), (2, 9)),
    3: ((2, 9), (2, 9), (2, 9), (2, 9)),
}


@dataclass(frozen=True)
class MathProblem:
    level: int
    operands: tuple[int, ...]

    @property
    def question(self) -> str:
        o = self.operands
        if self.level == 1:
            return f"{o[0]} + {o[1]}"
        if self.level == 2:
            return f"{o[0]} + {o[1]} * {o[2]}"
        return f"{o[0]} * {o[1]} + {o[2]} * {o[3]}"

    @property
    def answer(self) -> int:
        o = self.operands
        if self.level == 1:
            return o[0] + o[1]
        if self.level == 2:
            return o[0] + o[1] * o[2]
        return o[0] * o[1] + o[2] * o[3]

    def steps(self) -> list[str]:
        """The operations of a step-by-step solution, in order."""
        o = self.operands
        if self.level == 1:
            return [f"{o[0]} + {o[1]} = {self.answer}"]
        if self.level == 2:
            p = o[1] * o[2]
            return [f"{o[1]} * {o[2]} = {p}", f"{o[0]} + {p} = {self.answer}"]
        p, q = o[0] * o[1], o[2] * o[3]
        return [f"{o[0]} * {o[1]} = {p}", f"{o[2]} * {o[3]} = {q}", f"{p} + {q} = {self.answer}"]

    def solution(self, style: str) -> str:
        if style == "step":
            return "step : " + " ; ".join(self.steps()) + f" . answer : {self.answer}"
        if style == "so":
            return f"so : {self.steps()[-1]} . answer : {self.answer}"
        if style == "answer":
            return f"answer : {self.answer}"
        raise ValueError(f"unknown math solution style {style!r}")


def _ranges(level: int) -> tuple[tuple[int, int], ...]:
    if level not in OPERAND_RANGES:
        raise ValueError(f"math level must be one of {sorted(OPERAND_RANGES)}, got {level}")
    return OPERAND_RANGES[level]


def sample_problem(rng: random.Random, level: int) -> MathProblem:
    return MathProblem(level, tuple(rng.randint(lo, hi) for lo, hi in _ranges(level)))


def problem_space_size(level: int) -> int:
    """How many distinct problems `level` has: the product of its operand ranges' sizes."""
    return math.prod(hi - lo + 1 for lo, hi in _ranges(level))


def sample_problems(rng: random.Random, count: int, level_weights: dict[int, float],
                    exclude: set[MathProblem] = frozenset(), distinct: bool = True) -> list[MathProblem]:
    """`count` problems (distinct unless told otherwise), none in `exclude`, so held-out sets
    never leak into training."""
    levels, weights = zip(*sorted(level_weights.items()))
    seen: set[MathProblem] = set()
    out: list[MathProblem] = []
    attempts = 0
    while len(out) < count:
        attempts += 1
        if attempts > 100 * count + 1000:
            raise ValueError(f"cannot draw {count} distinct math problems at levels {list(levels)}: "
                             "the problem space is too small, lower the count")
        p = sample_problem(rng, rng.choices(levels, weights)[0])
        if p in exclude or (distinct and p in seen):
            continue
        seen.add(p)
        out.append(p)
    return out
