"""Opening modes (DRI / DAI / other, metrics.opening_modes) per checkpoint, eval set and benchmark.

Source: the support-reshaping paper: RLVR on one task moves the other task's responses from deliberative-reasoning
openings (DRI) to direct-answer openings (DAI).  Every sample's text is classified by the
configured rules (`analysis.opening_modes`); a row gives the mean over prompts of the per-prompt
share of samples in the mode, with a CI over prompts and RL seeds, and the paired difference to
the base on the same prompts.  Rows are pooled over RL seeds (``seed`` = ``all``) and given for each
seed alone, the shape of the openings' style table (analysis.openings_table), so a claim can read
either.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from rlvr_support.storage.atomic import read_samples
from rlvr_support.metrics.bootstrap import bootstrap_ci_grouped
from rlvr_support.metrics.entropy import mean_per_prompt
from rlvr_support.metrics.opening_modes import MODES, opening_modes
from rlvr_support.analysis.benchmarks import split_benchmarks
from rlvr_support.analysis.resample import paired_grouped_diff
from rlvr_support.analysis.runs import by_chain, relation
from rlvr_support.analysis.scores import ScoreFile


def mode_shares(samples: pd.DataFrame, patterns: dict) -> tuple[np.ndarray, dict[str, np.ndarray]]:
    """(prompt ids sorted, {mode: per-prompt share of samples in that mode})."""
    modes = opening_modes(list(samples["text"]), patterns)
    ids = samples["prompt_id"].to_numpy(str)
    shares = {m: mean_per_prompt(ids, (modes == m).astype(float)) for m in MODES}
    return shares[MODES[0]][0], {m: s for m, (_, s) in shares.items()}


def opening_modes_table(files: list[ScoreFile], *, patterns: dict, n_boot: int, ci: float, seed: int) -> pd.DataFrame:
    """One row per chain, eval set, benchmark, seed (`all` and each RL seed) and mode; see the module docstring."""
    runs: dict[tuple[str, str, str], list[tuple[int | None, np.ndarray, dict]]] = {}
    for (chain, eval_set), group in by_chain(files).items():
        for f in group:
            for bench, part in split_benchmarks(read_samples(f.path), eval_set).items():
                runs.setdefault((chain, eval_set, bench), []).append((f.seed, *mode_shares(part, patterns)))
    rows = []
    for (chain, eval_set, bench), by_seed in runs.items():
        if ("base", eval_set, bench) not in runs:
            raise ValueError(f"no base samples for eval set {eval_set!r}, benchmark {bench!r}")
        _, base_ids, base = runs[("base", eval_set, bench)][0]
        if any(list(ids) != list(base_ids) for _, ids, _ in by_seed):
            raise ValueError(f"{chain}/{eval_set} [{bench}]: prompts differ from the base's")
        key = {"chain": chain, "eval_set": eval_set, "benchmark": bench,
               "relation": relation(chain, eval_set) if chain != "base" else ""}
        subsets = [("all", by_seed)] + ([(str(s), [r]) for r in by_seed for s in [r[0]]] if chain != "base" else [])
        for label, subset in subsets:
            for mode in MODES:
                vals = [shares[mode] for _, _, shares in subset]
                point, low, high, _ = bootstrap_ci_grouped(vals, n_boot=n_boot, ci=ci, seed=seed)
                d = (0.0, 0.0, 0.0) if chain == "base" else paired_grouped_diff(
                    base[mode], vals, n_boot=n_boot, ci=ci, seed=seed)[:3]
                rows.append({**key, "seed": label, "mode": mode, "n_seeds": len(subset), "n_prompts": len(base_ids),
                             "share": point, "share_lo": low, "share_hi": high,
                             "diff": d[0], "diff_lo": d[1], "diff_hi": d[2]})
    return pd.DataFrame(rows)
