"""Remedy comparison helpers (src/rlvr_support/analysis/remedy_comparison.py)."""

from __future__ import annotations

import numpy as np
import pytest

from rlvr_support.analysis.remedy_comparison import grouped_ratio_ci, split_chain


def test_split_chain():
    assert split_chain("math-if~inverse-success") == (["math", "if"], "inverse-success")
    assert split_chain("if-math") == (["if", "math"], "baseline")


def test_srr_ratio_point_and_ci():
    # base in support on 4 problems, RL keeps 3 of them: SRR = 3/4; a 5th problem is out of base support
    num = [np.array([1, 1, 1, 0, 0.0])]
    den = [np.array([1, 1, 1, 1, 0.0])]
    point, lo, hi = grouped_ratio_ci(num, den, n_boot=500, ci=0.9, seed=0)
    assert point == pytest.approx(0.75)
    assert 0 <= lo <= point <= hi <= 1
    # two seeds: the point is the mean of the per-seed ratios
    point2, _, _ = grouped_ratio_ci(num + [np.ones(5)], den + [np.ones(5)], n_boot=200, ci=0.9, seed=0)
    assert point2 == pytest.approx((0.75 + 1.0) / 2)
