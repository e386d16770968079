"""KL to the stage's starting checkpoint (the reference), `remedies.kl`.

``where: loss`` + ``estimator: k3`` is TRL's own beta term (GRPOConfig.beta, TRL's ref_model); ``where: loss``
+ ``k1`` adds ``beta * mean_t(log pi - log ref)`` to the loss; its expected gradient is zero on on-policy
samples (Tang & Munos 2025), kept because papers report it. ``where: reward`` subtracts ``beta * sum_t kl_t``
from each rollout's reward before the group advantage (the classic RLHF form). ``reset_every: N`` sets
reference := current policy every N steps, and ``reset_optimizer`` also clears Adam's moments then.
"""

from __future__ import annotations

from rlvr_support.training import remedy_code
from rlvr_support.training.frozen import copy_weights, uses_trl_kl
from rlvr_support.training.remedies.registry import Remedy, register


@register
class KL(Remedy):
    name = "kl"

    def __init__(self, params: dict):
        super().__init__(params)
        self.last_reset_step = 0

    @classmethod
    def validate(cls, params: dict) -> None:
        if params["estimator"] not in ("k1", "k3") or params["where"] not in ("loss", "reward"):
            raise ValueError(f"remedies.kl: estimator must be k1|k3 and where loss|reward, got {params}")

    @classmethod
    def grpo_kwargs(cls, params: dict) -> dict:
        return {"beta": params["beta"]} if uses_trl_kl({"kl": params}) else {}

    def before_rollouts(self, trainer) -> None:
        kl, step = self.params, trainer.state.global_step
        if kl["reset_every"] <= 0 or step == 0 or step % kl["reset_every"] or step == self.last_reset_step:
            return
        ref = trainer.kl_reference()
        if ref is not None:  # None: TRL's k3 term with beta 0 has no reference to reset
            copy_weights(trainer.accelerator.unwrap_model(trainer.model), ref)
        if kl["reset_optimizer"] and trainer.optimizer is not None:
            opt = getattr(trainer.optimizer, "optimizer", trainer.optimizer)
            opt.state.clear()  # Adam re-initialises its moments lazily on the next step
        self.last_reset_step = step
        trainer._metrics["train"]["kl/reference_resets"].append(1.0)

    def after_scoring(self, trainer, out: dict) -> None:
        if not uses_trl_kl({"kl": self.params}):  # TRL computes its own reference log-probs for its k3 term
            out["ref_logps_remedy"] = trainer._logps(trainer.kl_reference(), out)

    def recomputes_advantages(self) -> bool:
        return self.params["where"] == "reward"

    def needs_policy_logps(self) -> bool:
        return self.params["where"] == "reward"

    def shape_rewards(self, trainer, batch, rewards):
        k = self.params
        if k["where"] != "reward":
            return rewards
        adv = remedy_code.load(trainer.remedies, "advantages")
        per_seq = adv.sequence_kl(batch.policy_logps, batch.out["ref_logps_remedy"], batch.mask, k["estimator"])
        per_seq = trainer.accelerator.gather(per_seq)
        rewards = rewards - k["beta"] * per_seq
        metrics = trainer._metrics["train"]
        metrics["kl"].append(float(per_seq.mean() / max(float(batch.mask.sum(dim=1).mean()), 1.0)))
        metrics["kl/reward_penalty"].append(float(k["beta"] * per_seq.mean()))
        return rewards

    def adds_loss_term(self) -> bool:
        return self.params["where"] == "loss" and self.params["estimator"] == "k1"

    def loss_term(self, trainer, inputs: dict, logps):
        mask = inputs["completion_mask"] * inputs.get("tool_mask", 1)
        adv = remedy_code.load(trainer.remedies, "advantages")
        per_tok = adv.per_token_kl(logps, inputs["ref_logps_remedy"], "k1")
        term = ((per_tok * mask).sum(-1) / mask.sum(-1).clamp(min=1.0)).mean()
        mode = "train" if trainer.model.training else "eval"
        # TRL divides each micro-batch's loss by the accumulation steps in training
        normalizer = trainer.current_gradient_accumulation_steps if mode == "train" else 1.0
        trainer._metrics[mode]["kl"].append(float(term.detach()))
        return self.params["beta"] * term / normalizer
