"""Toy arithmetic problems and their solutions in three styles that open differently.

Levels: 1 `a + b` (two-digit a, b), 2 `a + b * c` (two-digit a, one-digit b, c),
3 `a * b + c * d` (one-digit factors), 4 `a * b + c * d` with a two-digit first factor
(11..29). Results stay below 300, so a model of a million parameters learns the arithmetic
in minutes on a CPU. Solutions:
- step:   `step : 48 * 2 = 96 ; 37 + 96 = 133 . answer : 133` (one line per operation)
- so:     `so : 37 + 96 = 133 . answer : 133` (products done silently, the last sum shown)
- answer: `answer : 133` (everything done silently)
An operation done silently (not written down) is where a writer slips: `attempt` draws a
solution in which each silent operation is off by a small amount with probability `slip`,
so in the corpus a direct answer to a three-operation problem is wrong far more often than
a step solution, which writes every operation and never slips. That is the premise that
deliberation buys math accuracy (PREMISES.md); `solution` is the canonical, correct text.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

LEVELS = (1, 2, 3, 4)
# the ranges of each level's operands: the problem space (and its size) is defined once, here
OPERAND_RANGES = {
    1: ((10, 99), (10, 99)),
    2: ((10, 99), (2, 9), (2, 9)),
    3: ((2, 9), (2, 9), (2, 9), (2, 9)),
    4: ((11, 29), (2, 9), (2, 9), (2, 9)),
}
# a slip moves a result by one of these amounts (a wrong digit or a lost carry)
SLIPS = (-10, -2, -1, 1, 2, 10)


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
        return self._results()[-1]

    def _results(self, slipped: tuple[int, ...] | None = None) -> list[int]:
        """The result of each operation in solution order; `slipped[i]` is added to operation i's
        result, and later operations use the slipped value, as a writer carrying an error does."""
        o = self.operands
        d = slipped or (0,) * 3
        if self.level == 1:
            return [o[0] + o[1] + d[0]]
        if self.level == 2:
            p = o[1] * o[2] + d[0]
            return [p, o[0] + p + d[1]]
        p, q = o[0] * o[1] + d[0], o[2] * o[3] + d[1]
        return [p, q, p + q + d[2]]

    def _lines(self, results: list[int]) -> list[str]:
        o = self.operands
        if self.level == 1:
            return [f"{o[0]} + {o[1]} = {results[0]}"]
        if self.level == 2:
            return [f"{o[1]} * {o[2]} = {results[0]}", f"{o[0]} + {results[0]} = {results[1]}"]
        p, q, s = results
        return [f"{o[0]} * {o[1]} = {p}", f"{o[2]} * {o[3]} = {q}", f"{p} + {q} = {s}"]

    def steps(self) -> list[str]:
        """The operations of a correct step-by-step solution, in order."""
        return self._lines(self._results())

    def solution(self, style: str) -> str:
        """The canonical (correct) solution in `style`."""
        return _text(style, self._lines(self._results()))

    def attempt(self, style: str, rng: random.Random, slip: float) -> str:
        """A solution as a writer in `style` produces it: every operation the style does not write
        down (all but the last for `so`, all for `answer`) slips with probability `slip`."""
        n_ops = len(self._results())
        written = {"step": n_ops, "so": 1, "answer": 0}[style]
        silent = n_ops - written
        deltas = tuple(rng.choice(SLIPS) if i < silent and rng.random() < slip else 0 for i in range(n_ops))
        results = self._results(deltas)
        if results[-1] < 0:  # a slip below zero is not a plausible answer to a sum of positives
            results = self._results()
        return _text(style, self._lines(results))


def _text(style: str, lines: list[str]) -> str:
    answer = lines[-1].rsplit(" = ", 1)[1]
    if style == "step":
        return "step : " + " ; ".join(lines) + f" . answer : {answer}"
    if style == "so":
        return f"so : {lines[-1]} . answer : {answer}"
    if style == "answer":
        return f"answer : {answer}"
    raise ValueError(f"unknown math solution style {style!r}")


def problem_space_size(level: int) -> int:
    """How many distinct problems `level` has (the product of its operand ranges)."""
    size = 1
    for lo, hi in OPERAND_RANGES[level]:
        size *= hi - lo + 1
    return size


def sample_problem(rng: random.Random, level: int) -> MathProblem:
    if level not in OPERAND_RANGES:
        raise ValueError(f"math level must be one of {list(LEVELS)}, got {level}")
    return MathProblem(level, tuple(rng.randint(lo, hi) for lo, hi in OPERAND_RANGES[level]))


def problem_from_question(q: str) -> MathProblem:
    """The problem a question text states (`37 + 4 * 8`); levels 3 and 4 differ in the first factor."""
    nums = tuple(int(t) for t in q.split() if t.isdigit())
    if len(nums) == 2:
        return MathProblem(1, nums)
    if len(nums) == 3:
        return MathProblem(2, nums)
    if len(nums) == 4:
        return MathProblem(4 if nums[0] >= 10 else 3, nums)
    raise ValueError(f"not a toy math question: {q!r}")


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
