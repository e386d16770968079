"""Empirical support of a policy and how RLVR changes it ("The Invisible Leash", Wu et al. 2025).

Source: (Wu et al., "The Invisible Leash: Why RLVR May Not Escape Its Origin",
2025), sec. 3 (empirical support) and their support-change metrics.

* A problem is *in the empirical support* of a policy when at least one of its k sampled
  responses (the budget) is correct.
* Sampling k times finds, with probability >= 1 - delta, every completion whose
  probability is at least ``eps = 1 - delta**(1/k)`` (since (1 - eps)**k = delta), so the
  empirical support is the support thresholded at eps.
* Base vs RL categories per problem: preservation P (both), shrinkage S (base only),
  expansion E (RL only), out-of-support O (neither); summary ratios
  SRR = P/(P+S) (support retention), NDR = E/(P+E) (net discovery),
  SDS = 2*SRR*NDR/(SRR+NDR) (their harmonic mean), NSCR = (E-S)/(P+E+S)
  (net support change).  A ratio whose denominator is 0 is NaN.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

__all__ = [
    "support_epsilon",
    "in_support",
    "support_categories",
    "support_summary",
    "CATEGORIES",
]

CATEGORIES = ("preservation", "shrinkage", "expansion", "out_of_support")


def support_epsilon(k: int, delta: float) -> float:
    """Probability threshold reached by a budget of k samples at confidence 1-delta: ``1 - delta**(1/k)``.

    Computed as ``-expm1(log(delta)/k)`` for precision at large k.
    """
    if isinstance(k, bool) or int(k) != k or k < 1:
        raise ValueError(f"k must be a positive integer, got {k!r}")
    if not 0.0 < float(delta) < 1.0:
        raise ValueError(f"delta must lie in (0, 1), got {delta}")
    return float(-math.expm1(math.log(delta) / int(k)))


def in_support(success: np.ndarray, k: int | None = None) -> np.ndarray:
    """Per problem: at least one correct sample within the budget.

    ``success`` (P,) bool (already reduced) or (P, n) bool; with (P, n), the first k
    samples (all if k is None) form the budget.
    """
    s = np.asarray(success)
    if s.ndim == 1:
        if k is not None:
            raise ValueError("k applies to (P, n) success arrays only")
        return s.astype(bool)
    if s.ndim != 2:
        raise ValueError(f"success must have shape (P,) or (P, n), got {s.shape}")
    if k is not None:
        if k < 1 or k > s.shape[1]:
            raise ValueError(f"budget k={k} outside 1..n={s.shape[1]}")
        s = s[:, :k]
    return np.any(s.astype(bool), axis=1)


def support_categories(base_success: np.ndarray, rl_success: np.ndarray) -> np.ndarray:
    """Category per problem (array of str, see :data:`CATEGORIES`).

    Inputs are per-problem in-support flags (P,) bool, or (P, n) success matrices
    reduced with :func:`in_support` (any correct sample).
    """
    b = in_support(base_success)
    r = in_support(rl_success)
    if b.shape != r.shape:
        raise ValueError(f"base and RL cover different problems: shapes {b.shape} vs {r.shape}")
    out = np.empty(b.shape, dtype=object)
    out[b & r] = "preservation"
    out[b & ~r] = "shrinkage"
    out[~b & r] = "expansion"
    out[~b & ~r] = "out_of_support"
    return out.astype(str)


def _ratio(num: float, den: float) -> float:
    return float(num) / float(den) if den != 0 and not math.isnan(den) else float("nan")


def support_summary(categories: Any) -> dict[str, float]:
    """Counts and ratios: keys P, S, E, O, total, SRR, NDR, SDS, NSCR (NaN on a 0 denominator)."""
    cats = np.asarray(categories).astype(str).ravel()
    unknown = set(np.unique(cats)) - set(CATEGORIES)
    if unknown:
        raise ValueError(f"unknown support categories {sorted(unknown)}; expected {CATEGORIES}")
    P, S, E, O = (int(np.sum(cats == c)) for c in CATEGORIES)
    srr = _ratio(P, P + S)
    ndr = _ratio(E, P + E)
    sds = _ratio(2 * srr * ndr, srr + ndr)
    nscr = _ratio(E - S, P + E + S)
    return {"P": P, "S": S, "E": E, "O": O, "total": P + S + E + O,
            "SRR": srr, "NDR": ndr, "SDS": sds, "NSCR": nscr}
