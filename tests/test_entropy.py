"""Answer-level and token-level entropy on hand-computed cases."""

from __future__ import annotations

import math

import numpy as np
import pytest

from rlvr_support.metrics.entropy import (
    answer_entropy,
    mean_per_prompt,
    per_prompt_answer_entropy,
    sample_token_entropy,
    token_entropy,
)


def test_answer_entropy_hand_cases():
    # [1, 1, 2, NA]: p = 1/2, 1/4, 1/4 -> 1/2 ln 2 + 2 * 1/4 ln 4 = 1.5 ln 2
    assert answer_entropy(["1", "1", "2", None]) == pytest.approx(1.5 * math.log(2))
    assert answer_entropy([1, "1", " 2 ", "2"]) == pytest.approx(math.log(2))  # str + strip
    assert answer_entropy(["7"] * 5) == 0.0
    assert answer_entropy(["a", "b", "c", "d"]) == pytest.approx(math.log(4))
    # None, "" and whitespace are all the single answer "NA"
    assert answer_entropy([None, "", "  ", "NA"]) == 0.0
    assert math.isnan(answer_entropy([]))


def test_token_entropy_mean_of_means_skips_empty():
    h = [np.array([1.0, 3.0]), np.array([]), np.array([0.5])]
    # per sample 2.0, (skip), 0.5 -> 1.25  (a pooled mean over tokens would be 1.5)
    assert token_entropy(h) == pytest.approx(1.25)
    np.testing.assert_allclose(sample_token_entropy(h), [2.0, np.nan, 0.5])
    assert math.isnan(token_entropy([np.array([])]))


def test_per_prompt_helpers():
    ids, means = mean_per_prompt(["b", "a", "b", "a", "c"], [1.0, 2.0, 3.0, np.nan, np.nan])
    assert list(ids) == ["a", "b", "c"]
    np.testing.assert_allclose(means, [2.0, 2.0, np.nan])
    ids, ent = per_prompt_answer_entropy(["p2", "p1", "p2", "p1"], ["x", "y", "z", "y"])
    assert list(ids) == ["p1", "p2"]
    np.testing.assert_allclose(ent, [0.0, math.log(2)])
    with pytest.raises(ValueError):
        mean_per_prompt(["a"], [1.0, 2.0])
