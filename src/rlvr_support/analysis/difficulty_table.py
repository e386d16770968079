"""pass@1 and pass@k of every checkpoint per difficulty bin, the bins set by the base's pass rate.

Where RLVR gains and loses: papers in this field split prompts by how often the base solves them
(unsolved, hard, ..., always solved) and show that RL gains on the middle bins while the base's
unsolved prompts stay unsolved and, at large k, some easy ones are lost. A prompt's bin is the share
of the base's n samples that succeed (`BINS`: 0 and 1 are bins of their own). Each checkpoint's
row averages its per-prompt pass@1 and pass@k over the prompts of the bin (each prompt's own n:
imported samples may differ), with a CI over prompts and RL seeds, and the paired difference to
the base on the same prompts.

k is one per benchmark, the same for every checkpoint: the largest power of two that every
checkpoint's every prompt reaches (`k`), so rows of a bin compare like with like.

Caveat (regression to the mean): the base's bins come from the same samples as its row, so the
base's pass@1 is 0 in bin `0` and 1 in bin `1` by construction; a checkpoint no better than the
base would still appear to gain on hard bins and lose on easy ones by the sampling noise of the
base's n samples alone. Compare checkpoints with each other within a bin, or use a large base n.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from rlvr_support.analysis.resample import paired_grouped_diff
from rlvr_support.analysis.runs import by_chain
from rlvr_support.analysis.scores import ScoreFile, benchmark_blocks
from rlvr_support.metrics.bootstrap import bootstrap_ci_grouped
from rlvr_support.metrics.passk import pass_at_k

# (label, lowest pass rate, highest pass rate, lowest included): the base's pass rate c/n
BINS = (("0", 0.0, 0.0, True), ("(0-0.25]", 0.0, 0.25, False), ("(0.25-0.5]", 0.25, 0.5, False),
        ("(0.5-0.75]", 0.5, 0.75, False), ("(0.75-1)", 0.75, 1.0, False), ("1", 1.0, 1.0, True))


def bin_of(rate: np.ndarray) -> np.ndarray:
    """The index in BINS of each pass rate."""
    out = np.full(rate.shape, -1)
    for i, (_, lo, hi, closed) in enumerate(BINS):
        inside = (rate >= lo if closed else rate > lo) & (rate <= hi if hi < 1.0 or closed else rate < hi)
        out[(out < 0) & inside] = i
    return out


def _per_prompt(path) -> dict[str, pd.DataFrame]:
    """{benchmark: per prompt (index prompt id): n, successes c}."""
    return {b: pd.DataFrame({"n": np.concatenate([[blk.n] * len(blk.ids) for blk in blocks]),
                             "c": np.concatenate([blk.success.sum(1) for blk in blocks])},
                            index=[i for blk in blocks for i in blk.ids])
            for b, blocks in benchmark_blocks(path, answers=False).items()}


def _pass(counts: pd.DataFrame, k: int) -> np.ndarray:
    return pass_at_k(counts["n"].to_numpy(), counts["c"].to_numpy(), k)


def difficulty_table(files: list[ScoreFile], *, n_boot: int, ci: float, seed: int) -> pd.DataFrame:
    """One row per eval set, benchmark, bin and checkpoint (chain: its seeds pooled); a bin without
    prompts has no rows."""
    groups = by_chain(files)
    counts = {key: [_per_prompt(f.path) for f in group] for key, group in groups.items()}
    rows = []
    for eval_set in dict.fromkeys(e for _, e in groups):
        if ("base", eval_set) not in counts:
            raise ValueError(f"eval set {eval_set}: no base scores, whose pass rates set the bins")
        base = counts[("base", eval_set)][0]
        chains = [c for c, e in groups if e == eval_set]
        for bench, b in base.items():
            rate = (b["c"] / b["n"]).to_numpy()
            bins = bin_of(rate)
            per_chain = {}
            for chain in chains:
                seeds = [s[bench].reindex(b.index) for s in counts[(chain, eval_set)]]
                missing = [i for s in seeds for i in s.index[s["n"].isna()][:3]]
                if missing:
                    raise ValueError(f"{chain}/{eval_set} [{bench}]: no samples of the base's prompts "
                                     f"{', '.join(dict.fromkeys(missing))}")
                per_chain[chain] = seeds
            k = 1 << (int(min(s["n"].min() for seeds in per_chain.values() for s in seeds)).bit_length() - 1)
            base_vals = {1: _pass(b, 1), k: _pass(b, k)}
            for chain, seeds in per_chain.items():
                vals = {kk: [_pass(s.astype(int), kk) for s in seeds] for kk in (1, k)}
                for i, (label, lo, hi, _) in enumerate(BINS):
                    inside = bins == i
                    if not inside.any():  # no prompt of this benchmark in the bin: no row
                        continue
                    row = {"chain": chain, "eval_set": eval_set, "benchmark": bench, "bin": label,
                           "base_rate_low": lo, "base_rate_high": hi, "n_prompts": int(inside.sum()),
                           "n_seeds": len(seeds), "k": k}
                    for kk, name in ((1, "pass@1"), (k, "pass@k")):
                        stats = bootstrap_ci_grouped([v[inside] for v in vals[kk]], n_boot=n_boot, ci=ci, seed=seed)
                        diff = paired_grouped_diff(base_vals[kk][inside], [v[inside] for v in vals[kk]],
                                                   n_boot=n_boot, ci=ci, seed=seed)
                        row.update({name: float(stats[0]), f"{name}_lo": float(stats[1]), f"{name}_hi": float(stats[2]),
                                    f"{name}_vs_base": diff[0], f"{name}_vs_base_lo": diff[1],
                                    f"{name}_vs_base_hi": diff[2]})
                    rows.append(row)
    return pd.DataFrame(rows)
