import numpy as np
import pytest

from rlvr_support.analysis.resample import ci_side, claim_verdict, grouped_sum_bootstrap, paired_grouped_diff, verdict


def ratio(s):
    return s[..., :1] / s[..., 1:2]


def test_point_is_ratio_of_sums_for_one_seed():
    x = np.array([[1.0, 2.0], [3.0, 2.0], [0.0, 4.0]])  # sums 4 / 8
    point, low, high, spread = grouped_sum_bootstrap([x], ratio, n_boot=200, ci=0.9, seed=0)
    assert point[0] == pytest.approx(0.5)
    assert low[0] <= 0.5 <= high[0]
    assert np.isnan(spread[0])


def test_identical_rows_give_a_degenerate_interval():
    x = np.tile([[2.0, 5.0]], (7, 1))
    point, low, high, _ = grouped_sum_bootstrap([x], ratio, n_boot=50, ci=0.95, seed=1)
    assert point[0] == low[0] == high[0] == pytest.approx(0.4)


def test_seeds_average_per_seed_statistics_and_report_their_spread():
    a = np.array([[1.0, 1.0], [1.0, 1.0]])  # ratio 1
    b = np.array([[0.0, 1.0], [1.0, 3.0]])  # ratio 1/4
    point, low, high, spread = grouped_sum_bootstrap([a, b], ratio, n_boot=400, ci=0.95, seed=0)
    assert point[0] == pytest.approx(0.625)
    assert spread[0] == pytest.approx(np.std([1.0, 0.25], ddof=1))
    assert low[0] <= point[0] <= high[0] and high[0] <= 1.0 and low[0] >= 0.0


def test_nan_replicates_are_ignored():
    x = np.array([[0.0, 0.0], [1.0, 1.0]])  # a replicate of only row 0 is 0/0
    point, low, high, _ = grouped_sum_bootstrap([x], ratio, n_boot=300, ci=0.9, seed=0)
    assert point[0] == 1.0 and low[0] == 1.0 and high[0] == 1.0


def test_paired_diff_hand_example():
    base = np.array([0.0, 1.0, 0.0, 0.5])
    ck = np.array([1.0, 1.0, 0.0, 0.5])
    d, lo, hi, spread = paired_grouped_diff(base, [ck], n_boot=500, ci=0.95, seed=0)
    assert d == pytest.approx(0.25)
    assert 0.0 <= lo <= d <= hi <= 1.0
    with pytest.raises(ValueError, match="same prompts"):
        paired_grouped_diff(base, [ck[:3]], n_boot=10, ci=0.9, seed=0)


@pytest.mark.parametrize("low,high,sign,expected", [
    (0.1, 0.3, +1, "agree"), (0.1, 0.3, -1, "disagree"), (-0.3, -0.1, -1, "agree"), (-0.3, -0.1, +1, "disagree"),
    (-0.1, 0.2, +1, "inconclusive"), (0.0, 0.0, +1, "inconclusive"), (0.0, 0.2, +1, "inconclusive"),
    (float("nan"), 0.2, +1, "inconclusive")])
def test_verdict(low, high, sign, expected):
    assert verdict(low, high, sign) == expected


@pytest.mark.parametrize("n_seeds,expected", [(0, "0 seeds"), (1, "1 seed"), (2, "2 seeds"), (3, "agree"),
                                              (5, "agree")])
def test_a_claim_verdict_needs_three_seeds(n_seeds, expected):
    assert claim_verdict(0.1, 0.3, +1, n_seeds) == expected
    assert claim_verdict(0.1, 0.3, -1, n_seeds) == (expected if n_seeds < 3 else "disagree")


@pytest.mark.parametrize("low,high,expected", [(0.1, 0.3, "above 0"), (-0.3, -0.1, "below 0"), (0.0, 0.2, "spans 0"),
                                               (-0.1, 0.2, "spans 0"), (float("nan"), 0.2, "spans 0")])
def test_ci_side(low, high, expected):
    assert ci_side(low, high) == expected


def test_analysis_defaults_fill_missing_keys_only():
    from rlvr_support.config.defaults import ANALYSIS_DEFAULTS, with_defaults

    out = with_defaults({"bootstrap": 10, "ci": 0.9, "seed": 0, "opening_tokens": 2}, eval_sets=["math", "if"])
    assert out["opening_tokens"] == 2 and out["support_delta"] == ANALYSIS_DEFAULTS["support_delta"]
    assert out["divergence"]["eval_sets"] == ["math", "if"]  # a defaulted list follows the study's eval sets
    explicit = with_defaults({"divergence": {"eval_sets": ["if"], "prompts": 3}}, eval_sets=["math", "if"])
    assert explicit["divergence"]["eval_sets"] == ["if"] and explicit["divergence"]["prompts"] == 3
    assert explicit["divergence"]["batch"] == ANALYSIS_DEFAULTS["divergence"]["batch"]
