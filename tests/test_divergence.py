"""Jensen-Shannon divergence: symmetry, bounds, hand-computed values, positional means."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch

from rlvr_support.metrics.divergence import js_divergence, positional_js, share_in_first_m

LN2 = math.log(2)


def _log(p):
    with np.errstate(divide="ignore"):
        return np.log(np.asarray(p, dtype=float))


# p = [1, 0], q = [1/2, 1/2]: m = [3/4, 1/4]
# KL(p||m) = ln(4/3); KL(q||m) = 1/2 ln(2/3) + 1/2 ln 2; JS = average of the two
HAND = 0.5 * (math.log(4 / 3) + 0.5 * math.log(2 / 3) + 0.5 * math.log(2))


def test_js_basic_values():
    assert js_divergence(_log([0.2, 0.3, 0.5]), _log([0.2, 0.3, 0.5])) == pytest.approx(0.0, abs=1e-15)
    assert js_divergence(_log([1, 0, 0]), _log([0, 0.5, 0.5])) == pytest.approx(LN2)
    assert js_divergence(_log([1, 0]), _log([0.5, 0.5])) == pytest.approx(HAND)
    assert HAND == pytest.approx(0.2157615543388357)


def test_js_symmetric_bounded_no_nan():
    rng = np.random.default_rng(0)
    p = rng.dirichlet(np.full(50, 0.1), size=20)
    q = rng.dirichlet(np.full(50, 0.1), size=20)
    p[:, :10] = 0  # exact zeros
    p /= p.sum(1, keepdims=True)
    a = js_divergence(_log(p), _log(q))
    b = js_divergence(_log(q), _log(p))
    assert a.shape == (20,)
    np.testing.assert_allclose(a, b, rtol=1e-12)
    assert np.all(np.isfinite(a)) and np.all(a >= 0) and np.all(a <= LN2)
    # matches a direct probability-space computation
    m = 0.5 * (p + q)

    def kl(x):
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.nansum(np.where(x > 0, x * np.log(x / m), 0.0), axis=1)

    np.testing.assert_allclose(a, 0.5 * (kl(p) + kl(q)), rtol=1e-10, atol=1e-14)


def test_js_axis_and_torch():
    lp = _log([[1, 0], [0.5, 0.5]])
    lq = _log([[0.5, 0.5], [0.5, 0.5]])
    np.testing.assert_allclose(js_divergence(lp, lq, axis=-1), [HAND, 0.0], atol=1e-15)
    np.testing.assert_allclose(js_divergence(lp.T, lq.T, axis=0), [HAND, 0.0], atol=1e-15)
    t = js_divergence(torch.tensor(lp), torch.tensor(lq))
    assert isinstance(t, torch.Tensor)
    np.testing.assert_allclose(t.numpy(), [HAND, 0.0], atol=1e-12)
    t32 = js_divergence(torch.log_softmax(torch.tensor([[50.0, -50.0]]), -1), torch.log_softmax(torch.tensor([[-50.0, 50.0]]), -1))
    assert not torch.isnan(t32).any() and t32.item() == pytest.approx(LN2, rel=1e-5)


def test_positional_js_hand_tensor():
    same = _log([0.5, 0.5])
    a_, b_ = _log([1, 0]), _log([0, 1])
    # B=2, T=4, V=2
    base = np.array([[same, a_, same, same], [a_, same, a_, same]])
    rl = np.array([[same, b_, a_, same], [b_, same, same, same]])
    mask = np.array([[1, 1, 0, 0], [1, 1, 1, 0]], dtype=bool)
    js = positional_js(base, rl, mask)
    # pos0: (0 + ln2)/2; pos1: (ln2 + 0)/2; pos2: only seq 1 (HAND); pos3: no tokens -> NaN
    np.testing.assert_allclose(js[:3], [LN2 / 2, LN2 / 2, HAND], rtol=1e-12)
    assert math.isnan(js[3])
    np.testing.assert_allclose(positional_js(torch.tensor(base), torch.tensor(rl), torch.tensor(mask))[:3], js[:3])
    with pytest.raises(ValueError):
        positional_js(base, rl, mask[:, :2])


def test_share_in_first_m():
    js = np.array([3.0, 1.0, 0.0, np.nan])
    assert share_in_first_m(js, 1) == pytest.approx(0.75)
    assert share_in_first_m(js, 0) == 0.0
    assert share_in_first_m(js, 10) == pytest.approx(1.0)
    assert math.isnan(share_in_first_m(np.zeros(3), 1))
