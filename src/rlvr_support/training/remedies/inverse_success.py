"""Inverse-success advantage calibration ("When Sharpening Becomes Collapse"), `remedies.inverse_success`:
positive advantages of a group with |S+| successes scaled by ``(G - |S+|)**alpha``, renormalised
(training/advantages.py `inverse_success_scale`).
"""

from __future__ import annotations

from rlvr_support.training import remedy_code
from rlvr_support.training.remedies.registry import Remedy, register


@register
class InverseSuccess(Remedy):
    name = "inverse_success"

    def recomputes_advantages(self) -> bool:
        return True

    def scale_advantages(self, trainer, batch, advantages):
        adv = remedy_code.load(trainer.remedies, "advantages")
        return adv.inverse_success_scale(advantages, batch.success.float(), trainer.num_generations,
                                         self.params["alpha"])
