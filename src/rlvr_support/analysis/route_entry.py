"""Route-entry localisation: the JS divergence at the first response position against the mean
interior JS (metrics.divergence.route_entry_ratio), per pair of models (checkpoint vs base),
eval set, benchmark and prefix source, beside the position curves of probes.positional_js.

Source: the support-reshaping paper finds the base-RLVR divergence concentrated where the route is entered, the
first response token carrying 9.8x to 106.7x the interior JS on AIME.  Read from the positional-JS
runs (per sequence and position, for prefixes of the base and of the checkpoint): the curve
J_t = sum JS / tokens at t pools the sequences of every prompt, so the ratio is a function of
per-prompt sums and its CI resamples prompts and RL seeds before forming it
(analysis.resample.grouped_sum_bootstrap, the bootstrap of the JS curves).  Interior = every
measured position after the first (1 <= t < analysis.divergence.max_positions).
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd

from rlvr_support.metrics.divergence import route_entry_ratio
from rlvr_support.analysis.js_sums import per_seed_sums
from rlvr_support.analysis.resample import grouped_sum_bootstrap
from rlvr_support.analysis.runs import relation
from rlvr_support.analysis.scores import ScoreFile


def _stats(T: int):
    """(sum JS by position, tokens by position) -> (J_0, interior mean, ratio)."""
    def fn(sums: np.ndarray) -> np.ndarray:
        js, cnt = sums[..., :T], sums[..., T:]
        with np.errstate(invalid="ignore", divide="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)  # an all-NaN interior gives NaN, as intended
            curve = np.where(cnt > 0, js / cnt, np.nan)
            interior = np.nanmean(curve[..., 1:], axis=-1)
        return np.stack([curve[..., 0], interior, route_entry_ratio(curve)], axis=-1)
    return fn


def route_entry_from_sums(per_seed: list[np.ndarray], T: int, *, n_boot: int, ci: float, seed: int) -> dict:
    """{js_first, js_interior, ratio (each with _lo, _hi), ratio_seed_std} from per-seed (P, 2T) per-prompt
    sums (analysis.js_sums._per_prompt_sums layout)."""
    point, low, high, spread = grouped_sum_bootstrap(per_seed, _stats(T), n_boot=n_boot, ci=ci, seed=seed)
    out = {}
    for j, name in enumerate(("js_first", "js_interior", "ratio")):
        out[name], out[f"{name}_lo"], out[f"{name}_hi"] = float(point[j]), float(low[j]), float(high[j])
    out["ratio_seed_std"] = float(spread[2])
    return out


def route_entry_table(files: list[ScoreFile], *, n_boot: int, ci: float, seed: int) -> pd.DataFrame:
    """One row per checkpoint (vs the base), eval set, benchmark and prefix source (base, ckpt)."""
    rows = []
    for chain, eval_set, bench, T, source, per_seed in per_seed_sums(files):
        rows.append({"chain": chain, "reference": "base", "eval_set": eval_set, "benchmark": bench,
                     "relation": relation(chain, eval_set), "source": source, "n_positions": T,
                     "n_seeds": len(per_seed), "n_prompts": int(per_seed[0].shape[0]),
                     **route_entry_from_sums(per_seed, T, n_boot=n_boot, ci=ci, seed=seed)})
    return pd.DataFrame(rows)
