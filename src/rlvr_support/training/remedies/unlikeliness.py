"""Unlikeliness reward (He et al. 2025, "Rewarding the Unlikely"), `remedies.unlikeliness`: each reward times
``1 - beta * rank / G``, rank by the rollout's sequence likelihood in its group, so among equally correct
rollouts the likely ones earn less (training/advantages.py `unlikeliness_rewards`).
"""

from __future__ import annotations

from rlvr_support.training import remedy_code
from rlvr_support.training.remedies.registry import Remedy, register


@register
class Unlikeliness(Remedy):
    name = "unlikeliness"

    @classmethod
    def check(cls, params: dict, group_size: int) -> None:
        if not 0 <= params["beta"] <= 1:
            raise ValueError("remedies.unlikeliness.beta must be in [0, 1]")

    def recomputes_advantages(self) -> bool:
        return True

    def needs_policy_logps(self) -> bool:
        return True

    def shape_rewards(self, trainer, batch, rewards):
        adv = remedy_code.load(trainer.remedies, "advantages")
        seq = trainer.accelerator.gather((batch.policy_logps * batch.mask).sum(dim=1))  # the rank is within a group
        return adv.unlikeliness_rewards(rewards, seq, trainer.num_generations, self.params["beta"])
