"""pass@k / best@k / coverage against brute-force enumeration and exact fractions."""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rlvr_support.metrics.passk import (
    PassKAccumulator,
    best_at_k,
    best_at_k_from_level_counts,
    best_at_k_matrix,
    best_at_k_weights,
    coverage_at_k,
    coverage_at_k_per_prompt,
    pass_at_k,
    pass_at_k_matrix,
    passk_from_counts,
    power_of_two_ks,
)


def brute_pass(n: int, c: int, k: int) -> Fraction:
    """Share of k-subsets of n samples (first c correct) with at least one correct one."""
    subsets = list(itertools.combinations(range(n), k))
    hit = sum(1 for s in subsets if any(i < c for i in s))
    return Fraction(hit, len(subsets))


def brute_best(r: np.ndarray, k: int) -> float:
    vals = [max(r[list(s)]) for s in itertools.combinations(range(len(r)), k)]
    return float(np.mean(vals))


@pytest.mark.parametrize("n", range(1, 9))
def test_pass_at_k_brute_force_all_c_all_k(n):
    for c in range(n + 1):
        for k in range(1, n + 1):
            expected = float(brute_pass(n, c, k))
            got = float(pass_at_k(n, c, k))
            assert got == pytest.approx(expected, abs=1e-12), (n, c, k)


