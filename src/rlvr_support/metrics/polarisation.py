"""Polarisation of per-prompt success: prompts pushed to never (0/n) or always (n/n) solved.

Source: the support-reshaping paper reports RLVR moving prompts to the extremes of the success-count scale
(Math-RLVR on IFEval: "0/32 +67; 32/32 +73 prompts").  A prompt's success count c out of its n
samples falls into one of four buckets::

    "0"         c = 0               never solved
    "(0,n/2]"   0 < c <= n/2        solved at most half the time
    "(n/2,n)"   n/2 < c < n         solved more than half the time, not always
    "n"         c = n               always solved

(for n = 1 the two middle buckets are empty).  Moves to the extremes are counted per prompt,
base vs checkpoint on the same prompts: ``to_zero`` = base c > 0 and checkpoint c = 0,
``to_all`` = base c < n and checkpoint c = n.
"""

from __future__ import annotations

import numpy as np

__all__ = ["BUCKETS", "success_bucket", "moves_to_extremes"]

BUCKETS = ("0", "(0,n/2]", "(n/2,n)", "n")


def success_bucket(c, n: int) -> np.ndarray:
    """Bucket index 0..3 (see BUCKETS) of each success count c (array) out of n."""
    c = np.asarray(c)
    if ((c < 0) | (c > n)).any():
        raise ValueError(f"success counts must lie in [0, {n}]")
    return np.where(c == 0, 0, np.where(c == n, 3, np.where(2 * c <= n, 1, 2)))


def moves_to_extremes(base_c, ckpt_c, n: int) -> tuple[np.ndarray, np.ndarray]:
    """Per prompt (to_zero, to_all) as floats 0/1: moved to 0/n from above, moved to n/n from below."""
    b, c = np.asarray(base_c), np.asarray(ckpt_c)
    return ((b > 0) & (c == 0)).astype(float), ((b < n) & (c == n)).astype(float)
