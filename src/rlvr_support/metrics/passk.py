"""pass@k, best@k (max@k) and prompt coverage at k.

All functions are pure numpy. Conventions:

* ``n`` samples per prompt, ``c`` of them correct, budget ``k`` with ``1 <= k <= n``.
* pass@k is the *unbiased estimator* of Chen et al. (2021), "Evaluating Large
  Language Models Trained on Code", eq. (1) and their numpy snippet::

      pass@k = 1 - C(n-c, k) / C(n, k)
             = 1 - prod_{i=n-c+1}^{n} (1 - k / i)        (= 1 when n - c < k)

  i.e. the probability that a uniformly random k-subset of the n samples (drawn
  without replacement) contains at least one correct sample.
* best@k / max@k for graded rewards: the expected maximum reward of a uniformly
  random k-subset.  With rewards sorted ascending r_(1) <= ... <= r_(n), the i-th
  smallest is the maximum of a k-subset iff the subset contains it and k-1 of the
  i-1 smaller ones, hence::

      best@k = sum_{i=k}^{n} C(i-1, k-1) / C(n, k) * r_(i)

  (the "max@k" estimator used e.g. in the Verifier-Induced Support Reshaping paper).
  For binary rewards it equals pass@k.

Numerical notes: ratios of binomials are never formed from factorials.  For a fixed
n and k the ratio C(n-c,k)/C(n,k) satisfies the recurrence
``ratio(c+1) = ratio(c) * (1 - k/(n-c))``, so a whole table over c = 0..n is one
cumulative sum of ``log1p(-k/(n-j))`` and ``pass@k = -expm1(log ratio)`` keeps full
relative precision both near 0 and near 1.  Once ``n - c < k`` a factor is exactly
zero, the log is -inf and pass@k is exactly 1.  This works for any n (8192 and far
beyond): nothing overflows, small ratios underflow harmlessly to 0.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

__all__ = [
    "pass_at_k",
    "pass_at_k_matrix",
    "passk_from_counts",
    "best_at_k",
    "best_at_k_matrix",
    "best_at_k_weights",
    "best_at_k_from_level_counts",
    "coverage_at_k",
    "coverage_at_k_per_prompt",
    "power_of_two_ks",
    "PassKAccumulator",
]


# ----------------------------------------------------------------------------- helpers
def _as_int_array(x: Any, name: str) -> np.ndarray:
    arr = np.asarray(x)
    if arr.dtype == bool:
        raise ValueError(f"{name} must be integer counts, got a boolean array")
    if not np.issubdtype(arr.dtype, np.integer):
        if arr.size and not np.all(np.isfinite(arr)):
            raise ValueError(f"{name} contains non-finite values")
        if arr.size and not np.all(arr == np.round(arr)):
            raise ValueError(f"{name} must hold whole numbers, got non-integer values")
        arr = arr.astype(np.int64)
    return arr.astype(np.int64, copy=False)


def _check_k(k: Any) -> int:
    if isinstance(k, (bool, np.bool_)) or not isinstance(k, (int, np.integer)):
        raise ValueError(f"k must be a positive integer, got {k!r}")
    k = int(k)
    if k < 1:
        raise ValueError(f"k must be >= 1, got {k}")
    return k


def _pass_table(n: int, k: int) -> np.ndarray:
    """pass@k for every c in 0..n at fixed n, k (array of length n+1).

    log ratio(c) = sum_{j=0}^{c-1} log1p(-k/(n-j)); ratio(c) = C(n-c,k)/C(n,k).
    """
    if k > n:
        raise ValueError(f"k={k} exceeds n={n} samples; pass@k needs k <= n")
    j = np.arange(n, dtype=np.float64)
    # factor (1 - k/(n-j)) is 0 once n - j <= k (then C(n-c,k) = 0): clip to log1p(-1) = -inf
    with np.errstate(divide="ignore"):
        steps = np.log1p(np.maximum(-k / (n - j), -1.0))
    log_ratio = np.empty(n + 1, dtype=np.float64)
    log_ratio[0] = 0.0
    np.cumsum(steps, out=log_ratio[1:])
    return -np.expm1(log_ratio)


def power_of_two_ks(n: int) -> list[int]:
    """Budgets ``1, 2, 4, ..., 2**floor(log2 n)`` plus ``n`` itself if n is not a power of two."""
    if isinstance(n, (bool, np.bool_)) or not isinstance(n, (int, np.integer)) or n < 1:
        raise ValueError(f"n must be a positive integer, got {n!r}")
    n = int(n)
    ks = [1 << e for e in range(n.bit_length()) if (1 << e) <= n]
    if ks[-1] != n:
        ks.append(n)
    return ks


# ----------------------------------------------------------------------------- pass@k
def pass_at_k(n: np.ndarray | int, c: np.ndarray | int, k: int) -> np.ndarray:
    """Unbiased pass@k estimator (Chen et al. 2021): ``1 - C(n-c,k)/C(n,k)``.

    Vectorised over prompts: ``n`` and ``c`` broadcast against each other and n may
    differ per prompt.  Computed per distinct n from the stable product form
    ``1 - prod_{i=n-c+1}^{n} (1 - k/i)`` (1 when ``n - c < k``), see module docstring.

    Returns a float64 array of the broadcast shape (0-d for scalar input).
    Raises ValueError when k < 1, k > n for any prompt, or c is outside [0, n].
    """
    k = _check_k(k)
    n_arr, c_arr = np.broadcast_arrays(_as_int_array(n, "n"), _as_int_array(c, "c"))
    if n_arr.size and n_arr.min() < k:
        bad = int(n_arr.min())
        raise ValueError(f"k={k} exceeds n={bad} samples for some prompt; pass@k needs k <= n")
    if c_arr.size and (c_arr.min() < 0 or np.any(c_arr > n_arr)):
        raise ValueError("c must satisfy 0 <= c <= n for every prompt")
    out = np.empty(n_arr.shape, dtype=np.float64)
    if not n_arr.size:
        return out
    flat_n, flat_c, flat_out = n_arr.ravel(), c_arr.ravel(), out.reshape(-1)
    uniq, inv = np.unique(flat_n, return_inverse=True)
    for u_i, n_val in enumerate(uniq):
        sel = inv == u_i
        flat_out[sel] = _pass_table(int(n_val), k)[flat_c[sel]]
    return out


def pass_at_k_matrix(n: int, c: np.ndarray, ks: Sequence[int]) -> np.ndarray:
    """pass@k for many prompts sharing the same n, at several budgets: shape (len(c), len(ks)).

    Fast path: for each k one table of pass@k over all c in 0..n (O(n) work, see
    :func:`_pass_table`), then fancy-indexing by c.  Total cost O(len(ks)*n + len(c)*len(ks)),
    no per-prompt Python loop.
    """
    n = int(_as_int_array(n, "n"))
    c_arr = _as_int_array(c, "c").ravel()
    ks = [_check_k(k) for k in ks]
    if c_arr.size and (c_arr.min() < 0 or c_arr.max() > n):
        raise ValueError(f"c must satisfy 0 <= c <= n={n}")
    out = np.empty((c_arr.size, len(ks)), dtype=np.float64)
    for j, k in enumerate(ks):
        out[:, j] = _pass_table(n, k)[c_arr]
    return out


def passk_from_counts(
    n_per_prompt: np.ndarray | Sequence[int],
    c_per_prompt: np.ndarray | Sequence[int],
    ks: Sequence[int],
) -> np.ndarray:
    """pass@k at several budgets from per-prompt counts only: shape (P, len(ks)).

    Memory story: pass@k depends on a prompt's samples only through (n, c), so an
    analysis can stream a samples Parquet file row group by row group, add up
    ``n`` and ``c`` per prompt (two int64 per prompt, see :class:`PassKAccumulator`)
    and call this once at the end.  Peak memory is O(P * len(ks)) for the output plus
    one table of n+1 floats per distinct n, independent of the number of samples.
    n may differ per prompt; every k must be <= every prompt's n (ValueError otherwise).
    """
    n_arr = _as_int_array(n_per_prompt, "n_per_prompt").ravel()
    c_arr = _as_int_array(c_per_prompt, "c_per_prompt").ravel()
    if n_arr.shape != c_arr.shape:
        raise ValueError(f"n_per_prompt and c_per_prompt differ in length: {n_arr.size} vs {c_arr.size}")
    out = np.empty((n_arr.size, len(ks)), dtype=np.float64)
    for j, k in enumerate(ks):
        out[:, j] = pass_at_k(n_arr, c_arr, k)
    return out


# ----------------------------------------------------------------------------- best@k
def best_at_k_weights(n: int, ks: Sequence[int]) -> np.ndarray:
    """Weight matrix W (n, len(ks)) with ``W[i-1, j] = C(i-1, k_j-1) / C(n, k_j)`` (0 for i < k_j).

    best@k of ascending-sorted rewards is ``sorted_rewards @ W``.  Computed in log space
    from the top: ``W[n-1] = k/n`` and ``W[i-2]/W[i-1] = (i-k)/(i-1) = 1 - (k-1)/(i-1)``,
    so ``log W[i-1] = log(k/n) + sum_{j=i+1}^{n} log1p(-(k-1)/(j-1))``.  Each column sums
    to 1 (hockey-stick identity); tiny weights underflow to exactly 0, never overflow.
    """
    n = int(n)
    if n < 1:
        raise ValueError(f"n must be >= 1, got {n}")
    ks = [_check_k(k) for k in ks]
    W = np.zeros((n, len(ks)), dtype=np.float64)
    i = np.arange(2, n + 1, dtype=np.float64)  # i = 2..n -> factor linking W[i-2] to W[i-1]
    for col, k in enumerate(ks):
        if k > n:
            raise ValueError(f"k={k} exceeds n={n} samples; best@k needs k <= n")
        with np.errstate(divide="ignore"):  # factor is 0 at i == k (clip below): log -inf
            steps = np.log1p(np.maximum(-(k - 1) / (i - 1), -1.0))
        # log W[m] for m = n-1 down to 0: cumulative sum of steps from the top.
        logw = np.empty(n, dtype=np.float64)
        logw[n - 1] = np.log(k / n)
        if n > 1:
            logw[: n - 1] = np.log(k / n) + np.cumsum(steps[::-1])[::-1]
        w = np.exp(logw)
        w[: k - 1] = 0.0  # exact zeros below the k-th order statistic
        W[:, col] = w
    return W


def _check_rewards(rewards: Any) -> np.ndarray:
    r = np.asarray(rewards)
    if r.ndim != 2:
        raise ValueError(f"rewards must have shape (prompts, n), got shape {r.shape}")
    if r.dtype == bool:
        r = r.astype(np.float64)
    if not np.issubdtype(r.dtype, np.floating):
        r = r.astype(np.float64)
    if r.size and not np.all(np.isfinite(r)):
        raise ValueError("rewards contain NaN or inf; best@k needs finite rewards")
    return r


def best_at_k(rewards: np.ndarray, k: int) -> np.ndarray:
    """best@k (max@k) per prompt for graded rewards of shape (prompts, n): shape (prompts,).

    ``best@k = sum_{i=k}^{n} C(i-1,k-1)/C(n,k) * r_(i)`` with r sorted ascending, the
    expected maximum of a uniformly random k-subset (without replacement).  Equals
    pass@k for 0/1 rewards.
    """
    return best_at_k_matrix(rewards, [k])[:, 0]


def best_at_k_matrix(
    rewards: np.ndarray, ks: Sequence[int], *, chunk_rows: int = 2048
) -> np.ndarray:
    """best@k at several budgets: shape (prompts, len(ks)).

    One weight matrix (n, K) from :func:`best_at_k_weights` and a matmul on rewards
    sorted along the sample axis.  Rows are processed in chunks of ``chunk_rows`` so
    the sorted copy stays small; float32 input is sorted and multiplied in float32
    (results returned as float64).
    """
    r = _check_rewards(rewards)
    P, n = r.shape
    W = best_at_k_weights(n, ks)
    Wc = W.astype(r.dtype, copy=False)
    out = np.empty((P, len(ks)), dtype=np.float64)
    for start in range(0, P, max(1, int(chunk_rows))):
        block = np.sort(r[start : start + chunk_rows], axis=1)
        out[start : start + block.shape[0]] = block @ Wc
    return out


def best_at_k_from_level_counts(
    levels: np.ndarray | Sequence[float],
    n_per_prompt: np.ndarray | Sequence[int],
    ge_counts: np.ndarray,
    ks: Sequence[int],
) -> np.ndarray:
    """best@k from per-prompt threshold counts, for rewards on a finite grid of levels.

    ``levels`` ascending v_0 < v_1 < ... < v_L; ``ge_counts[p, j]`` = number of prompt p's
    samples with reward >= v_j (j = 0..L).  If every reward is one of the levels,
    ``max`` of a k-subset is ``v_0 + sum_{j>=1} (v_j - v_{j-1}) * 1[max >= v_j]`` and so::

        best@k = v_0 + sum_{j>=1} (v_j - v_{j-1}) * pass@k(n, c = ge_counts[:, j])

    which needs only (levels+1) integers per prompt: the streaming path for graded
    rewards such as IFEval soft accuracy.  Requires ge_counts[:, 0] == n (every reward
    >= the lowest level).  Rewards between levels are effectively floored to the grid.
    Returns shape (P, len(ks)).
    """
    lv = np.asarray(levels, dtype=np.float64).ravel()
    if lv.size < 1 or np.any(np.diff(lv) <= 0):
        raise ValueError("levels must be a non-empty strictly increasing sequence")
    n_arr = _as_int_array(n_per_prompt, "n_per_prompt").ravel()
    g = _as_int_array(ge_counts, "ge_counts")
    if g.ndim != 2 or g.shape != (n_arr.size, lv.size):
        raise ValueError(f"ge_counts must have shape (P, len(levels)) = {(n_arr.size, lv.size)}, got {g.shape}")
    if np.any(g[:, 0] != n_arr):
        raise ValueError("ge_counts[:, 0] must equal n: some reward lies below the lowest level")
    out = np.full((n_arr.size, len(ks)), lv[0], dtype=np.float64)
    for j in range(1, lv.size):
        out += (lv[j] - lv[j - 1]) * passk_from_counts(n_arr, g[:, j], ks)
    return out


# ----------------------------------------------------------------------------- coverage
def coverage_at_k_per_prompt(success: np.ndarray, k: int) -> np.ndarray:
    """Per prompt: at least one success among the first k samples (order as given). Shape (P,) bool."""
    k = _check_k(k)
    s = np.asarray(success)
    if s.ndim != 2:
        raise ValueError(f"success must have shape (prompts, n), got shape {s.shape}")
    if k > s.shape[1]:
        raise ValueError(f"k={k} exceeds n={s.shape[1]} samples")
    return np.any(s[:, :k].astype(bool), axis=1)


def coverage_at_k(success: np.ndarray, k: int) -> float:
    """Prompt coverage at k: share of prompts with >= 1 success among their first k samples.

    Empirical (one realisation, sample order as given), unlike pass@k which averages
    over all k-subsets; its expectation over random sample orders is mean pass@k.
    NaN for zero prompts.
    """
    per = coverage_at_k_per_prompt(success, k)
    return float(per.mean()) if per.size else float("nan")


# ----------------------------------------------------------------------------- streaming
class PassKAccumulator:
    """Accumulate per-prompt sample counts chunk by chunk (e.g. Parquet row groups).

    ``update(prompt_ids, rewards)`` adds a chunk of samples; memory is
    O(prompts * len(levels)) integers regardless of how many samples stream through.
    A sample counts as a success for pass@k when ``reward >= success_threshold``.
    If ``levels`` (ascending) are given, counts of ``reward >= level`` are kept too and
    :meth:`best_at_k` is exact for rewards on that grid (see
    :func:`best_at_k_from_level_counts`).
    """

    def __init__(self, success_threshold: float = 1.0, levels: Sequence[float] | None = None):
        self.success_threshold = float(success_threshold)
        self.levels = None if levels is None else np.asarray(levels, dtype=np.float64).ravel()
        if self.levels is not None and (self.levels.size < 1 or np.any(np.diff(self.levels) <= 0)):
            raise ValueError("levels must be a non-empty strictly increasing sequence")
        self._index: dict[Any, int] = {}
        self._n = np.zeros(0, dtype=np.int64)
        self._c = np.zeros(0, dtype=np.int64)
        n_lv = 0 if self.levels is None else self.levels.size
        self._ge = np.zeros((0, n_lv), dtype=np.int64)

    def _grow(self, size: int) -> None:
        if size <= self._n.size:
            return
        cap = max(size, 2 * self._n.size, 16)
        for name in ("_n", "_c"):
            old = getattr(self, name)
            new = np.zeros(cap, dtype=np.int64)
            new[: old.size] = old
            setattr(self, name, new)
        ge = np.zeros((cap, self._ge.shape[1]), dtype=np.int64)
        ge[: self._ge.shape[0]] = self._ge
        self._ge = ge

    def update(self, prompt_ids: Sequence[Any] | np.ndarray, rewards: Sequence[float] | np.ndarray) -> None:
        ids = np.asarray(prompt_ids)
        r = np.asarray(rewards, dtype=np.float64).ravel()
        if ids.ravel().size != r.size:
            raise ValueError(f"prompt_ids and rewards differ in length: {ids.size} vs {r.size}")
        if r.size and not np.all(np.isfinite(r)):
            raise ValueError("rewards contain NaN or inf")
        uniq, inv = np.unique(ids.ravel(), return_inverse=True)
        idx = np.empty(uniq.size, dtype=np.int64)
        for u_i, pid in enumerate(uniq.tolist()):
            if pid not in self._index:
                self._index[pid] = len(self._index)
            idx[u_i] = self._index[pid]
        self._grow(len(self._index))
        rows = idx[inv]
        size = len(self._index)
        self._n[:size] += np.bincount(rows, minlength=size)
        self._c[:size] += np.bincount(rows, weights=r >= self.success_threshold, minlength=size).astype(np.int64)
        if self.levels is not None:
            if r.size and r.min() < self.levels[0]:
                raise ValueError(f"reward {r.min()} lies below the lowest level {self.levels[0]}")
            for j, v in enumerate(self.levels):
                self._ge[:size, j] += np.bincount(rows, weights=r >= v, minlength=size).astype(np.int64)

    @property
    def prompt_ids(self) -> list[Any]:
        """Prompt ids in first-seen order (row order of all outputs)."""
        return list(self._index)

    @property
    def n(self) -> np.ndarray:
        return self._n[: len(self._index)].copy()

    @property
    def c(self) -> np.ndarray:
        return self._c[: len(self._index)].copy()

    def pass_at_k(self, ks: Sequence[int]) -> np.ndarray:
        return passk_from_counts(self.n, self.c, ks)

    def best_at_k(self, ks: Sequence[int]) -> np.ndarray:
        if self.levels is None:
            raise ValueError("best@k from counts needs the reward levels: pass levels=... to the accumulator")
        return best_at_k_from_level_counts(self.levels, self.n, self._ge[: len(self._index)], ks)
