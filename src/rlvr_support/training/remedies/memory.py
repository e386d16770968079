"""Distribution-level calibration ("When Sharpening Becomes Collapse"), `remedies.memory`: rollouts sample from
``policy_logits - mu * log q_mem``, q_mem a small GRU trained online by cross-entropy on past rollouts
(training/memory_net.py). Its logits processor runs in HF generate, so the fast sampler and vLLM do not draw
these rollouts.
"""

from __future__ import annotations

import torch

from rlvr_support.training import remedy_code
from rlvr_support.training.remedies.registry import Remedy, register


@register
class Memory(Remedy):
    name = "memory"
    shapes_rollouts = True
    samples_with_processors = True

    def setup(self, trainer) -> None:
        p = self.params
        memory_net = remedy_code.load(trainer.remedies, "memory_net")
        self.memory = memory_net.MemoryTrainer(len(trainer._tokenizer), p["hidden"], p["lr"], p["steps"],
                                               seed=trainer.args.seed)
        trainer._memory = self.memory  # tests read the network the sampling subtracts

    def logits_processors(self, trainer) -> list:
        if trainer.use_vllm:
            raise ValueError("memory-calibrated sampling needs the transformers generation path (use_vllm=False)")
        processor = remedy_code.load(trainer.remedies, "memory_net").MemoryLogitsProcessor
        memory, mu = self.memory, self.params["mu"]
        return [lambda width: processor(memory.net, mu, width)]

    def after_rollouts(self, trainer, completions: list[list[int]], prefixes: list[list[int]]) -> None:
        width = max(1, max(len(c) for c in completions))
        ids = torch.tensor([c + [0] * (width - len(c)) for c in completions])
        mask = torch.tensor([[1] * len(c) + [0] * (width - len(c)) for c in completions])
        trainer._metrics["train"]["memory/loss"].append(self.memory.update(ids, mask))
