"""Teacher-forced next-token distributions over response positions (one forward pass per batch).

A response position t of a sequence (prompt p, response r) is the distribution that
predicts r[t] from p + r[:t]; with the eos token appended to finished responses, the
last position is the one that predicts eos.  Prompts are tokenised exactly as the sampler
and the pretraining corpus do (`tokenizer(prompt)` with its special tokens), responses
as token ids, so the distributions are those the policy sampled from (temperature 1).
"""

from __future__ import annotations

import torch


def response_ids(token_ids, finish_reason: str, eos_id: int) -> list[int]:
    """A sampled response as the policy produced it: its tokens, plus eos when it stopped."""
    ids = [int(t) for t in token_ids]
    return ids + [eos_id] if finish_reason == "stop" else ids


@torch.no_grad()
def response_logprobs(model, prompt_ids: list[list[int]], resp_ids: list[list[int]], pad_id: int
                      ) -> tuple[torch.Tensor, torch.Tensor]:
    """``(logprobs (B, T, V), mask (B, T))`` for response positions 0..len(resp)-1 of each sequence.

    Right padding: positions of real tokens keep their default position ids, so the result
    equals an unpadded forward pass.  T is the longest response in the batch.  Everything
    stays on the model's device (a GPU job moves only what it reports to the CPU).
    """
    if len(prompt_ids) != len(resp_ids) or not resp_ids:
        raise ValueError("need one response per prompt and at least one sequence")
    seqs = [p + r[:-1] for p, r in zip(prompt_ids, resp_ids)]  # the last target needs no input
    width = max(len(s) for s in seqs)
    device = next(model.parameters()).device
    inp = torch.full((len(seqs), width), pad_id, dtype=torch.long)
    att = torch.zeros((len(seqs), width), dtype=torch.long)
    for i, s in enumerate(seqs):
        inp[i, :len(s)] = torch.tensor(s, dtype=torch.long)
        att[i, :len(s)] = 1
    logits = model(input_ids=inp.to(device), attention_mask=att.to(device)).logits
    T = max(len(r) for r in resp_ids)
    out = torch.full((len(seqs), T, logits.shape[-1]), float("nan"), device=device)
    mask = torch.zeros((len(seqs), T), dtype=torch.bool, device=device)
    for i, (p, r) in enumerate(zip(prompt_ids, resp_ids)):
        start = len(p) - 1  # the logits at the prompt's last token predict response token 0
        out[i, :len(r)] = torch.log_softmax(logits[i, start:start + len(r)].float(), dim=-1)  # fp32 even for bf16 weights
        mask[i, :len(r)] = True
    out[~mask] = 0.0  # padded positions: a harmless placeholder, masked everywhere downstream
    return out, mask
