"""Distribution-level calibration ("When Sharpening Becomes Collapse"): a memory network.

A small recurrent LM over completion tokens is trained online, by cross-entropy, on the rollouts
the policy has already produced, so it learns what the policy keeps sampling. Rollouts are then
drawn from ``policy_logits - mu * memory_logprobs`` (a product of experts pi * q_mem**-mu,
renormalised by the softmax): continuations the memory predicts well, i.e. modes already
visited, are damped, which diversifies sampling.

The paper gives no architecture; this one is a GRU over the completion so far (prompt-free, so
it remembers *what* gets generated, across prompts), with its own Adam optimiser. The memory
uses log-probabilities, not raw logits, so mu is on the scale of a log-likelihood ratio.
"""

from __future__ import annotations

import torch
from torch import nn


class MemoryNet(nn.Module):
    """GRU LM: ``log q(x_t | x_<t)`` over the completion tokens; a learned start state."""

    def __init__(self, vocab_size: int, hidden: int = 64):
        super().__init__()
        self.vocab_size = vocab_size
        self.embed = nn.Embedding(vocab_size + 1, hidden)  # the extra id is the start symbol
        self.rnn = nn.GRU(hidden, hidden, batch_first=True)
        self.head = nn.Linear(hidden, vocab_size)

    def forward(self, tokens: torch.Tensor) -> torch.Tensor:
        """Log-probabilities (B, T+1, V): position t predicts token t given tokens < t."""
        start = torch.full((tokens.shape[0], 1), self.vocab_size, dtype=torch.long, device=tokens.device)
        h, _ = self.rnn(self.embed(torch.cat([start, tokens], dim=1)))
        return torch.log_softmax(self.head(h), dim=-1)

    def next_logprobs(self, completion_so_far: torch.Tensor) -> torch.Tensor:
        """(B, V): the memory's next-token log-probabilities after the given completion prefix."""
        return self.forward(completion_so_far)[:, -1]


def memory_loss(memory: MemoryNet, completions: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """Mean token cross-entropy of the memory on completions (B, T) where mask is 1."""
    logp = memory(completions)[:, :-1]
    nll = -logp.gather(-1, completions.unsqueeze(-1)).squeeze(-1)
    return (nll * mask).sum() / mask.sum().clamp(min=1)


class MemoryTrainer:
    """Owns the memory and its optimiser; `update` takes `steps` gradient steps on a batch of rollouts."""

    def __init__(self, vocab_size: int, hidden: int = 64, lr: float = 1e-2, steps: int = 1, seed: int = 0):
        gen = torch.random.fork_rng()  # the memory's init must not shift the policy's random stream
        with gen:
            torch.manual_seed(seed)
            self.net = MemoryNet(vocab_size, hidden)
        self.opt = torch.optim.Adam(self.net.parameters(), lr=lr)
        self.steps = steps

    def update(self, completions: torch.Tensor, mask: torch.Tensor) -> float:
        self.net.train()
        loss = torch.tensor(float("nan"))
        for _ in range(self.steps):
            self.opt.zero_grad()
            loss = memory_loss(self.net, completions, mask.float())
            loss.backward()
            self.opt.step()
        self.net.eval()
        return float(loss.detach())


class MemoryLogitsProcessor:
    """A `transformers` logits processor: ``scores - mu * log q_mem(. | completion so far)``.

    `prompt_len` is the (padded) prompt length of the batch being generated, so the memory sees
    only generated tokens. It must see scores after temperature (``logits / T - mu * log q``);
    `generate` runs a caller's processors before its temperature warper, so the trainer puts a
    TemperatureLogitsWarper ahead of this one (training/trainer.py `_sample_continuations`).
    """

    def __init__(self, memory: MemoryNet, mu: float, prompt_len: int):
        self.memory, self.mu, self.prompt_len = memory, mu, prompt_len

    @torch.no_grad()
    def __call__(self, input_ids: torch.Tensor, scores: torch.Tensor) -> torch.Tensor:
        completion = input_ids[:, self.prompt_len:]
        mem = self.memory.next_logprobs(completion.to(next(self.memory.parameters()).device))
        vocab = min(scores.shape[-1], mem.shape[-1])
        out = scores.clone()
        out[:, :vocab] = scores[:, :vocab] - self.mu * mem[:, :vocab].to(device=scores.device, dtype=scores.dtype)
        return out
