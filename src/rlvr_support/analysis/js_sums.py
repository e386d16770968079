"""The positional-JS run files (probes/positional_js.py) as per-prompt sums by position: what the JS
position curves (probes/positional_js.py js_tables) and the route-entry ratio (analysis/route_entry.py)
both resample. Reads tables only, so the table builders of analysis/ use it without the model code."""

from __future__ import annotations

import numpy as np
import pandas as pd

from rlvr_support.storage.atomic import read_parquet
from rlvr_support.analysis.benchmarks import split_benchmarks
from rlvr_support.analysis.runs import by_chain
from rlvr_support.analysis.scores import ScoreFile


def _per_prompt_sums(df: pd.DataFrame, T: int) -> np.ndarray:
    """(P, 2T): per prompt, summed JS at each position, then the token count at each position."""
    ids = sorted(df["prompt_id"].unique())
    row = {p: i for i, p in enumerate(ids)}
    out = np.zeros((len(ids), 2 * T))
    r = df["prompt_id"].map(row).to_numpy()
    t = df["position"].to_numpy()
    np.add.at(out, (r, t), df["js"].to_numpy(float))
    np.add.at(out, (r, T + t), 1.0)
    return out


def per_seed_sums(files: list[ScoreFile]):
    """(chain, eval set, benchmark, T, prefix source, per-RL-seed per-prompt sums) of the JS run files,
    positions 0..T-1: what the position curves and the route-entry ratio both resample."""
    for (chain, eval_set), group in by_chain(files).items():
        by_bench: dict[str, list[pd.DataFrame]] = {}
        for f in group:
            for bench, part in split_benchmarks(read_parquet(f.path), eval_set).items():
                by_bench.setdefault(bench, []).append(part)
        for bench, runs in by_bench.items():
            T = int(max(r["position"].max() for r in runs)) + 1
            for source in ("base", "ckpt"):
                yield chain, eval_set, bench, T, source, [_per_prompt_sums(r[r["source"] == source], T) for r in runs]
