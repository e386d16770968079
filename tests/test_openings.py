"""Openings: keys, distribution, rank shift and decomposition on hand-made examples."""

from __future__ import annotations

import math

import numpy as np
import pytest

from rlvr_support.metrics.openings import opening_decomposition, opening_distribution, opening_rank_shift, openings


def test_openings_tokens_and_text():
    assert openings([[5, 6, 7], [5, 6], [5, 6, 8], [9]], 2) == [(5, 6), (5, 6), (5, 6), (9,)]
    assert openings(["  The answer is 4", "Step 1:\nadd"], 2) == ["The answer", "Step 1:"]
    with pytest.raises(ValueError):
        openings(["a"], 0)


def test_opening_distribution_ranks_and_ties():
    keys = ["b", "a", "c", "b", "a", "d"]  # a:2, b:2 (tie -> 'a' first), c:1, d:1
    df = opening_distribution(keys)
    assert list(df["opening"]) == ["a", "b", "c", "d"]
    assert list(df["count"]) == [2, 2, 1, 1]
    assert list(df["rank"]) == [1, 2, 3, 4]
    np.testing.assert_allclose(df["prob"], [2 / 6, 2 / 6, 1 / 6, 1 / 6])
    tup = opening_distribution([(2, 1), (10, 1), (10, 1)])
    assert list(tup["opening"]) == [(10, 1), (2, 1)]


def test_rank_shift_hand_example():
    base = ["a"] * 4 + ["b"] * 3 + ["c"] * 2 + ["d"]          # ranks a1 b2 c3 d4
    rl = ["b"] * 5 + ["a"] * 2 + ["e"] * 2 + ["c"]            # ranks b1 a2 e3 (tie a/e by string) c4
    df = opening_rank_shift(base, rl, top=3)                   # union of {b,a,e} and {a,b,c}
    assert list(df["opening"]) == ["b", "a", "e", "c"]
    assert list(df["rl_rank"]) == [1, 2, 3, 4]
    base_rank = df["base_rank"].tolist()
    assert base_rank[:2] == [2, 1] and math.isnan(base_rank[2]) and base_rank[3] == 3
    assert list(df["in_base_support"]) == [True, True, False, True]
    np.testing.assert_allclose(df["base_prob"], [0.3, 0.4, 0.0, 0.2])
    np.testing.assert_allclose(df["rl_prob"], [0.5, 0.2, 0.2, 0.1])
    shift = df["rank_shift"].tolist()
    assert shift[0] == 1 and shift[1] == -1 and math.isnan(shift[2]) and shift[3] == -1
    small = opening_rank_shift(base, rl, top=1)                # rl top b, base top a
    assert list(small["opening"]) == ["b", "a"]


def test_opening_decomposition():
    p = {"a": 0.5, "b": 0.3, "c": 0.2, "z": 0.0}
    s = {"a": 1.0, "b": 0.5, "c": 0.0, "d": 0.9}
    assert opening_decomposition(p, s) == pytest.approx(0.65)
    with pytest.raises(ValueError):
        opening_decomposition({"x": 0.1}, s)
