"""A chat-format checkpoint is prompted through its chat template everywhere it is run, not only
when sampling: base metrics, the support monitor, teacher-forced JS and the opening intervention."""

import json

import pytest

from rlvr_support.models.loading import load_policy
from rlvr_support.models.prompting import render
from support_helpers import math_prompts, tiny_checkpoint, write_samples

# words of the toy vocabulary, so that the template's tokens are real tokens
TEMPLATE = "{% for m in messages %}Q : {{ m['content'] }}{% endfor %}{% if add_generation_prompt %} A :{% endif %}"


class Stop(Exception):
    pass


@pytest.fixture(scope="module")
def chat_ckpt(tmp_path_factory):
    d = tmp_path_factory.mktemp("chat")
    manifest = tiny_checkpoint(d, seed=0)
    _, tok = load_policy(manifest)
    tok.chat_template = TEMPLATE
    tok.save_pretrained(d / "model")
    manifest.write_text(json.dumps({"model_dir": "model", "prompt_format": "chat"}))
    return manifest


@pytest.fixture
def prompts(tmp_path):
    return math_prompts(tmp_path / "math.jsonl", [("3 + 4", "7"), ("5 + 6", "11")])


def _rendered(manifest, prompts_path):
    _, tok = load_policy(manifest)
    raw = [json.loads(line)["prompt"] for line in open(prompts_path)]
    chat = render(tok, raw, "chat")
    assert chat != raw  # the template changes the text, so the tests below can tell them apart
    return tok, raw, chat


def test_base_metrics_renders_chat_prompts(chat_ckpt, prompts, monkeypatch):
    from rlvr_support.probes import base_metrics

    from rlvr_support.sampling.backends import Sampler
    from rlvr_support.sampling.prompts import prompt_ids

    seen = []

    def capture(self, requests):
        seen.extend(requests[0].prompts)
        raise Stop

    monkeypatch.setattr(Sampler, "generate_many", capture)
    with pytest.raises(Stop):
        base_metrics.base_metrics(str(chat_ckpt), {"math": str(prompts)},
                                  sampling={"backend": "hf", "prompt_batch": 4, "max_new_tokens": 4})
    tok, _, chat = _rendered(chat_ckpt, prompts)
    assert seen == prompt_ids(tok, chat)  # the token ids of the chat-rendered prompts


def test_support_monitor_renders_chat_prompts(chat_ckpt, prompts, monkeypatch, tmp_path):
    from rlvr_support.training import support_monitor

    model, tok = load_policy(chat_ckpt)
    recs = [json.loads(line) for line in open(prompts)]
    seen = []

    def capture(model, tok, backend, requests, **kw):
        seen.extend(requests[0].prompts)
        raise Stop

    monkeypatch.setattr(support_monitor, "generate_local", capture)
    mon = support_monitor.SupportMonitor(tok, {"math": recs}, "math", tmp_path / "m.csv", every=1, n=2,
                                         max_new_tokens=4, prompt_format="chat")
    with pytest.raises(Stop):
        mon.evaluate(model, step=0)
    assert seen == _rendered(chat_ckpt, prompts)[2]


def test_positional_js_teacher_forces_on_the_rendered_prompt(chat_ckpt, prompts, monkeypatch, tmp_path):
    from rlvr_support.probes import positional_js, teacher_forcing

    tok, _, chat = _rendered(chat_ckpt, prompts)
    s = write_samples(tmp_path / "samples", "base", "math", {f"math-eval-{i:05d}": [[10, 11]] for i in range(2)})
    seen = []
    real = teacher_forcing.response_logprobs

    def capture(model, p_ids, r_ids, pad):
        seen.extend(map(list, p_ids))
        return real(model, p_ids, r_ids, pad)

    monkeypatch.setattr(teacher_forcing, "response_logprobs", capture)
    positional_js.positional_js_run(str(chat_ckpt), str(chat_ckpt), str(s), str(s), str(prompts),
                                    {"prompts": 2, "samples_per_prompt": 1, "max_positions": 3, "batch": 4}, seed=0)
    expected = [tok(t)["input_ids"] for t in chat]
    assert seen and all(ids in expected for ids in seen)


def test_opening_intervention_forces_after_the_rendered_prompt(chat_ckpt, prompts, monkeypatch, tmp_path):
    from rlvr_support.probes import opening_intervention
    from rlvr_support.sampling import hf

    tok, _, chat = _rendered(chat_ckpt, prompts)
    opening = tok("answer :", add_special_tokens=False)["input_ids"]
    s = write_samples(tmp_path / "samples", "base", "math", {f"math-eval-{i:05d}": [opening] * 2 for i in range(2)})
    seen = []

    def capture(model, tokenizer, prompts, **kw):
        seen.extend(prompts)  # token-id prompts: rendered prompt ids + the forced opening's ids
        raise Stop

    monkeypatch.setattr(hf, "generate_hf", capture)
    with pytest.raises(Stop):
        opening_intervention.intervention_run(
            {"base": str(chat_ckpt)}, {"base": str(s)}, str(prompts), m=2,
            cfg={"top": 1, "prompts": 2, "n": 2, "max_new_tokens": 3},
            sampling={"backend": "hf", "temperature": 1.0, "top_p": 1.0, "seed": 0, "prompt_batch": 4},
            scoring={"timeout_s": 1.0, "workers": 1, "reasoning": "none"}, seed=0)
    expected = [tok(t)["input_ids"] + opening for t in chat]
    assert seen and all(ids in expected for ids in seen)
