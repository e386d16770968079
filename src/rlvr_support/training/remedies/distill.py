"""On-policy distillation, `remedies.distill`: per-token reverse KL to the teacher on the student's own samples,
as a per-token reward ``-coef * (log pi(x_t) - log teacher(x_t))`` added to the advantage (the score-function
gradient of ``coef * KL(pi || teacher)``, as in on-policy distillation, Agarwal et al. 2024).

The teacher is the stage's starting checkpoint, or another given by path; the trainer loads it with the other
frozen models (training/frozen.py, which the planner counts).
"""

from __future__ import annotations

from rlvr_support.training.remedies.registry import Remedy, register


@register
class Distill(Remedy):
    name = "distill"

    def recomputes_advantages(self) -> bool:
        return True

    def needs_policy_logps(self) -> bool:
        return True

    def token_advantages(self, trainer, batch, advantages):
        teacher_logps = trainer._logps(trainer._teacher, batch.out)
        rkl = (batch.policy_logps - teacher_logps) * batch.mask
        trainer._metrics["train"]["distill/reverse_kl"].append(float(rkl.sum() / batch.mask.sum().clamp(min=1)))
        return advantages.unsqueeze(1) - self.params["coef"] * rkl
