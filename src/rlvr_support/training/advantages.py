"""Group advantages and reward shaping for GRPO-family training: small pure functions.

Every function takes a group-major layout: rewards of shape (N, G), N prompts with G rollouts
each (TRL's order: the G rollouts of a prompt are contiguous). Torch tensors in, tensors out, so
the trainer calls them on the device without copies; tests call them on hand-made groups.

Sources
- GRPO advantage: Shao et al. 2024 (DeepSeekMath), ``A_i = (r_i - mean(r)) / (std(r) + eps)``;
  TRL's `scale_rewards` ("group" | "batch" | "none") decides the denominator.
- Inverse-success calibration: "When Sharpening Becomes Collapse": positive
  advantages of a group with |S+| successes are scaled by ``(G - |S+|)**alpha`` so hard prompts
  (few successes) weigh more; the scales are renormalised to mean 1 over the groups that carry
  a learning signal, so alpha changes the balance between prompts, not the step size.
- Pass@k advantage: Chen et al. 2025, "Pass@k Training for Adaptively Balancing Exploration and
  Exploitation", analytic form: with n rollouts, c correct and rho = pass@k of the group,
  ``A+ = (1 - rho) / sigma``, ``A- = (1 - rho - C(n-c-1, k-1) / C(n-1, k-1)) / sigma``,
  ``sigma = sqrt(rho (1 - rho))``.
- Unlikeliness reward: He et al. 2025, "Rewarding the Unlikely": ``r_i <- r_i (1 - beta rank_i / G)``
  with rank_i the rank of rollout i's sequence likelihood in its group (0 = least likely,
  G-1 = most likely), so among equally correct rollouts the likely ones earn less.
- KL in the reward: ``r_i <- r_i - beta * sum_t kl_t`` with the k1 (``log pi - log ref``) or k3
  (``exp(ref - pi) - (ref - pi) - 1``) per-token estimator (Schulman 2020, "Approximating KL").
"""

from __future__ import annotations

import math

import torch

EPS = 1e-4  # TRL's denominator guard, so our advantages equal TRL's when no remedy is on


def _grouped(x: torch.Tensor, group_size: int) -> torch.Tensor:
    if x.dim() != 1 or x.numel() % group_size:
        raise ValueError(f"expected a flat tensor whose length is a multiple of the group size {group_size}, "
                         f"got shape {tuple(x.shape)}")
    return x.view(-1, group_size)


def group_advantages(rewards: torch.Tensor, group_size: int, scale: str = "group") -> torch.Tensor:
    """GRPO advantages of flat rewards (N*G,): ``(r - group mean) / (std + 1e-4)``.

    `scale`: "group" divides by the group's std, "batch" by the batch std, "none" not at all
    (Dr. GRPO). std is the unbiased sample std, as in TRL.
    """
    g = _grouped(rewards, group_size)
    centred = (g - g.mean(dim=1, keepdim=True)).reshape(-1)
    if scale == "none":
        return centred
    if scale == "group":
        std = g.std(dim=1, keepdim=True).expand_as(g).reshape(-1)
    elif scale == "batch":
        std = rewards.std().expand_as(rewards)
    else:
        raise ValueError(f"scale must be 'group', 'batch' or 'none', got {scale!r}")
    return centred / (std + EPS)


def inverse_success_scale(advantages: torch.Tensor, success: torch.Tensor, group_size: int,
                          alpha: float) -> torch.Tensor:
    """Scale positive advantages by ``w_g = (G - |S+|_g)**alpha``, w renormalised to mean 1.

    The mean is taken over the groups that hold both successes and failures (the only ones with
    non-zero GRPO advantages); negative advantages are left as they are.
    """
    a = _grouped(advantages, group_size)
    s = _grouped(success.to(advantages.dtype), group_size).sum(dim=1)
    w = (group_size - s).clamp(min=0) ** alpha
    informative = (s > 0) & (s < group_size)
    if informative.any():
        w = w / w[informative].mean()
    w = w.unsqueeze(1).expand_as(a)
    return torch.where(a > 0, a * w, a).reshape(-1)


def _comb(n: int, k: int) -> float:
    return float(math.comb(n, k)) if 0 <= k <= n else 0.0


def passk_advantages(success: torch.Tensor, group_size: int, k: int, eps: float = 1e-6) -> torch.Tensor:
    """Analytic pass@k advantages (Chen et al. 2025) of binary successes (N*G,).

    A group with no success or with only successes gets advantage 0 (sigma = 0: no signal).
    """
    if not 1 <= k <= group_size - 1:
        raise ValueError(f"pass@k advantage needs 1 <= k <= G-1, got k={k}, G={group_size}")
    n = group_size
    s = _grouped(success, group_size).bool()
    out = torch.zeros(s.shape, dtype=torch.float32, device=success.device)
    for row in range(s.shape[0]):
        c = int(s[row].sum())
        rho = 1.0 - _comb(n - c, k) / _comb(n, k)
        sigma = math.sqrt(rho * (1.0 - rho))
        if sigma < eps:
            continue
        a_pos = (1.0 - rho) / sigma
        a_neg = (1.0 - rho - _comb(n - c - 1, k - 1) / _comb(n - 1, k - 1)) / sigma
        out[row] = torch.where(s[row], torch.tensor(a_pos), torch.tensor(a_neg))
    return out.reshape(-1)


def likelihood_rank(seq_logprob: torch.Tensor, group_size: int) -> torch.Tensor:
    """Rank of each rollout's sequence log-likelihood within its group: 0 = least likely.

    Ties are broken by position (stable sort), so the ranks of a group are a permutation of 0..G-1.
    """
    g = _grouped(seq_logprob, group_size)
    order = torch.argsort(g, dim=1, stable=True)
    ranks = torch.empty_like(order)
    ranks.scatter_(1, order, torch.arange(group_size, device=g.device).expand_as(order).contiguous())
    return ranks.reshape(-1)


def unlikeliness_rewards(rewards: torch.Tensor, seq_logprob: torch.Tensor, group_size: int,
                         beta: float) -> torch.Tensor:
    """``r_i (1 - beta * rank_i / G)``: the likelier a rollout in its group, the smaller its reward."""
    rank = likelihood_rank(seq_logprob, group_size).to(rewards.dtype)
    return rewards * (1.0 - beta * rank / group_size)


def per_token_kl(logps: torch.Tensor, ref_logps: torch.Tensor, estimator: str) -> torch.Tensor:
    """Per-token estimate of KL(pi || ref) on tokens sampled from pi.

    k1 = ``log pi - log ref`` (unbiased, high variance, can be negative);
    k3 = ``exp(ref - pi) - (ref - pi) - 1`` (unbiased, always >= 0; TRL's `beta` term).
    """
    d = ref_logps - logps
    if estimator == "k1":
        return -d
    if estimator == "k3":
        return torch.exp(d) - d - 1.0
    raise ValueError(f"KL estimator must be 'k1' or 'k3', got {estimator!r}")


def sequence_kl(logps: torch.Tensor, ref_logps: torch.Tensor, mask: torch.Tensor, estimator: str) -> torch.Tensor:
    """``sum_t kl_t`` over each rollout's unmasked completion tokens: the KL-in-reward penalty's
    per-rollout term (``r_i - beta * sequence_kl_i``; the trainer gathers it across processes first)."""
    return (per_token_kl(logps, ref_logps, estimator) * mask).sum(dim=1)
