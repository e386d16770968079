import itertools

import numpy as np
import pytest

from rlvr_support.metrics.trainability import group_outcome_probs


def _enumerate(n, c, G):
    """Share of the G-subsets of n samples (c successes) that are all fail / all success / mixed."""
    outcomes = [1] * c + [0] * (n - c)
    subsets = list(itertools.combinations(outcomes, G))
    fail = sum(sum(s) == 0 for s in subsets) / len(subsets)
    succ = sum(sum(s) == G for s in subsets) / len(subsets)
    return [fail, succ, 1 - fail - succ]


@pytest.mark.parametrize("n", [1, 2, 4, 5, 7])
def test_group_outcomes_match_enumeration_of_all_subsets(n):
    for G in range(1, n + 1):
        cs = np.arange(n + 1)
        got = group_outcome_probs(np.full(n + 1, n), cs, G)
        want = np.array([_enumerate(n, int(c), G) for c in cs])
        assert got == pytest.approx(want, abs=1e-12)
        assert got.sum(axis=1) == pytest.approx(np.ones(n + 1))


def test_group_outcomes_edges_and_errors():
    # G = 1: a single rollout is never mixed; G = n: mixed unless 0 < c < n fails
    assert group_outcome_probs(8, [0, 3, 8], 1) == pytest.approx(np.array([[1, 0, 0], [5 / 8, 3 / 8, 0], [0, 1, 0]]))
    assert group_outcome_probs(4, [0, 1, 4], 4)[:, 2] == pytest.approx([0, 1, 0])
    with pytest.raises(ValueError, match="G=5"):
        group_outcome_probs(4, 1, 5)
    with pytest.raises(ValueError, match="success counts"):
        group_outcome_probs(4, 5, 2)
