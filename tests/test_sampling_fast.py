"""The fast CPU sampler against Hugging Face `generate` (sampling/hf.py) and the model's exact distribution.

* greedy: token for token equal to `generate_hf`, logprobs/entropies equal to float precision,
  on a model where many rows stop early (so batch compaction is exercised);
* sampling: the first and second token's empirical frequencies against the exact next-token
  distribution (temperature, top-p as transformers' TopPLogitsWarper) by a chi-square test
  at p < 1e-6; the same test rejects samples drawn at a different temperature, so it can fail;
* stored token_logprobs / token_entropies equal a teacher-forced recomputation.
"""

from __future__ import annotations

import math
from collections import Counter

import pytest
import torch

from rlvr_support.models.loading import toy_llama
from rlvr_support.sampling.backends import choose_backend
from rlvr_support.sampling.fast import generate_fast, top_p_filter
from rlvr_support.sampling.hf import generate_hf
from rlvr_support.data.toyworld.tokenizer import build_tokenizer

ARCH = {"hidden_size": 32, "intermediate_size": 64, "num_layers": 2, "num_heads": 4, "max_positions": 128}
PROMPTS = ["Q : solve 12 + 7 . A :", "write a short note about the sea", "Q : solve 3 * 4 + 5 * 6 . A :"]


@pytest.fixture(scope="module")
def model_tok():
    tok = build_tokenizer()
    torch.manual_seed(0)
    model = toy_llama(len(tok), ARCH, tok).eval()
    emb = model.model.embed_tokens.weight
    with torch.no_grad():
        emb.mul_(8.0)  # peaked next-token distributions
        # make eos win wherever a token the model often emits greedily would (tied embeddings: its
        # output row), so greedy rows stop at different lengths
        rows = generate_fast(model, tok, PROMPTS, n=1, temperature=0, top_p=1.0, max_new_tokens=30, seed=0)
        common = Counter(t for r in rows for t in r["token_ids"][1:]).most_common(1)[0][0]
        emb[tok.eos_token_id] = emb[common] * 1.01
    return model, tok


def test_greedy_matches_generate_token_for_token(model_tok):
    model, tok = model_tok
    prompts = PROMPTS * 4
    kw = dict(n=1, temperature=0, top_p=1.0, max_new_tokens=30, seed=0, prompt_batch=5)
    ref = generate_hf(model, tok, prompts, **kw)
    got = generate_fast(model, tok, prompts, drop_at=1.0, **kw)  # compact as soon as any row ends
    lengths = {r["n_tokens"] for r in ref}
    assert any(r["finish_reason"] == "stop" for r in ref) and len(lengths) > 1, "precondition: rows end early"
    assert len(got) == len(ref)
    for a, b in zip(ref, got):
        assert {k: a[k] for k in ("prompt_index", "sample_idx", "token_ids", "text", "n_tokens", "finish_reason")} == \
               {k: b[k] for k in ("prompt_index", "sample_idx", "token_ids", "text", "n_tokens", "finish_reason")}
        assert max(abs(x - y) for x, y in zip(a["token_logprobs"], b["token_logprobs"])) < 1e-4
        assert max(abs(x - y) for x, y in zip(a["token_entropies"], b["token_entropies"])) < 1e-4


def _next_token_probs(model, tok, prefix_ids, temperature, top_p):
    with torch.no_grad():
        logits = model(torch.tensor([prefix_ids])).logits[0, -1].float() / temperature
    if top_p < 1:
        logits = top_p_filter(logits.unsqueeze(0), top_p)[0]
    return torch.softmax(logits, -1)


def chi_square_z(counts: Counter, probs: torch.Tensor) -> float:
    """Wilson-Hilferty z of Pearson's chi-square (bins with expected < 5 pooled); z > 4.75 ~ p < 1e-6."""
    total = sum(counts.values())
    assert all(probs[t] > 0 for t in counts), "a token outside the distribution's support was drawn"
    exp = probs.double() * total
    big = (exp >= 5).nonzero().squeeze(1).tolist()
    obs = [counts.get(t, 0) for t in big]
    e = [float(exp[t]) for t in big]
    rest_o, rest_e = total - sum(obs), total - sum(e)
    if rest_e >= 5:
        obs.append(rest_o)
        e.append(rest_e)
    x2 = sum((o - ee) ** 2 / ee for o, ee in zip(obs, e))
    df = len(e) - 1
    return ((x2 / df) ** (1 / 3) - (1 - 2 / (9 * df))) / math.sqrt(2 / (9 * df))


@pytest.mark.parametrize("temperature,top_p", [(1.0, 1.0), (0.7, 0.85)])
def test_sampled_tokens_follow_the_model_distribution(model_tok, temperature, top_p):
    model, tok = model_tok
    prompt = PROMPTS[0]
    ids = tok(prompt)["input_ids"]
    rows = generate_fast(model, tok, [prompt], n=6000, temperature=temperature, top_p=top_p, max_new_tokens=2,
                         seed=1, prompt_batch=1)
    first = Counter(r["token_ids"][0] if r["token_ids"] else tok.eos_token_id for r in rows)
    p1 = _next_token_probs(model, tok, ids, temperature, top_p)
    assert chi_square_z(first, p1) < 4.75
    # second token after the most frequent first token: this one comes from the cached decode path
    t1 = max((t for t in first if t != tok.eos_token_id), key=first.get)
    second = Counter(r["token_ids"][1] if len(r["token_ids"]) > 1 else tok.eos_token_id
                     for r in rows if r["token_ids"] and r["token_ids"][0] == t1)
    assert sum(second.values()) > 300
    assert chi_square_z(second, _next_token_probs(model, tok, ids + [t1], temperature, top_p)) < 4.75
    # power: the same test rejects a different temperature
    wrong = _next_token_probs(model, tok, ids, temperature * 1.3, top_p)
    assert chi_square_z(first, wrong) > 4.75


def test_stored_logprobs_and_entropies_are_exact(model_tok):
    model, tok = model_tok
    temperature = 0.8
    rows = generate_fast(model, tok, PROMPTS, n=3, temperature=temperature, top_p=0.9, max_new_tokens=12, seed=3,
                         prompt_batch=2)
    assert [(r["prompt_index"], r["sample_idx"]) for r in rows] == [(i, j) for i in range(3) for j in range(3)]
    for r in rows:
        ids = tok(PROMPTS[r["prompt_index"]])["input_ids"]
        full = ids + r["token_ids"] + ([tok.eos_token_id] if r["finish_reason"] == "stop" else [])
        assert len(full) - len(ids) == r["n_tokens"] == len(r["token_logprobs"])
        with torch.no_grad():
            logp = torch.log_softmax(model(torch.tensor([full])).logits[0].float() / temperature, -1)
        pos = torch.arange(len(ids) - 1, len(full) - 1)
        lp = logp[pos, torch.tensor(full[len(ids):])]
        ent = -(logp[pos].exp() * logp[pos]).sum(-1)
        assert torch.allclose(lp, torch.tensor(r["token_logprobs"]), atol=1e-4)
        assert torch.allclose(ent, torch.tensor(r["token_entropies"]), atol=1e-4)


def test_auto_backend_picks_fast_for_llama_on_cpu(model_tok):
    model, _ = model_tok
    assert choose_backend("auto", model) == "fast"
    assert choose_backend("hf", model) == "hf"
    model.config.model_type = "gpt2"
    try:
        assert choose_backend("auto", model) == "hf"
    finally:
        model.config.model_type = "llama"
