"""The opening claims (Support reshaping): IF-RLVR moves math openings toward direct answers, read from
the DAI share of the opening-mode classifier (metrics/opening_modes.py; toy `answer :` is DAI), so the
claims read the same on real models' text."""

from __future__ import annotations

import pandas as pd

from rlvr_support.analysis.claims.claim import Claim, Effect, by_benchmark
from rlvr_support.analysis.claims.study import Where
from rlvr_support.analysis.papers import SUPPORT_RESHAPING
from rlvr_support.analysis.runs import is_trained


def seed_rows(table: pd.DataFrame, seed: str) -> pd.DataFrame:
    """The rows of a table with a `seed` column (`all` = pooled over RL seeds) for one seed; the base
    and external checkpoints (no RL seed) keep their pooled rows. A table without the column is pooled."""
    if "seed" not in table.columns:
        return table
    s = table["seed"].astype(str)
    keep = (s == seed) | ((s == "all") & ~table["chain"].map(is_trained)) if seed != "all" else s == "all"
    return table[keep].drop(columns="seed").reset_index(drop=True)


def _dai_share(table, at, study):
    match = {"chain": at.chain, "eval_set": at.eval_set, "mode": "DAI"}
    for bench, st in by_benchmark(seed_rows(table, "all"), at.eval_set, match).items():
        r = st.iloc[0]
        yield Effect(bench, r["diff"], r["diff_lo"], r["diff_hi"], r["n_seeds"])


MEASURE = "share of direct-answer (DAI) openings, checkpoint - base (paired)"
CLAIMS = [
    Claim("IF-RLVR moves math openings toward direct answers", (SUPPORT_RESHAPING,), +1, "opening_modes", _dai_share,
          MEASURE, at=Where("if", "math")),
    Claim("Math-then-IF RLVR moves math openings toward direct answers", (SUPPORT_RESHAPING,), +1, "opening_modes",
          _dai_share, MEASURE, at=Where("math-if", "math")),
]
ONE_SEED = {"opening_modes": lambda table, seed: seed_rows(table, str(seed))}
