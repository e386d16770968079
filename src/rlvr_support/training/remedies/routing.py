"""Routing prior in training, `remedies.routing`: with probability gamma the first m tokens (``tokens``) of a
rollout come from the reference policy (the stage's starting checkpoint), the policy continues. Routed tokens
are off-policy for pi, so they are masked from the loss, through TRL's `tool_mask` (which already removes tokens
from the loss).
"""

from __future__ import annotations

import torch

from rlvr_support.training.remedies.registry import Remedy, register


@register
class Routing(Remedy):
    name = "routing"
    shapes_rollouts = True

    @classmethod
    def check(cls, params: dict, group_size: int) -> None:
        if not 0 <= params["gamma"] <= 1:
            raise ValueError("remedies.routing.gamma must be in [0, 1]")

    def setup(self, trainer) -> None:
        # its own generator: which rollouts are routed does not move the global RNG the rollouts draw from
        self.generator = torch.Generator().manual_seed(trainer.args.seed + 7919)
        trainer._routed_len = None  # each rollout's routed prefix length (tests read it)

    def rollout_prefixes(self, trainer, prompt_ids: list[list[int]], max_len: int) -> dict[int, list[int]]:
        gamma, m = self.params["gamma"], self.params["tokens"]
        routed = (torch.rand(len(prompt_ids), generator=self.generator) < gamma).nonzero().flatten().tolist()
        ref_prefix = trainer._sample_continuations(trainer._ref, [prompt_ids[i] for i in routed], min(m, max_len))
        return dict(zip(routed, ref_prefix))

    def after_rollouts(self, trainer, completions: list[list[int]], prefixes: list[list[int]]) -> None:
        trainer._routed_len = [len(p) for p in prefixes]

    def after_scoring(self, trainer, out: dict) -> None:
        if trainer._routed_len is None:
            return
        metrics = trainer._metrics["train"]
        mask = out["completion_mask"].float()
        pos = torch.arange(mask.shape[1], device=mask.device).unsqueeze(0)
        routed = torch.tensor(trainer._routed_len, device=mask.device).unsqueeze(1)
        keep = (pos >= routed).to(out["completion_mask"].dtype)
        out["tool_mask"] = keep if "tool_mask" not in out else out["tool_mask"] * keep
        loss_mask = out["completion_mask"] * out["tool_mask"]
        out["num_items_in_batch"] = trainer.accelerator.gather(loss_mask.sum()).sum()
        metrics["routing/routed_frac"].append(float((routed > 0).float().mean()))
        metrics["routing/masked_tokens"].append(float((out["completion_mask"] * (1 - keep)).sum()))