def test_pass_at_k_matches_math_comb_fraction_large_n():
    rng = np.random.default_rng(1)
    for n in (16, 100, 1000, 8192):
        for k in sorted({1, 2, 7, 64, n // 2, n} & set(range(1, n + 1))):
            for c in sorted({0, 1, 2, n // 3, n - k, n - k + 1, n - 1, n} & set(range(n + 1))):
                exact = 1 - Fraction(math.comb(n - c, k), math.comb(n, k))
                got = float(pass_at_k(n, c, k))
                assert got == pytest.approx(float(exact), rel=1e-10, abs=1e-300), (n, c, k)
        cs = rng.integers(0, n + 1, size=20)
        got = pass_at_k(n, cs, 3)
        exact = [float(1 - Fraction(math.comb(n - int(c), 3), math.comb(n, 3))) for c in cs]
        np.testing.assert_allclose(got, exact, rtol=1e-10)


def test_pass_at_k_small_value_relative_precision():
    # n=8192, c=1, k=1: exactly 1/8192; c=1,k=2: 2/8192. Naive 1 - ratio would be fine here,
    # but for c=1, k=1, n=1e6 the relative accuracy matters.
    assert float(pass_at_k(8192, 1, 1)) == pytest.approx(1 / 8192, rel=1e-13)
    assert float(pass_at_k(10**6, 1, 1)) == pytest.approx(1e-6, rel=1e-12)
    assert float(pass_at_k(10**6, 0, 5)) == 0.0


def test_pass_at_k_vectorised_heterogeneous_n_and_shape():
    n = np.array([4, 8, 4, 16])
    c = np.array([1, 0, 4, 3])
    got = pass_at_k(n, c, 2)
    expected = [float(brute_pass(4, 1, 2)), 0.0, 1.0, float(1 - Fraction(math.comb(13, 2), math.comb(16, 2)))]
    np.testing.assert_allclose(got, expected, rtol=1e-12)
    assert got.shape == (4,)
    assert pass_at_k(5, 2, 1).shape == ()
    assert float(pass_at_k(5, 2, 1)) == pytest.approx(0.4)


@pytest.mark.parametrize(
    "n,c,k",
    [(4, 1, 5), (np.array([8, 3]), np.array([1, 1]), 4), (4, 5, 1), (4, -1, 1), (4, 1, 0), (4, 1, 1.5), (4, 1, True)],
)
def test_pass_at_k_errors(n, c, k):
    with pytest.raises(ValueError):
        pass_at_k(n, c, k)


def test_pass_at_k_matrix_equals_scalar():
    rng = np.random.default_rng(0)
    n = 64
    c = rng.integers(0, n + 1, size=200)
    ks = power_of_two_ks(n)
    M = pass_at_k_matrix(n, c, ks)
    assert M.shape == (200, len(ks))
    for j, k in enumerate(ks):
        np.testing.assert_allclose(M[:, j], pass_at_k(n, c, k), rtol=0, atol=0)
        exact = [float(1 - Fraction(math.comb(n - int(ci), k), math.comb(n, k))) for ci in c]
        np.testing.assert_allclose(M[:, j], exact, rtol=1e-12, atol=1e-300)
    # monotone in k and in c
    assert np.all(np.diff(M, axis=1) >= -1e-15)
    with pytest.raises(ValueError):
        pass_at_k_matrix(8, np.array([9]), [1])
    with pytest.raises(ValueError):
        pass_at_k_matrix(8, np.array([1]), [16])


def test_passk_from_counts_mixed_n():
    n = np.array([8, 8, 16, 4])
    c = np.array([0, 3, 5, 4])
    ks = [1, 2, 4]
    M = passk_from_counts(n, c, ks)
    for p in range(4):
        for j, k in enumerate(ks):
            assert M[p, j] == pytest.approx(float(brute_pass(int(n[p]), int(c[p]), k)) if n[p] <= 8
                                            else float(1 - Fraction(math.comb(11, k), math.comb(16, k))), abs=1e-12)
    with pytest.raises(ValueError):
        passk_from_counts([8, 2], [1, 1], [4])


def test_power_of_two_ks():
    assert power_of_two_ks(1) == [1]
    assert power_of_two_ks(8) == [1, 2, 4, 8]
    assert power_of_two_ks(10) == [1, 2, 4, 8, 10]
    assert power_of_two_ks(8192)[-1] == 8192 and len(power_of_two_ks(8192)) == 14
    with pytest.raises(ValueError):
        power_of_two_ks(0)


# ----------------------------------------------------------------------------- best@k
def test_best_at_k_weights_columns_sum_to_one_and_match_comb():
    n = 12
    ks = [1, 2, 5, 12]
    W = best_at_k_weights(n, ks)
    np.testing.assert_allclose(W.sum(axis=0), 1.0, rtol=1e-13)
    for j, k in enumerate(ks):
        for i in range(1, n + 1):
            exact = math.comb(i - 1, k - 1) / math.comb(n, k) if i >= k else 0.0
            assert W[i - 1, j] == pytest.approx(exact, rel=1e-12, abs=0)
    # large n: finite, sums to 1
    W = best_at_k_weights(8192, power_of_two_ks(8192))
    assert np.all(np.isfinite(W))
    np.testing.assert_allclose(W.sum(axis=0), 1.0, rtol=1e-9)


@pytest.mark.parametrize("seed", range(5))
def test_best_at_k_brute_force_graded(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 9))
    # include ties on purpose
    rewards = rng.choice([0.0, 0.25, 0.5, 0.9, 1.0, rng.random()], size=(4, n))
    ks = list(range(1, n + 1))
    M = best_at_k_matrix(rewards, ks)
    for p in range(rewards.shape[0]):
        for j, k in enumerate(ks):
            assert M[p, j] == pytest.approx(brute_best(rewards[p], k), abs=1e-12)
            assert best_at_k(rewards, k)[p] == pytest.approx(M[p, j], abs=1e-14)


def test_best_at_k_equals_pass_at_k_on_binary():
    rng = np.random.default_rng(3)
    n = 32
    succ = rng.random((50, n)) < rng.random((50, 1))
    ks = power_of_two_ks(n)
    B = best_at_k_matrix(succ, ks)
    P = pass_at_k_matrix(n, succ.sum(axis=1), ks)
    np.testing.assert_allclose(B, P, atol=1e-12)
    # float32 input path, small chunks
    B32 = best_at_k_matrix(succ.astype(np.float32), ks, chunk_rows=7)
    np.testing.assert_allclose(B32, P, atol=1e-5)


def test_best_at_k_errors():
    with pytest.raises(ValueError):
        best_at_k(np.zeros(5), 1)
    with pytest.raises(ValueError):
        best_at_k(np.zeros((2, 3)), 4)
    with pytest.raises(ValueError):
        best_at_k(np.array([[0.0, np.nan]]), 1)


def test_best_at_k_from_level_counts_matches_matrix():
    rng = np.random.default_rng(4)
    levels = np.array([0.0, 1 / 3, 2 / 3, 1.0])
    rewards = rng.choice(levels, size=(30, 10))
    ge = np.stack([(rewards >= v).sum(axis=1) for v in levels], axis=1)
    ks = [1, 2, 4, 8, 10]
    got = best_at_k_from_level_counts(levels, np.full(30, 10), ge, ks)
    np.testing.assert_allclose(got, best_at_k_matrix(rewards, ks), atol=1e-12)
    with pytest.raises(ValueError):
        best_at_k_from_level_counts(levels, np.full(30, 11), ge, ks)


def test_accumulator_streaming_matches_batch():
    rng = np.random.default_rng(5)
    levels = [0.0, 0.5, 1.0]
    P, n = 20, 12
    rewards = rng.choice(levels, size=(P, n))
    ids = np.repeat(np.array([f"p{i:02d}" for i in range(P)]), n)
    flat = rewards.ravel()
    order = rng.permutation(flat.size)  # samples arrive shuffled, in chunks
    acc = PassKAccumulator(success_threshold=1.0, levels=levels)
    for chunk in np.array_split(order, 7):
        acc.update(ids[chunk], flat[chunk])
    row = [int(pid[1:]) for pid in acc.prompt_ids]
    assert sorted(row) == list(range(P))
    np.testing.assert_array_equal(acc.n, np.full(P, n))
    ks = [1, 2, 4, 12]
    np.testing.assert_allclose(acc.pass_at_k(ks), pass_at_k_matrix(n, (rewards[row] >= 1).sum(1), ks), atol=1e-14)
    np.testing.assert_allclose(acc.best_at_k(ks), best_at_k_matrix(rewards[row], ks), atol=1e-12)
    with pytest.raises(ValueError):
        PassKAccumulator().best_at_k([1])


# ----------------------------------------------------------------------------- coverage
def test_coverage_at_k_hand_example():
    s = np.array(
        [
            [0, 0, 1, 0],
            [1, 0, 0, 0],
            [0, 0, 0, 0],
            [0, 1, 1, 1],
        ],
        dtype=bool,
    )
    assert coverage_at_k(s, 1) == pytest.approx(1 / 4)
    assert coverage_at_k(s, 2) == pytest.approx(2 / 4)
    assert coverage_at_k(s, 3) == pytest.approx(3 / 4)
    assert coverage_at_k(s, 4) == pytest.approx(3 / 4)
    np.testing.assert_array_equal(coverage_at_k_per_prompt(s, 2), [False, True, False, True])
    with pytest.raises(ValueError):
        coverage_at_k(s, 5)


@settings(max_examples=60, deadline=None)
@given(n=st.integers(1, 300), data=st.data())
def test_pass_at_k_properties(n, data):
    c = data.draw(st.integers(0, n))
    k = data.draw(st.integers(1, n))
    v = float(pass_at_k(n, c, k))
    exact = float(1 - Fraction(math.comb(n - c, k), math.comb(n, k)))
    assert 0.0 <= v <= 1.0
    assert v == pytest.approx(exact, rel=1e-10, abs=1e-300)
