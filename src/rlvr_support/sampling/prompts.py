"""Prompts and requests as every backend takes them: a prompt is a string (tokenised as it is) or
exact token ids; a `Request` asks for n samples of each of its prompts."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence, Union

import torch

Prompt = Union[str, Sequence[int]]


def prompt_ids(tokenizer, prompts: Sequence[Prompt]) -> list[list[int]]:
    """Token ids of each prompt: a string through the tokenizer, ids as given."""
    return [tokenizer(p)["input_ids"] if isinstance(p, str) else [int(t) for t in p] for p in prompts]


def left_pad(ids: list[list[int]], pad_id: int) -> tuple[torch.Tensor, torch.Tensor]:
    """(ids, attention mask), both (P, longest prompt), prompts right-aligned as `generate` expects."""
    width = max(len(p) for p in ids)
    padded = torch.tensor([[pad_id] * (width - len(p)) + list(p) for p in ids], dtype=torch.long)
    mask = torch.tensor([[0] * (width - len(p)) + [1] * len(p) for p in ids])
    return padded, mask


@dataclass(frozen=True)
class Request:
    """n samples for each of `prompts` with one seed; `prompt_offset` is the first prompt's
    index in the whole eval set (vLLM seeds each prompt by it, so shards agree). Samples from
    `token_arrays` on come back without per-token log-probs and entropies (their token ids
    stay, for the text), which keeps thousands of samples per prompt in memory."""

    prompts: Sequence[Prompt]
    n: int
    temperature: float
    top_p: float
    max_new_tokens: int
    seed: int
    prompt_offset: int = 0
    token_arrays: int | None = None  # samples 0..K-1 of a prompt keep log-probs and entropies; None: all
