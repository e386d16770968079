"""The routing prior at sampling time (the support-reshaping paper's mitigation, measured directly on best@k).

Each of the n samples of a prompt is routed with probability gamma: its first m tokens come
from the reference policy (by default the base), then the policy continues. Unrouted samples
are the policy's own. Routed tokens keep the reference's log-probs and entropies (they were
sampled from it); `routed_tokens` says how many tokens of each sample were routed.

Policy and reference are `Sampler`s of the configured backend (sampling/backends.py): the
prefixes are a plain request to the reference, the continuations a token-id request
(prompt ids + prefix ids) to the policy, so routing runs on hf, the fast sampler or vLLM.
"""

from __future__ import annotations

import torch

from rlvr_support.sampling.backends import Request, Sampler
from rlvr_support.sampling.prompts import prompt_ids


def generate_routed(policy: Sampler, reference: Sampler, prompts: list[str], *, gamma: float, tokens: int, n: int,
                    temperature: float, top_p: float, max_new_tokens: int, seed: int) -> list[dict]:
    if not 0 <= gamma <= 1 or tokens < 1 or tokens >= max_new_tokens:
        raise ValueError(f"routing needs 0 <= gamma <= 1 and 1 <= tokens < max_new_tokens, "
                         f"got gamma={gamma}, tokens={tokens}, max_new_tokens={max_new_tokens}")
    routed = torch.rand(len(prompts), n, generator=torch.Generator().manual_seed(seed)) < gamma
    kw = dict(temperature=temperature, top_p=top_p)
    ids_of = prompt_ids(policy.tokenizer, prompts)  # policy and reference share the tokenizer
    prefix = {(r["prompt_index"], r["sample_idx"]): r for r in
              reference.generate(Request(ids_of, n=n, max_new_tokens=tokens, seed=seed + 1, **kw))}

    plain_ids, routed_ids = {}, {}
    for p, ids in enumerate(ids_of):
        for j in range(n):
            pre = prefix[(p, j)]
            if not routed[p, j]:
                plain_ids[f"{p}:{j}"] = ids
            elif pre["finish_reason"] != "stop":  # a routed prefix that ended the response needs no policy
                routed_ids[f"{p}:{j}"] = ids + pre["token_ids"]
    requests = [(keys, Request(list(keys.values()), n=1, max_new_tokens=budget, seed=s, **kw))
                for keys, budget, s in ((plain_ids, max_new_tokens, seed + 2),
                                        (routed_ids, max_new_tokens - tokens, seed + 3)) if keys]
    cont = {}
    for (keys, _), rows in zip(requests, policy.generate_many([r for _, r in requests])):
        cont.update({k: r for k, r in zip(keys, rows)})

    out = []
    for p in range(len(prompts)):
        for j in range(n):
            key, pre = f"{p}:{j}", prefix[(p, j)]
            if not routed[p, j]:
                row = dict(cont[key], routed_tokens=0)
            elif key not in cont:  # the routed prefix ended the response by itself
                row = dict(pre, routed_tokens=len(pre["token_ids"]))
            else:  # the prefix ran to `tokens` (no eos); the policy's continuation follows
                c = cont[key]
                ids = pre["token_ids"] + c["token_ids"]
                row = {
                    "token_ids": ids,
                    "text": policy.tokenizer.decode(ids, skip_special_tokens=True),
                    "n_tokens": pre["n_tokens"] + c["n_tokens"],
                    "finish_reason": c["finish_reason"],
                    "token_logprobs": pre["token_logprobs"] + c["token_logprobs"],
                    "token_entropies": pre["token_entropies"] + c["token_entropies"],
                    "routed_tokens": len(pre["token_ids"]),
                }
            row.update(prompt_index=p, sample_idx=j)
            out.append(row)
    return out
