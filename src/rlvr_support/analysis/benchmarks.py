"""Benchmarks inside an eval set: the unit every table and figure reports.

An eval set (`math`, `if`, `joint`: the task the verifier checks) can hold several benchmarks
(GSM8K and MATH-500 in `math`; IFEval in `if`), and papers in this field report each one on
its own. A sample's benchmark is its prompt's `source` (data/sources/build.py: the source's
`name`), stored in the `benchmark` column of every samples and scores file; in the toy world
each eval set is one benchmark, named like the set. Files written before that column existed
read as one benchmark named after the eval set.

Pooled rows (benchmark `all`) are written only by the tables that say so, and only where the
benchmarks of an eval set share what pooling needs (e.g. the same n for pass@k).
"""

from __future__ import annotations

import pandas as pd

POOLED = "all"


def benchmark_column(df: pd.DataFrame, eval_set: str) -> pd.Series:
    """The `benchmark` of every row (the eval set's name where a file has no such column)."""
    if "benchmark" in df.columns:
        return df["benchmark"].astype(str)
    return pd.Series(eval_set, index=df.index, dtype=object)


def benchmarks_in(df: pd.DataFrame, eval_set: str) -> list[str]:
    """The benchmarks of a samples/scores frame, in order of first appearance (the prompts' order)."""
    return list(dict.fromkeys(benchmark_column(df, eval_set)))


def split_benchmarks(df: pd.DataFrame, eval_set: str, *, pooled: bool = False) -> dict[str, pd.DataFrame]:
    """{benchmark: its rows}, in order of first appearance; `pooled` adds `all` (every row) when the
    eval set holds more than one benchmark."""
    col = benchmark_column(df, eval_set)
    parts = {b: df[col == b] for b in dict.fromkeys(col)}
    if pooled and len(parts) > 1:
        parts[POOLED] = df
    return parts


def with_token_arrays(samples: pd.DataFrame) -> pd.DataFrame:
    """The samples that kept their per-token arrays (ids, log-probs, entropies).

    `sampling.token_arrays: K` keeps them for the first K samples of each prompt only (every
    sample keeps its text, answer and score); analyses of tokens read these rows.
    """
    if "has_token_arrays" not in samples.columns:
        return samples
    return samples[samples["has_token_arrays"].to_numpy(bool)]
