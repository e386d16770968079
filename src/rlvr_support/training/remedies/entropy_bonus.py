"""Entropy bonus in the loss, `remedies.entropy_bonus`: TRL's own `entropy_coef`."""

from __future__ import annotations

from rlvr_support.training.remedies.registry import Remedy, register


@register
class EntropyBonus(Remedy):
    name = "entropy_bonus"

    @classmethod
    def grpo_kwargs(cls, params: dict) -> dict:
        return {"entropy_coef": params["coef"]}
