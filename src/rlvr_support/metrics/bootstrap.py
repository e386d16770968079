"""Percentile bootstrap confidence intervals over prompts (and over RL seeds).

Method: Efron & Tibshirani (1993), "An Introduction to the Bootstrap", ch. 13
(percentile interval).  Prompts are the resampling unit because the evaluation set
is a sample of the prompt population; samples within a prompt are already
summarised into a per-prompt value (e.g. pass@k of that prompt).

All functions are deterministic given ``seed`` (numpy ``default_rng``) and vectorised:
a whole (chunk of) resample index matrix ``(n_boot, P)`` is drawn at once.  Inputs
may be shape (P,) -> floats, or (P, K) (one column per metric / budget k) -> arrays
of shape (K,); every column uses the same resampled prompts, so CIs of different k
are mutually consistent.  NaN values are not handled specially (they propagate).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

__all__ = ["bootstrap_ci", "bootstrap_ci_grouped", "paired_bootstrap_diff", "bootstrap_distribution"]

# cap on elements of one gathered (chunk, P, K) block, to bound memory (~128 MB float64)
_MAX_BLOCK = 16_000_000


def _check(per_prompt: Any, name: str = "per_prompt") -> np.ndarray:
    x = np.asarray(per_prompt, dtype=np.float64)
    if x.ndim not in (1, 2):
        raise ValueError(f"{name} must have shape (P,) or (P, K), got shape {x.shape}")
    if x.shape[0] < 1:
        raise ValueError(f"{name} is empty: no prompts to bootstrap")
    return x


def _check_opts(n_boot: int, ci: float) -> None:
    if int(n_boot) < 1:
        raise ValueError(f"n_boot must be >= 1, got {n_boot}")
    if not 0.0 < float(ci) < 1.0:
        raise ValueError(f"ci must lie in (0, 1), got {ci}")


def _out(v: np.ndarray, one_d: bool) -> Any:
    return float(v) if one_d else np.asarray(v, dtype=np.float64)


def bootstrap_distribution(
    x: np.ndarray, *, n_boot: int = 1000, seed: int | np.random.Generator = 0, stat: Callable = np.mean
) -> np.ndarray:
    """Bootstrap replicates of ``stat(x, axis=0)`` over rows of x: shape (n_boot,) + x.shape[1:].

    Row indices are drawn as an (n_boot, P) integer matrix (in chunks bounded to
    ~16M gathered elements) from ``np.random.default_rng(seed)``; ``stat`` must accept
    ``axis`` (it is called with axis=1 on the (chunk, P, ...) block).
    """
    x = _check(x, "x")
    rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)
    P = x.shape[0]
    width = int(np.prod(x.shape[1:], dtype=np.int64)) if x.ndim > 1 else 1
    chunk = max(1, _MAX_BLOCK // max(1, P * width))
    reps = np.empty((int(n_boot),) + x.shape[1:], dtype=np.float64)
    for start in range(0, int(n_boot), chunk):
        b = min(chunk, int(n_boot) - start)
        idx = rng.integers(0, P, size=(b, P))
        reps[start : start + b] = stat(x[idx], axis=1)
    return reps


def bootstrap_ci(
    per_prompt: np.ndarray,
    *,
    n_boot: int = 1000,
    ci: float = 0.95,
    seed: int = 0,
    stat: Callable = np.mean,
) -> tuple[Any, Any, Any]:
    """Percentile bootstrap over prompts: ``(point, low, high)``.

    ``point = stat(per_prompt, axis=0)`` on the original data; ``low, high`` are the
    ``(1-ci)/2`` and ``(1+ci)/2`` quantiles (numpy default linear interpolation) of
    ``n_boot`` replicates of the statistic over prompts resampled with replacement.
    Floats for input of shape (P,), arrays of shape (K,) for (P, K).
    """
    _check_opts(n_boot, ci)
    x = _check(per_prompt)
    point = stat(x, axis=0)
    reps = bootstrap_distribution(x, n_boot=n_boot, seed=seed, stat=stat)
    alpha = (1.0 - ci) / 2.0
    low, high = np.quantile(reps, [alpha, 1.0 - alpha], axis=0)
    one_d = x.ndim == 1
    return _out(point, one_d), _out(low, one_d), _out(high, one_d)


def bootstrap_ci_grouped(
    per_prompt_by_seed: Sequence[np.ndarray],
    *,
    n_boot: int = 1000,
    ci: float = 0.95,
    seed: int = 0,
) -> tuple[Any, Any, Any, Any]:
    """Two-level (hierarchical) bootstrap that includes RL-seed variation.

    ``per_prompt_by_seed``: one array per RL seed, each of shape (P_s,) or (P_s, K)
    (same K for all; P_s may differ).  Returns ``(point, low, high, seed_std)``:

    * ``point``    = mean over seeds of the mean over prompts;
    * ``low/high`` = percentile interval of replicates built by drawing S seeds with
      replacement and, for each drawn seed independently, its prompts with
      replacement, then averaging as for the point estimate (Davison & Hinkley 1997,
      sec. 3.8, "resampling both stages");
    * ``seed_std`` = sample standard deviation (ddof=1) over seeds of the per-seed
      prompt means: the across-seed spread to report next to the mean; NaN with a
      single seed (spread unknown; the CI then reduces to the prompt-only bootstrap).
    """
    _check_opts(n_boot, ci)
    if len(per_prompt_by_seed) < 1:
        raise ValueError("per_prompt_by_seed is empty: need at least one seed")
    xs = [_check(x, f"per_prompt_by_seed[{i}]") for i, x in enumerate(per_prompt_by_seed)]
    if len({x.shape[1:] for x in xs}) != 1:
        raise ValueError(f"all seeds need the same trailing shape, got {[x.shape for x in xs]}")
    S = len(xs)
    tail = xs[0].shape[1:]
    seed_means = np.stack([x.mean(axis=0) for x in xs])  # (S,) + tail
    point = seed_means.mean(axis=0)
    seed_std = seed_means.std(axis=0, ddof=1) if S > 1 else np.full(tail, np.nan)

    rng = np.random.default_rng(seed)
    B = int(n_boot)
    chosen = rng.integers(0, S, size=(B, S))  # which seed fills slot j of replicate b
    slot_means = np.empty((B, S) + tail, dtype=np.float64)
    for j in range(S):
        for s in range(S):
            rows = np.flatnonzero(chosen[:, j] == s)
            if rows.size:
                slot_means[rows, j] = bootstrap_distribution(xs[s], n_boot=rows.size, seed=rng)
    reps = slot_means.mean(axis=1)
    alpha = (1.0 - ci) / 2.0
    low, high = np.quantile(reps, [alpha, 1.0 - alpha], axis=0)
    one_d = xs[0].ndim == 1
    return _out(point, one_d), _out(low, one_d), _out(high, one_d), _out(seed_std, one_d)


def paired_bootstrap_diff(
    a: np.ndarray,
    b: np.ndarray,
    *,
    n_boot: int = 1000,
    ci: float = 0.95,
    seed: int = 0,
) -> tuple[Any, Any, Any]:
    """CI of ``mean(b - a)`` with prompts resampled jointly (paired): ``(point, low, high)``.

    For "checkpoint minus base" effects on the same prompts: a[i] and b[i] must refer
    to the same prompt (same shape, (P,) or (P, K)).  Pairing removes the between-prompt
    variance that an unpaired comparison of two CIs would wrongly include.
    """
    a_ = _check(a, "a")
    b_ = _check(b, "b")
    if a_.shape != b_.shape:
        raise ValueError(f"a and b must have the same shape (paired prompts), got {a_.shape} vs {b_.shape}")
    return bootstrap_ci(b_ - a_, n_boot=n_boot, ci=ci, seed=seed)
