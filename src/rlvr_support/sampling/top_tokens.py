"""The k most likely next tokens after each prompt, for a model loaded in this process (the
single-token intervention's top-2 condition; on vLLM, `Sampler.top_tokens` reads them from the
first step's returned log-probs instead).

Its own module, apart from sampling/local.py, which the training stage imports: an edit here
retrains nothing (lineage/codehash.py follows imports)."""

from __future__ import annotations

import torch

from rlvr_support.sampling.prompts import Prompt, left_pad, prompt_ids


@torch.no_grad()
def top_tokens_local(model, tokenizer, prompts: list[Prompt], k: int, *, prompt_batch: int = 16) -> list[list[int]]:
    """The k most likely next tokens after each prompt (text or ids), most likely first: one forward
    pass of the loaded model (any device), positions from the attention mask as `generate` sets them."""
    out = []
    for start in range(0, len(prompts), prompt_batch):
        ids, mask = left_pad(prompt_ids(tokenizer, prompts[start:start + prompt_batch]), tokenizer.pad_token_id)
        ids, mask = ids.to(model.device), mask.to(model.device)
        positions = (mask.long().cumsum(-1) - 1).clamp_min(0)
        logits = model(input_ids=ids, attention_mask=mask, position_ids=positions).logits[:, -1]
        out += logits.float().topk(k, dim=-1).indices.tolist()
    return out
