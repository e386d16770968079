"""maj@k (metrics/majority.py): answer classes, hand-computed values over every k-subset, the
Monte-Carlo path against an exact enumeration, maj@1 = pass@1."""

from __future__ import annotations

from itertools import combinations

import numpy as np
import pytest

from rlvr_support.metrics.majority import EXACT_SUBSETS, answer_classes, maj_at_k_matrix
from rlvr_support.metrics.passk import pass_at_k


def test_correct_answers_are_one_class_and_missing_answers_do_not_vote():
    codes = answer_classes(["1/2", "0.5", " 3", "3", None, "", "7"], [True, True, False, False, False, False, False])
    assert codes.tolist() == [0, 0, 1, 1, -1, -1, 2]


def test_hand_computed_maj_at_k():
    # a correct, b wrong twice, one sample without an answer
    classes = answer_classes(["a", "b", "b", None], [True, False, False, False])
    got = maj_at_k_matrix(classes[None], [1, 2, 3, 4], seed=0)[0]
    # k=2, six pairs: {a,b} twice is a tie (1/2 each), {a,-} a wins, {b,b} {b,-} {b,-} b wins: 2/6
    # k=3, four triples: {a,b,b} 0, {a,b,-} twice a tie (1/2), {b,b,-} 0: 1/4; k=4: b wins
    assert got.tolist() == pytest.approx([1 / 4, 1 / 3, 1 / 4, 0.0])


def test_two_spellings_of_the_gold_answer_outvote_a_split_wrong_answer():
    right = answer_classes(["1/2", "0.5", "3", "4"], [True, True, False, False])
    wrong = answer_classes(["1/2", "0.5", "3", "3", "3"], [True, True, False, False, False])
    assert maj_at_k_matrix(right[None], [4], seed=0)[0, 0] == 1.0
    assert maj_at_k_matrix(wrong[None], [5], seed=0)[0, 0] == 0.0


def test_samples_without_any_answer_count_as_wrong():
    classes = answer_classes([None, None, ""], [False, False, False])
    assert maj_at_k_matrix(classes[None], [1, 2, 3], seed=0).tolist() == [[0.0, 0.0, 0.0]]


def _exact(classes, k):
    """The mean over every k-subset, counted one by one."""
    total, count = 0.0, 0
    for sub in combinations(classes.tolist(), k):
        votes = {}
        for c in sub:
            if c >= 0:
                votes[c] = votes.get(c, 0) + 1
        if votes:
            top = max(votes.values())
            winners = [c for c, v in votes.items() if v == top]
            total += winners.count(0) / len(winners)
        count += 1
    return total / count


def test_sampled_subsets_agree_with_every_subset_counted():
    rng = np.random.default_rng(3)
    classes = rng.choice([-1, 0, 0, 0, 1, 1, 1, 2, 2, 3], size=18)
    k = 7  # C(18, 7) = 31,824 subsets: above EXACT_SUBSETS, so drawn
    assert sum(1 for _ in combinations(range(18), k)) > EXACT_SUBSETS
    drawn = maj_at_k_matrix(classes[None], [k], seed=0)[0, 0]
    assert drawn == pytest.approx(_exact(classes, k), abs=0.05)  # DRAWS = 1024: standard error <= 0.016
    assert maj_at_k_matrix(classes[None], [k], seed=0)[0, 0] == drawn  # seeded: the same on a rerun


def test_small_subsets_are_counted_exactly():
    classes = np.array([0, 1, 1, 2, 0, -1, 2, 1])
    assert maj_at_k_matrix(classes[None], [3], seed=0)[0, 0] == pytest.approx(_exact(classes, 3), abs=1e-12)


def test_maj_at_1_is_pass_at_1():
    rng = np.random.default_rng(0)
    classes = rng.integers(-1, 4, size=(5, 9))
    c = (classes == 0).sum(1)
    assert maj_at_k_matrix(classes, [1], seed=0)[:, 0] == pytest.approx(pass_at_k(np.full(5, 9), c, 1))


def test_k_above_n_is_an_error():
    with pytest.raises(ValueError, match="k <= n=3"):
        maj_at_k_matrix(np.zeros((1, 3), int), [4], seed=0)
