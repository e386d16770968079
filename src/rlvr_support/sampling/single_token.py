"""Single-token interventions (the support-reshaping paper's single-token table): change one response token, let the
model write the rest, and see what that one token does to best@k and to the opening mode.

For a recipient R and a donor D (another checkpoint with the same tokenizer), per prompt, n samples
in each condition:

* `own`: R's own samples, no intervention;
* `swap` at position t (1-based): R's own sample j up to token t - 1, then token t drawn by D given
  the prompt and those tokens, then R writes the rest. t = 1 forces only the first response token,
  drawn from D's first-token distribution; the sweep t = 1, 2, 4, 8 shows how the effect of one
  token fades with its depth. Sample j of every swap shares its prefix with R's own sample j, so
  a swap and `own` differ in that one token and what follows (a paired comparison). A sample whose
  own response ended before position t is kept as it is (`swapped` False);
* `top2`: the first token drawn uniformly from R's two most likely first tokens, then R writes the
  rest: does any change of the first token matter, or only the donor's choice of it?

A donor token that is the end-of-sequence token ends the response there. `own_token` is R's token
at the swapped position (-1 where R had ended), `forced_token` the one put in its place, so the
share of swaps that changed the token is known. Where the token put in is R's own, the sample stays
R's own sample: its continuation is a draw from the very distribution a new one would come from, and
keeping it makes the comparison with `own` exact there, so a difference comes from changed tokens
only, not from drawing the rest again (common random numbers). Everything goes through Sampler requests (token ids
in, rows out), so it runs on hf, the fast CPU sampler or vLLM; all requests of one step are sent at
once (vLLM starts one engine per step).
"""

from __future__ import annotations

import torch

from rlvr_support.sampling.backends import Request, Sampler

CONDITIONS = ("own", "swap", "top2")


def check_positions(positions: list[int], max_new_tokens: int) -> None:
    if not positions or any(t < 1 for t in positions) or max(positions) >= max_new_tokens:
        raise ValueError(f"single-token positions must be 1 <= t < max_new_tokens ({max_new_tokens}), "
                         f"got {positions}")


def generate_single_token(recipient: Sampler, donor: Sampler, prompts: list[list[int]], *, positions: list[int],
                          n: int, temperature: float, top_p: float, max_new_tokens: int, seed: int) -> list[dict]:
    """Rows (condition, position, prompt_index, sample_idx, token_ids, n_tokens, finish_reason, swapped,
    own_token, forced_token) for every condition; `prompts` are token ids (R and D share the tokenizer).
    `position` is 0 for `own`, 1 for `top2`."""
    check_positions(positions, max_new_tokens)
    kw = dict(temperature=temperature, top_p=top_p, token_arrays=0)  # no per-token arrays: not read
    eos = recipient.tokenizer.eos_token_id
    own = recipient.generate(Request(prompts, n=n, max_new_tokens=max_new_tokens, seed=seed, **kw))
    own = {(r["prompt_index"], r["sample_idx"]): r for r in own}
    # R's tokens with its eos, if it wrote one: built once, read for every position and condition
    mine_of = {k: list(r["token_ids"]) + ([eos] if r["finish_reason"] == "stop" else []) for k, r in own.items()}

    # the tokens put in: D's draw at each swapped position, R's top-2 choice at the first
    forced: dict[tuple, int] = {}
    swaps = [(p, j, t) for t in positions for p in range(len(prompts)) for j in range(n)
             if len(mine_of[(p, j)]) >= t]  # R's response reached position t
    if swaps:
        drawn = donor.generate(Request([prompts[p] + mine_of[(p, j)][:t - 1] for p, j, t in swaps], n=1,
                                       max_new_tokens=1, seed=seed + 1, **kw))
        for (p, j, t), r in zip(swaps, drawn):
            forced[("swap", p, j, t)] = r["token_ids"][0] if r["token_ids"] else eos
    top2 = recipient.top_tokens(prompts, 2)
    pick = torch.randint(0, 2, (len(prompts), n), generator=torch.Generator().manual_seed(seed + 2)).tolist()
    for p in range(len(prompts)):
        for j in range(n):
            forced[("top2", p, j, 1)] = int(top2[p][pick[p][j]])

    def same(key) -> bool:  # the token put in is R's own: the sample stays R's own
        _, p, j, t = key
        mine = mine_of[(p, j)]
        return len(mine) >= t and mine[t - 1] == forced[key]

    # R continues after every forced token that is new and not eos: one request per position (its budget)
    by_pos: dict[int, list[tuple]] = {}
    for key, tok in forced.items():
        if tok != eos and not same(key):
            by_pos.setdefault(key[3], []).append(key)
    order = sorted(by_pos)
    requests = [Request([prompts[p] + mine_of[(p, j)][:t - 1] + [forced[(c, p, j, t)]] for c, p, j, _ in by_pos[t]],
                        n=1, max_new_tokens=max_new_tokens - t, seed=seed + 3 + t, **kw) for t in order]
    cont = {}
    for t, rows in zip(order, recipient.generate_many(requests) if requests else []):
        cont.update(dict(zip(by_pos[t], rows)))

    out = [dict(_fields(own[(p, j)]), condition="own", position=0, prompt_index=p, sample_idx=j, swapped=False,
                own_token=-1, forced_token=-1) for p in range(len(prompts)) for j in range(n)]
    for c, t in [("swap", t) for t in positions] + [("top2", 1)]:
        for p in range(len(prompts)):
            for j in range(n):
                key, mine = (c, p, j, t), mine_of[(p, j)]
                row = dict(condition=c, position=t, prompt_index=p, sample_idx=j)
                if key not in forced:  # R ended before position t: its own sample
                    out.append({**_fields(own[(p, j)]), **row, "swapped": False, "own_token": -1, "forced_token": -1})
                    continue
                tok, head = forced[key], mine[:t - 1]
                row.update(swapped=True, own_token=mine[t - 1] if len(mine) >= t else -1, forced_token=tok)
                if same(key):
                    out.append({**_fields(own[(p, j)]), **row})
                elif tok == eos:  # the forced token ends the response
                    out.append({**row, "token_ids": head, "n_tokens": t, "finish_reason": "stop"})
                else:
                    r = cont[key]
                    out.append({**row, "token_ids": head + [tok] + list(r["token_ids"]),
                                "n_tokens": t + r["n_tokens"], "finish_reason": r["finish_reason"]})
    return out


def _fields(r: dict) -> dict:
    return {"token_ids": list(r["token_ids"]), "n_tokens": r["n_tokens"], "finish_reason": r["finish_reason"]}
