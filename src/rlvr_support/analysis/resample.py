"""Bootstrap helpers the analysis tables share: ratio-of-sums statistics over prompts and
RL seeds, paired checkpoint-minus-base effects, and the verdict of a claim (the sign of its CI, given
enough RL seeds).

Means use :func:`rlvr_support.metrics.bootstrap.bootstrap_ci_grouped` directly.  Statistics
that are *functions of sums over prompts* (support ratios SRR = P/(P+S), the mean JS curve
sum_js / n_tokens, perplexity exp(sum nll / sum tokens)) need the function applied after
resampling, which :func:`grouped_sum_bootstrap` does with the same two-level scheme
(Davison & Hinkley 1997, sec. 3.8): draw S seeds with replacement, for each drawn seed
resample its prompts, apply ``fn`` to that seed's column sums, average over the drawn seeds.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import warnings

import numpy as np

from rlvr_support.metrics.bootstrap import bootstrap_ci_grouped, bootstrap_distribution

__all__ = ["MIN_VERDICT_SEEDS", "ci_side", "claim_verdict", "grouped_sum_bootstrap", "paired_grouped_diff", "verdict"]

# A verdict needs a CI that includes the variation between RL runs, from at least this many seeds
# (DESIGN.md: one seed gives an effect, not a verdict; a run on another machine or seed can flip it).
MIN_VERDICT_SEEDS = 3


def grouped_sum_bootstrap(per_seed: Sequence[np.ndarray], fn: Callable[[np.ndarray], np.ndarray], *,
                          n_boot: int, ci: float, seed: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """``(point, low, high, seed_std)`` of ``fn(column sums)``, averaged over seeds.

    ``per_seed``: one (P_s, W) array per RL seed (rows = prompts, columns = additive
    per-prompt quantities); ``fn`` maps sums of shape (..., W) to (..., K) and may return
    NaN (e.g. a ratio with denominator 0).  ``point`` = mean over seeds of
    ``fn(x_s.sum(0))``; the percentile interval ignores NaN replicates; ``seed_std`` is the
    ddof=1 spread of the per-seed values (NaN with one seed).
    """
    if not per_seed:
        raise ValueError("per_seed is empty: need at least one seed")
    xs = [np.asarray(x, dtype=np.float64) for x in per_seed]
    if any(x.ndim != 2 for x in xs) or len({x.shape[1] for x in xs}) != 1:
        raise ValueError(f"per_seed arrays must be (P_s, W) with one W, got {[x.shape for x in xs]}")
    S, B = len(xs), int(n_boot)
    with np.errstate(invalid="ignore", divide="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # all-NaN replicates (0/0 ratios) stay NaN
        per_seed_point = np.stack([np.atleast_1d(fn(x.sum(axis=0))) for x in xs])  # (S, K)
        point = np.nanmean(per_seed_point, axis=0) if S > 1 else per_seed_point[0]
        spread = per_seed_point.std(axis=0, ddof=1) if S > 1 else np.full(per_seed_point.shape[1:], np.nan)
        rng = np.random.default_rng(seed)
        chosen = rng.integers(0, S, size=(B, S))
        # one independent prompt resample per (replicate, slot), as bootstrap_ci_grouped does
        vals = np.empty((B, S) + per_seed_point.shape[1:], dtype=np.float64)
        for s in range(S):
            where = np.argwhere(chosen == s)
            if where.size:
                sums = bootstrap_distribution(xs[s], n_boot=len(where), seed=rng, stat=np.sum)
                vals[where[:, 0], where[:, 1]] = np.asarray(fn(sums), dtype=np.float64).reshape((len(where),) + per_seed_point.shape[1:])
        reps = np.nanmean(vals, axis=1) if S > 1 else vals[:, 0]
        alpha = (1.0 - ci) / 2.0
        low, high = np.nanquantile(reps, [alpha, 1.0 - alpha], axis=0) if B else (point, point)
    return point, low, high, spread


def paired_grouped_diff(base: np.ndarray, ckpt_by_seed: Sequence[np.ndarray], *, n_boot: int, ci: float,
                        seed: int) -> tuple[float, float, float, float]:
    """Checkpoint minus base on the same prompts, CI over prompts (paired) and RL seeds.

    ``base`` (P,) and each ``ckpt_by_seed[s]`` (P,) hold per-prompt values aligned by prompt;
    prompts with NaN on either side are dropped per seed.  Returns (point, low, high, seed_std).
    """
    b = np.asarray(base, dtype=np.float64)
    diffs = []
    for c in ckpt_by_seed:
        c = np.asarray(c, dtype=np.float64)
        if c.shape != b.shape:
            raise ValueError(f"paired difference needs the same prompts: shapes {c.shape} vs {b.shape}")
        d = c - b
        d = d[~np.isnan(d)]
        if d.size == 0:
            return (float("nan"),) * 4
        diffs.append(d)
    return tuple(float(v) for v in bootstrap_ci_grouped(diffs, n_boot=n_boot, ci=ci, seed=seed))


def verdict(low: float, high: float, expected_sign: int) -> str:
    """'agree' when the CI lies strictly on the paper's side of 0, 'disagree' when strictly on the
    other side, otherwise (CI touches or straddles 0, or is undefined) 'inconclusive'."""
    if expected_sign not in (-1, 1):
        raise ValueError(f"expected_sign must be +1 or -1, got {expected_sign}")
    if low is None or high is None or np.isnan(low) or np.isnan(high):
        return "inconclusive"
    if low > 0:
        return "agree" if expected_sign > 0 else "disagree"
    if high < 0:
        return "agree" if expected_sign < 0 else "disagree"
    return "inconclusive"


def claim_verdict(low: float, high: float, expected_sign: int, n_seeds: int) -> str:
    """A claim's verdict: `verdict` of its CI when the CI includes seed variation from at least
    MIN_VERDICT_SEEDS RL seeds; otherwise `1 seed` / `2 seeds`: the row gives the effect and its CI
    over prompts, which says nothing of how another RL seed (or another machine's run) would come out."""
    if n_seeds < MIN_VERDICT_SEEDS:
        return f"{n_seeds} seed{'' if n_seeds == 1 else 's'}"
    return verdict(low, high, expected_sign)


def ci_side(low: float, high: float) -> str:
    """Where a CI lies: `above 0`, `below 0`, or `spans 0` (touches or straddles it, or undefined);
    what `verdict` reads, without the paper's sign."""
    if low is None or high is None or np.isnan(low) or np.isnan(high):
        return "spans 0"
    return "above 0" if low > 0 else "below 0" if high < 0 else "spans 0"
