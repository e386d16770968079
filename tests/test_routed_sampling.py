"""Routing prior at sampling time: routed samples open with the reference's tokens, others are the policy's."""

from __future__ import annotations

import pytest
import torch

from rlvr_support.models.loading import toy_llama
from rlvr_support.sampling.backends import Request, Sampler
from rlvr_support.sampling.routed import generate_routed
from rlvr_support.data.toyworld.tokenizer import build_tokenizer

ARCH = {"hidden_size": 32, "intermediate_size": 64, "num_layers": 1, "num_heads": 2, "max_positions": 64}
PROMPTS = ["Q : solve 12 + 34 . A :", "Q : write about cats . use only capital letters . A :"]
KW = dict(n=6, temperature=1.0, top_p=1.0, max_new_tokens=10)


@pytest.fixture(scope="module", params=["hf", "fast"])
def models(request):
    """Policy and reference Samplers of one backend: routing is a token-id request to either."""
    tok = build_tokenizer()
    torch.manual_seed(0)
    policy = toy_llama(len(tok), ARCH, tok).eval()
    torch.manual_seed(1)
    reference = toy_llama(len(tok), ARCH, tok).eval()
    return (Sampler.from_model(policy, tok, request.param, prompt_batch=4),
            Sampler.from_model(reference, tok, request.param, prompt_batch=4), tok)


def _by_key(rows):
    return {(r["prompt_index"], r["sample_idx"]): r for r in rows}


def test_gamma_one_routes_every_sample_through_the_reference_prefix(models):
    policy, reference, tok = models
    rows = _by_key(generate_routed(policy, reference, PROMPTS, gamma=1.0, tokens=3, seed=5, **KW))
    prefixes = _by_key(reference.generate(Request(PROMPTS, seed=6, **{**KW, "max_new_tokens": 3})))
    assert len(rows) == len(PROMPTS) * KW["n"]
    for key, row in rows.items():
        head = prefixes[key]["token_ids"]
        assert row["routed_tokens"] == len(head) and row["token_ids"][:len(head)] == head
        assert row["token_logprobs"][:len(head)] == prefixes[key]["token_logprobs"][:len(head)]
        assert len(row["token_logprobs"]) == len(row["token_entropies"]) == row["n_tokens"]
        assert row["text"] == tok.decode(row["token_ids"], skip_special_tokens=True)


def test_gamma_zero_is_plain_policy_sampling(models):
    policy, reference, tok = models
    rows = generate_routed(policy, reference, PROMPTS, gamma=0.0, tokens=3, seed=5, **KW)
    assert all(r["routed_tokens"] == 0 for r in rows)
    # the same policy with a different reference gives the same samples: nothing came from it
    other = generate_routed(policy, policy, PROMPTS, gamma=0.0, tokens=3, seed=5, **KW)
    assert [r["token_ids"] for r in rows] == [r["token_ids"] for r in other]


def test_gamma_half_routes_some_and_bad_settings_are_errors(models):
    policy, reference, tok = models
    rows = generate_routed(policy, reference, PROMPTS * 4, gamma=0.5, tokens=2, seed=3, **KW)
    share = sum(r["routed_tokens"] > 0 for r in rows) / len(rows)
    assert 0.2 < share < 0.8
    with pytest.raises(ValueError, match="tokens < max_new_tokens"):
        generate_routed(policy, reference, PROMPTS, gamma=0.5, tokens=10, seed=3, **KW)
