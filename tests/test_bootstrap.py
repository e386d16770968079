"""Bootstrap CIs: determinism, shapes, coverage of a known mean, paired and grouped variants."""

from __future__ import annotations

import numpy as np
import pytest

from rlvr_support.metrics.bootstrap import (
    bootstrap_ci,
    bootstrap_ci_grouped,
    bootstrap_distribution,
    paired_bootstrap_diff,
)


def test_deterministic_given_seed_and_differs_across_seeds():
    x = np.random.default_rng(0).random(50)
    assert bootstrap_ci(x, seed=3) == bootstrap_ci(x, seed=3)
    assert bootstrap_ci(x, seed=3)[1:] != bootstrap_ci(x, seed=4)[1:]


def test_point_is_mean_and_interval_brackets_it():
    x = np.arange(10, dtype=float)
    point, low, high = bootstrap_ci(x, n_boot=2000)
    assert isinstance(point, float)
    assert point == pytest.approx(4.5)
    assert low < 4.5 < high
    # SE of mean of 0..9 is ~ 2.87/sqrt(10) ~ 0.91: a 95% interval is roughly +-1.8
    assert 1.0 < high - low < 5.0


def test_constant_data_gives_degenerate_interval():
    assert bootstrap_ci(np.full(7, 0.25)) == (0.25, 0.25, 0.25)


def test_replicates_match_explicit_loop():
    # the vectorised path must equal a naive per-replicate loop with the same index draws
    x = np.random.default_rng(1).random(13)
    reps = bootstrap_distribution(x, n_boot=40, seed=9)
    rng = np.random.default_rng(9)
    idx = rng.integers(0, 13, size=(40, 13))
    np.testing.assert_allclose(reps, [x[i].mean() for i in idx], rtol=1e-15)


def test_two_d_columns_use_same_resamples():
    rng = np.random.default_rng(2)
    x = rng.random((40, 3))
    point, low, high = bootstrap_ci(x, n_boot=500, seed=1)
    assert point.shape == low.shape == high.shape == (3,)
    np.testing.assert_allclose(point, x.mean(axis=0))
    for j in range(3):
        p1, l1, h1 = bootstrap_ci(x[:, j], n_boot=500, seed=1)
        assert (l1, h1) == pytest.approx((low[j], high[j]), rel=1e-12)
    # a duplicated column gets the identical interval
    xx = np.column_stack([x[:, 0], x[:, 0]])
    _, lo2, hi2 = bootstrap_ci(xx, n_boot=300)
    assert lo2[0] == lo2[1] and hi2[0] == hi2[1]


def test_other_stat():
    x = np.array([0.0, 0.0, 1.0, 5.0, 100.0])
    point, low, high = bootstrap_ci(x, stat=np.median, n_boot=500)
    assert point == 1.0
    assert low <= 1.0 <= high


def test_coverage_of_known_mean():
    # Bernoulli(0.3) per-prompt values, P = 80: the 90% CI should cover 0.3 in roughly 90% of
    # 200 independent data sets (binomial sd ~2%; percentile bootstrap is a bit liberal at small P).
    rng = np.random.default_rng(123)
    hits = 0
    trials = 200
    for t in range(trials):
        x = (rng.random(80) < 0.3).astype(float)
        _, lo, hi = bootstrap_ci(x, n_boot=400, ci=0.9, seed=t)
        hits += lo <= 0.3 <= hi
    assert 0.82 <= hits / trials <= 0.97


@pytest.mark.parametrize("bad", [np.zeros(0), np.zeros((2, 2, 2))])
def test_bad_input(bad):
    with pytest.raises(ValueError):
        bootstrap_ci(bad)


def test_bad_options():
    with pytest.raises(ValueError):
        bootstrap_ci(np.ones(3), ci=1.0)
    with pytest.raises(ValueError):
        bootstrap_ci(np.ones(3), n_boot=0)


def test_paired_diff_narrower_than_unpaired():
    rng = np.random.default_rng(5)
    prompt_difficulty = rng.random(200)
    a = prompt_difficulty + 0.01 * rng.standard_normal(200)
    b = prompt_difficulty + 0.05 + 0.01 * rng.standard_normal(200)
    point, lo, hi = paired_bootstrap_diff(a, b)
    assert point == pytest.approx(np.mean(b - a))
    assert lo < 0.05 < hi
    assert hi - lo < 0.01  # pairing removes the prompt-difficulty variance (sd ~0.29)
    with pytest.raises(ValueError):
        paired_bootstrap_diff(a, b[:-1])


def test_grouped_point_std_and_width():
    rng = np.random.default_rng(7)
    seeds = [rng.random(60) * 0.1 + offset for offset in (0.2, 0.5, 0.8)]
    point, lo, hi, sd = bootstrap_ci_grouped(seeds, n_boot=1000, seed=0)
    assert point == pytest.approx(np.mean([s.mean() for s in seeds]))
    assert sd == pytest.approx(np.std([s.mean() for s in seeds], ddof=1))
    assert sd == pytest.approx(0.3, abs=0.02)
    # seed variation dominates: the grouped CI is much wider than the prompt-only CI of pooled data
    _, lo_p, hi_p = bootstrap_ci(np.concatenate(seeds))
    assert (hi - lo) > 5 * (hi_p - lo_p)
    assert lo < point < hi
    assert bootstrap_ci_grouped(seeds, seed=1) == bootstrap_ci_grouped(seeds, seed=1)


def test_grouped_single_seed_and_2d():
    x = np.random.default_rng(8).random((30, 2))
    point, lo, hi, sd = bootstrap_ci_grouped([x], n_boot=200)
    np.testing.assert_allclose(point, x.mean(axis=0))
    assert np.all(np.isnan(sd))
    assert np.all(lo < point) and np.all(point < hi)
    # unequal prompt counts per seed are allowed; mismatched K is not
    bootstrap_ci_grouped([x, x[:10]], n_boot=50)
    with pytest.raises(ValueError):
        bootstrap_ci_grouped([x, x[:, :1]])
    with pytest.raises(ValueError):
        bootstrap_ci_grouped([])
