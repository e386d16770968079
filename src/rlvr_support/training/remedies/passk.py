"""Pass@k Training (Chen et al. 2025), `remedies.passk`: the analytic pass@k advantages of the group's binary
successes replace GRPO's group advantage (training/advantages.py `passk_advantages`).
"""

from __future__ import annotations

from rlvr_support.training import remedy_code
from rlvr_support.training.remedies.registry import Remedy, register


@register
class PassK(Remedy):
    name = "passk"

    @classmethod
    def check(cls, params: dict, group_size: int) -> None:
        if not 1 <= params["k"] <= group_size - 1:
            raise ValueError(f"remedies.passk.k must be in 1..group_size-1 = {group_size - 1}, got {params['k']}")

    def recomputes_advantages(self) -> bool:
        return True

    def replace_advantages(self, trainer, batch, rewards):
        adv = remedy_code.load(trainer.remedies, "advantages")
        return adv.passk_advantages(batch.success.float(), trainer.num_generations, self.params["k"]).to(rewards.device)
