"""Hand-computed groups for every advantage / reward-shaping formula (src/rlvr_support/training/advantages.py)."""

from __future__ import annotations

import itertools
import math

import pytest
import torch

from rlvr_support.training.advantages import (group_advantages, inverse_success_scale, sequence_kl,
                                     likelihood_rank, passk_advantages, per_token_kl, unlikeliness_rewards)

T = torch.tensor


def test_group_advantages_one_success_in_four():
    # mean 0.25, unbiased std sqrt((0.75^2 + 3 * 0.25^2) / 3) = 0.5
    a = group_advantages(T([1.0, 0, 0, 0]), 4)
    assert torch.allclose(a, T([0.75, -0.25, -0.25, -0.25]) / 0.5001)
    assert torch.allclose(group_advantages(T([1.0, 0, 0, 0]), 4, "none"), T([0.75, -0.25, -0.25, -0.25]))
    assert torch.equal(group_advantages(T([1.0, 1, 1, 1]), 4), torch.zeros(4))


def test_group_advantages_rejects_ragged_groups():
    with pytest.raises(ValueError, match="multiple of the group size"):
        group_advantages(T([1.0, 0, 0]), 2)


def test_inverse_success_scales_hard_groups_up_and_easy_groups_down():
    # group A: 1 success of 4 -> w = 3; group B: 3 of 4 -> w = 1; mean over informative groups 2
    success = T([1.0, 0, 0, 0, 1, 1, 1, 0])
    adv = group_advantages(success, 4)
    out = inverse_success_scale(adv, success, 4, alpha=1.0)
    expected = adv.clone()
    expected[0] *= 1.5
    expected[4:7] *= 0.5
    assert torch.allclose(out, expected)
    assert torch.equal(out[adv < 0], adv[adv < 0]), "negative advantages must stay as they are"


def test_inverse_success_alpha_zero_is_identity_and_uninformative_groups_do_not_count():
    success = T([1.0, 0, 0, 0, 1, 1, 1, 1, 0, 0, 0, 0])  # groups 2 and 3 carry no signal
    adv = group_advantages(success, 4)
    assert torch.allclose(inverse_success_scale(adv, success, 4, alpha=0.0), adv)
    # only group 1 is informative, so its weight renormalises to exactly 1
    assert torch.allclose(inverse_success_scale(adv, success, 4, alpha=2.0), adv)


@pytest.mark.parametrize("c,a_pos,a_neg", [
    (1, 1.0, -1.0 / 3.0),                                  # rho = 1/2, sigma = 1/2, C(2,1)/C(3,1) = 2/3
    (2, (1 / 6) / math.sqrt(5 / 36), -(1 / 6) / math.sqrt(5 / 36)),  # rho = 5/6
])
def test_passk_advantage_hand_computed_n4_k2(c, a_pos, a_neg):
    success = T([1.0] * c + [0.0] * (4 - c))
    adv = passk_advantages(success, 4, k=2)
    assert torch.allclose(adv, T([a_pos] * c + [a_neg] * (4 - c)), atol=1e-6)


def test_passk_advantage_matches_brute_force_over_k_subsets():
    """Analytic form == mean over k-subsets holding rollout i of (max reward - rho) / sigma."""
    n, k = 6, 3
    for c in range(1, n):
        r = [1.0] * c + [0.0] * (n - c)
        subsets = list(itertools.combinations(range(n), k))
        rho = sum(max(r[j] for j in s) for s in subsets) / len(subsets)
        sigma = math.sqrt(rho * (1 - rho))
        brute = []
        for i in range(n):
            mine = [s for s in subsets if i in s]
            brute.append(sum(max(r[j] for j in s) - rho for s in mine) / len(mine) / sigma if sigma > 1e-6 else 0.0)
        assert torch.allclose(passk_advantages(T(r), n, k), T(brute), atol=1e-5), f"c={c}"


def test_passk_advantage_zero_for_all_or_nothing_groups_and_k_checked():
    assert torch.equal(passk_advantages(T([0.0, 0, 0, 0, 1, 1, 1, 1]), 4, 2), torch.zeros(8))
    with pytest.raises(ValueError, match="k <= G-1"):
        passk_advantages(T([1.0, 0]), 2, 2)


def test_likelihood_rank_and_unlikeliness_reward():
    logp = T([-1.0, -3.0, -2.0, -0.5])
    assert likelihood_rank(logp, 4).tolist() == [2, 0, 1, 3]
    out = unlikeliness_rewards(T([1.0, 1, 0, 1]), logp, 4, beta=0.5)
    assert torch.allclose(out, T([1 - 0.5 * 2 / 4, 1.0, 0.0, 1 - 0.5 * 3 / 4]))


def test_per_token_kl_estimators():
    logps, ref = T([[-1.0, -2.0]]), T([[-2.0, -1.0]])
    assert torch.allclose(per_token_kl(logps, ref, "k1"), T([[1.0, -1.0]]))
    assert torch.allclose(per_token_kl(logps, ref, "k3"), T([[math.exp(-1), math.e - 2]]))
    with pytest.raises(ValueError, match="k1"):
        per_token_kl(logps, ref, "k2")


def test_sequence_kl_ignores_masked_tokens():
    logps, ref = T([[-1.0, -2.0, -5.0]]), T([[-2.0, -1.0, 0.0]])
    mask = T([[1.0, 1.0, 0.0]])
    out = sequence_kl(logps, ref, mask, estimator="k3")
    assert torch.allclose(out, T([math.exp(-1) + math.e - 2]))
