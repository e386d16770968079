"""Asymmetric clipping (DAPO's clip-higher), `remedies.clip_higher`: TRL's own `epsilon` / `epsilon_high`."""

from __future__ import annotations

from rlvr_support.training.remedies.registry import Remedy, register


@register
class ClipHigher(Remedy):
    name = "clip_higher"

    @classmethod
    def grpo_kwargs(cls, params: dict) -> dict:
        return {"epsilon": params["epsilon_low"], "epsilon_high": params["epsilon_high"]}
