"""The token-id request API: every backend takes text or exact token ids, with the same rows."""

from __future__ import annotations

import pytest
import torch

from rlvr_support.models.loading import load_policy
from rlvr_support.sampling.backends import Request, Sampler
from rlvr_support.sampling.prompts import left_pad, prompt_ids
from support_helpers import tiny_checkpoint

PROMPTS = ["Q : solve 12 + 34 . A :", "Q : write about cats . A :", "Q : solve 5 * 6 + 1 . A :"]


@pytest.fixture(scope="module")
def model_tok(tmp_path_factory):
    """A random toy Llama with sharp distributions (so that a wrong prompt changes the samples)."""
    return load_policy(tiny_checkpoint(tmp_path_factory.mktemp("m"), seed=0))


def test_left_pad_right_aligns_exact_ids():
    ids, mask = left_pad([[1, 5, 6], [1, 7]], pad_id=0)
    assert ids.tolist() == [[1, 5, 6], [0, 1, 7]]
    assert mask.tolist() == [[1, 1, 1], [0, 1, 1]]


def test_text_prompts_are_tokenised_as_the_tokenizer_pads_them(model_tok):
    _, tok = model_tok
    ids, mask = left_pad(prompt_ids(tok, PROMPTS), tok.pad_token_id)
    enc = tok(PROMPTS, return_tensors="pt", padding=True)
    assert torch.equal(ids, enc["input_ids"]) and torch.equal(mask, enc["attention_mask"])


@pytest.mark.parametrize("backend", ["hf", "fast"])
def test_text_and_its_token_ids_give_the_same_samples(model_tok, backend):
    model, tok = model_tok
    s = Sampler.from_model(model, tok, backend, prompt_batch=2)
    req = dict(n=3, temperature=1.0, top_p=1.0, max_new_tokens=8, seed=4)
    by_text = s.generate(Request(PROMPTS, **req))
    by_ids = s.generate(Request(prompt_ids(tok, PROMPTS), **req))
    assert [r["token_ids"] for r in by_text] == [r["token_ids"] for r in by_ids]
    assert [r["token_logprobs"] for r in by_text] == [r["token_logprobs"] for r in by_ids]


@pytest.mark.parametrize("backend", ["hf", "fast"])
def test_token_id_prompts_are_continued_exactly(model_tok, backend):
    """A forced opening is continued from its ids: greedy decoding follows the model's argmax
    after exactly prompt ids + opening ids (a text round trip would retokenise them)."""
    model, tok = model_tok
    forced = [prompt_ids(tok, [p])[0] + [tok.convert_tokens_to_ids("step"), tok.convert_tokens_to_ids(":")]
              for p in PROMPTS]
    rows = Sampler.from_model(model, tok, backend).generate(
        Request(forced, n=1, temperature=0.0, top_p=1.0, max_new_tokens=4, seed=0))
    for ids, row in zip(forced, rows):
        seq = list(ids)
        with torch.no_grad():
            for _ in range(len(row["token_ids"])):
                seq.append(int(model(torch.tensor([seq])).logits[0, -1].argmax()))
        assert row["token_ids"] == seq[len(ids):len(ids) + len(row["token_ids"])]


def test_generate_many_keeps_each_request_its_own_seed(model_tok):
    model, tok = model_tok
    s = Sampler.from_model(model, tok, "fast")
    a = Request(PROMPTS[:2], n=2, temperature=1.0, top_p=1.0, max_new_tokens=6, seed=1)
    b = Request(PROMPTS[1:], n=2, temperature=1.0, top_p=1.0, max_new_tokens=6, seed=2)
    many = s.generate_many([a, b])
    assert [r["token_ids"] for r in many[0]] == [r["token_ids"] for r in s.generate(a)]
    assert [r["token_ids"] for r in many[1]] == [r["token_ids"] for r in s.generate(b)]


def test_sampler_from_a_checkpoint_picks_the_backend(tmp_path):
    manifest = tiny_checkpoint(tmp_path / "m", seed=0)
    assert Sampler(manifest, "auto").backend == "fast"  # a toy Llama on CPU
    assert Sampler(manifest, "hf").backend == "hf"
    with pytest.raises(ValueError, match="not one of"):
        Sampler(manifest, "tgi")
