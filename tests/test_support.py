"""Support categories and summary ratios on a hand-computed example."""

from __future__ import annotations

import math

import numpy as np
import pytest

from rlvr_support.metrics.support import in_support, support_categories, support_epsilon, support_summary


def test_support_epsilon():
    assert support_epsilon(1, 0.05) == pytest.approx(0.95)
    # (1 - eps)^k == delta
    eps = support_epsilon(1024, 0.05)
    assert (1 - eps) ** 1024 == pytest.approx(0.05, rel=1e-9)
    # by hand: x = ln(20)/1024 = 0.00292552; 1 - e^-x ~ x - x^2/2 = 0.0029212
    assert eps == pytest.approx(0.0029212, rel=1e-4)
    for bad in [(0, 0.05), (4, 0.0), (4, 1.0), (2.5, 0.1)]:
        with pytest.raises(ValueError):
            support_epsilon(*bad)


def test_categories_and_summary_hand_example():
    base = np.array([1, 1, 1, 0, 0, 1, 0, 1], dtype=bool)
    rl = np.array([1, 1, 0, 1, 0, 1, 0, 0], dtype=bool)
    cats = support_categories(base, rl)
    assert list(cats) == ["preservation", "preservation", "shrinkage", "expansion",
                          "out_of_support", "preservation", "out_of_support", "shrinkage"]
    s = support_summary(cats)
    # by hand: P=3, S=2, E=1, O=2; SRR = 3/5, NDR = 1/4, SDS = 2*.6*.25/.85 = .3/.85, NSCR = (1-2)/6
    assert (s["P"], s["S"], s["E"], s["O"], s["total"]) == (3, 2, 1, 2, 8)
    assert s["SRR"] == pytest.approx(0.6)
    assert s["NDR"] == pytest.approx(0.25)
    assert s["SDS"] == pytest.approx(0.3 / 0.85)
    assert s["NSCR"] == pytest.approx(-1 / 6)


def test_categories_from_sample_matrices():
    base = np.array([[0, 1, 0], [0, 0, 0]], dtype=bool)
    rl = np.array([[0, 0, 0], [0, 0, 1]], dtype=bool)
    assert list(support_categories(base, rl)) == ["shrinkage", "expansion"]
    np.testing.assert_array_equal(in_support(rl, k=2), [False, False])
    with pytest.raises(ValueError):
        support_categories(base[:1], rl)


def test_summary_zero_denominators_are_nan():
    s = support_summary(np.array(["out_of_support", "out_of_support"]))
    assert s["O"] == 2
    for key in ("SRR", "NDR", "SDS", "NSCR"):
        assert math.isnan(s[key])
    s = support_summary(["shrinkage"])  # SRR = 0, NDR = NaN (P+E = 0), SDS NaN, NSCR = -1
    assert s["SRR"] == 0.0 and math.isnan(s["NDR"]) and math.isnan(s["SDS"]) and s["NSCR"] == -1.0
    s = support_summary(["preservation"])  # SRR 1, NDR 0, SDS 0
    assert (s["SRR"], s["NDR"], s["SDS"], s["NSCR"]) == (1.0, 0.0, 0.0, 0.0)
    s = support_summary([])
    assert s["total"] == 0 and math.isnan(s["SRR"])
    with pytest.raises(ValueError):
        support_summary(["preserved"])
