"""A claim of the papers, declared once: its words, the papers that make it, the expected sign of the
effect, the input table it reads, where it is measured and how its rows are computed from that table.

A claim is measured at places (study.Where): TRAINED_TASK claims at every single-task RLVR chain of
the study on its own task, EXTERNAL claims at every checkpoint trained elsewhere on each eval set, the
others at the one place they name. Its `rows` function gets the input table (the score files for
SCORES), the place and the Study, and yields one Effect per benchmark of the place's eval set: the
measured effect with its bootstrap CI and the RL seeds behind it. An input table that the claims job
was not given leaves its claims out, never filled in. Nothing here is tuned: the effect definitions
are fixed before any data are seen.

The claim's and measure's words may name the trained task (`{task}`: Math, IF, Joint), the settings
(`{m}`, `{group_size}`) and what an Effect takes from its table (`words`); a table name may name the
place's eval set (`intervention_decomposition_{eval_set}`, the file stem of the table it names).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from rlvr_support.analysis.benchmarks import POOLED, split_benchmarks
from rlvr_support.analysis.papers import cite
from rlvr_support.analysis.resample import claim_verdict
from rlvr_support.analysis.claims.study import Study, Where

TRAINED_TASK = "trained task"
EXTERNAL = "external"
SCORES = "scores"  # the score files the job is given (`--scores`), read by the claims computed from samples

TASK_NAME = {"math": "Math", "if": "IF", "joint": "Joint"}


@dataclass(frozen=True)
class Effect:
    benchmark: str
    effect: float
    lo: float
    hi: float
    n_seeds: int
    words: dict = field(default_factory=dict)  # what the claim's words take from the table (`{last}`)


@dataclass(frozen=True)
class Claim:
    claim: str
    papers: tuple[str, ...]  # ids of analysis/papers.py
    sign: int  # the sign of the effect the papers expect
    reads: str  # the input table (registry.table_names) or SCORES
    rows: Callable[[Any, Where, Study], Iterable[Effect]]
    measure: str
    at: str | Where = TRAINED_TASK
    cites: str | None = None  # the table the `source` cell names, when it is not the one read
    chains: tuple[str, ...] = ()  # a TRAINED_TASK claim about these chains only

    def __post_init__(self):
        cite(*self.papers)  # an unknown paper fails here, at the declaration
        if self.sign not in (1, -1):
            raise ValueError(f"claim {self.claim!r}: expected sign {self.sign}, not +1 or -1")
        if self.at not in (TRAINED_TASK, EXTERNAL) and not isinstance(self.at, Where):
            raise ValueError(f"claim {self.claim!r}: at {self.at!r}, not TRAINED_TASK, EXTERNAL or a Where")

    def reads_at(self, at: Where) -> str:
        return self.reads.format(chain=at.chain, eval_set=at.eval_set)

    def cites_at(self, at: Where) -> str:
        return (self.cites or self.reads).format(chain=at.chain, eval_set=at.eval_set)

    def row(self, at: Where, e: Effect, source: str, study: Study) -> dict:
        words = {"task": TASK_NAME.get(at.chain, at.chain), "m": study.m, "group_size": study.group_size, **e.words}
        n_seeds = int(e.n_seeds)
        return {"claim": self.claim.format(**words), "paper": cite(*self.papers), "chain": at.chain,
                "eval_set": at.eval_set, "benchmark": e.benchmark, "measure": self.measure.format(**words),
                "expected_sign": "+" if self.sign > 0 else "-", "effect": float(e.effect), "ci_low": float(e.lo),
                "ci_high": float(e.hi), "n_seeds": n_seeds, "verdict": claim_verdict(e.lo, e.hi, self.sign, n_seeds),
                "source": source}


def by_benchmark(table: pd.DataFrame, eval_set: str, match: dict) -> dict[str, pd.DataFrame]:
    """{benchmark: the rows of `table` whose columns equal `match`}, benchmarks of eval set `eval_set`
    in the table's order (a table without the column: one, named like the eval set); no pooled rows
    (`all`), which are not claims."""
    mask = pd.Series(True, index=table.index)
    for col, value in match.items():
        mask &= table[col] == value
    return {b: g for b, g in split_benchmarks(table[mask], eval_set).items() if b != POOLED and len(g)}
