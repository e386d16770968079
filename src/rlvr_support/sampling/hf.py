"""Repeated sampling with Hugging Face `generate`: batched, KV cache, left padding.

Per generated token we keep its log-probability and the entropy of the model's next-token
distribution at the sampling temperature (before top-p truncation), so that token-level
entropy and likelihood analyses need no second forward pass.
"""

from __future__ import annotations

import torch
from tqdm import tqdm

from rlvr_support.sampling.prompts import Prompt, left_pad, prompt_ids


def sample_row(tokenizer, seq: list[int], length: int, logprobs: list[float], entropies: list[float],
               prompt_index: int, sample_idx: int) -> dict:
    """One sample as every backend stores it; `length` counts the eos token, the text excludes it."""
    finished = seq[length - 1] == tokenizer.eos_token_id
    ids = seq[:length - 1] if finished else seq[:length]
    return {
        "prompt_index": prompt_index,
        "sample_idx": sample_idx,
        "token_ids": ids,
        "text": tokenizer.decode(ids, skip_special_tokens=True),
        "n_tokens": length,
        "finish_reason": "stop" if finished else "length",
        "token_logprobs": logprobs,
        "token_entropies": entropies,
    }


@torch.no_grad()
def generate_hf(model, tokenizer, prompts: list[Prompt], *, n: int, temperature: float, top_p: float,
                max_new_tokens: int, seed: int, prompt_batch: int = 16) -> list[dict]:
    """Return n samples for each prompt (text or token ids) as dicts (prompt_index, sample_idx, token_ids, ...), in prompt order."""
    torch.manual_seed(seed)
    greedy = temperature == 0
    if greedy and n > 1:
        raise ValueError("greedy decoding (temperature 0) gives one sample per prompt; set n: 1")
    eos = tokenizer.eos_token_id
    rows: list[dict] = []
    for start in tqdm(range(0, len(prompts), prompt_batch), desc="sample", mininterval=5):
        chunk = prompts[start:start + prompt_batch]
        ids, mask = left_pad(prompt_ids(tokenizer, chunk), tokenizer.pad_token_id)
        ids, mask = ids.to(model.device), mask.to(model.device)
        out = model.generate(
            input_ids=ids, attention_mask=mask, do_sample=not greedy, temperature=None if greedy else temperature,
            top_p=None if greedy else top_p, top_k=None, max_new_tokens=max_new_tokens,
            num_return_sequences=1 if greedy else n, output_logits=True, return_dict_in_generate=True,
            pad_token_id=tokenizer.pad_token_id, eos_token_id=eos,
        )
        new = out.sequences[:, ids.shape[1]:]
        logits = torch.stack(out.logits, dim=1).float()  # (B, T, V), raw
        logp = torch.log_softmax(logits / (1.0 if greedy else temperature), dim=-1)
        tok_logp = logp.gather(-1, new.unsqueeze(-1)).squeeze(-1)
        entropy = -(logp.exp() * logp.clamp_min(-1e30)).sum(-1)
        per_prompt = 1 if greedy else n
        for b in range(new.shape[0]):
            seq = new[b].tolist()
            length = seq.index(eos) + 1 if eos in seq else len(seq)
            rows.append(sample_row(tokenizer, seq, length, tok_logp[b, :length].tolist(),
                                   entropy[b, :length].tolist(), start + b // per_prompt, b % per_prompt))
    return rows
