"""Prompts as every backend takes them: a string (tokenised as it is) or exact token ids."""

from __future__ import annotations

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
