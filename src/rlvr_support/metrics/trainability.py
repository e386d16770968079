"""Future trainability: how often a GRPO group of G rollouts of a prompt would carry a learning signal.

Source: GRPO (Shao et al. 2024, "DeepSeekMath", sec. 4.1) normalises each rollout's reward by its
group's mean and standard deviation, so a group whose G rewards are all equal (all fail or all
succeed) has zero advantage everywhere and contributes no gradient; DAPO (Yu et al. 2025, sec. 3.2,
"dynamic sampling") filters exactly those groups. the support-reshaping paper uses the share of such groups on a
task as a measure of how trainable a checkpoint still is there for a later RLVR stage.

From a prompt's n evaluation samples with c successes, the probability that G rollouts drawn
without replacement from those n are all failures, all successes, or mixed is estimated without
bias by the hypergeometric ratios (the same argument as pass@k, Chen et al. 2021, eq. 1)::

    P(all fail)    = C(n - c, G) / C(n, G) = prod_{i=0}^{G-1} (n - c - i) / (n - i)
    P(all success) = C(c, G)     / C(n, G) = prod_{i=0}^{G-1} (c - i)     / (n - i)
    P(mixed)       = 1 - P(all fail) - P(all success)

(a product is 0 once its count is below G: a factor (count - i) is then 0). Requires 1 <= G <= n.
"""

from __future__ import annotations

import numpy as np

__all__ = ["group_outcome_probs", "OUTCOMES"]

OUTCOMES = ("all_fail", "all_success", "mixed")


def _ratio(count: np.ndarray, n: np.ndarray, G: int) -> np.ndarray:
    i = np.arange(G)
    return np.prod(np.clip(count[:, None] - i, 0, None) / (n[:, None] - i), axis=1)


def group_outcome_probs(n, c, G: int) -> np.ndarray:
    """(P, 3) probabilities (all fail, all success, mixed) per prompt of a G-rollout group, from each
    prompt's n samples with c successes (arrays of shape (P,), or scalars broadcast); see the module
    docstring for the formula."""
    n, c = np.broadcast_arrays(np.atleast_1d(np.asarray(n)), np.atleast_1d(np.asarray(c)))
    n, c = n.astype(np.int64), c.astype(np.int64)
    if G < 1 or (n < G).any():
        raise ValueError(f"group size G={G} needs 1 <= G <= n (smallest n: {int(n.min())})")
    if ((c < 0) | (c > n)).any():
        raise ValueError("success counts must lie in [0, n]")
    fail, succ = _ratio(n - c, n, G), _ratio(c, n, G)
    return np.stack([fail, succ, 1.0 - fail - succ], axis=1)
