"""GRPO rollouts from the fast CPU sampler (sampling/fast.py `sample_ids`, training/trainer.py `_rollouts`).

* `sample_ids` greedy equals Hugging Face `generate` token for token (prompts of different lengths,
  two eos ids, rows cut right after their first eos), and sharing a prefill over n rows changes nothing;
* its sampled first tokens follow the exact next-token distribution (the chi-square test of
  tests/test_sampling_fast.py), and the test rejects a wrong temperature;
* a 2-step `train_stage` with rollout_backend auto draws every rollout from `sample_ids` (one prefill
  per prompt group) and never calls TRL's generate path; with `hf` the reverse; the manifest says which;
* same seed, same reward curve and weights; a run resumed from a checkpoint ends on the same weights.
"""

from __future__ import annotations

import json
from collections import Counter

import pytest
import torch
import trl
from datasets import Dataset
from safetensors.torch import load_file
from transformers import AutoModelForCausalLM, LlamaConfig, LlamaForCausalLM
from trl import GRPOConfig

import rlvr_support.training.stage as grpo
import rlvr_support.training.trainer as ext
from rlvr_support.sampling.fast import sample_ids
from rlvr_support.data.toyworld.tokenizer import build_tokenizer
from toy_parent import arithmetic_prompts, length_reward, write_parent
from test_sampling_fast import ARCH, PROMPTS, _next_token_probs, chi_square_z

MAX_NEW = 30


@pytest.fixture(scope="module")
def model_tok():
    """A random Llama with grouped-query attention and an untied, scaled-up output head (varied greedy text
    and peaked distributions; a tied random model repeats one token), and two eos ids that greedy rows reach
    at different lengths: eos made to win where row 1's 10th token would, and row 0's 5th token."""
    tok = build_tokenizer()
    torch.manual_seed(0)
    model = LlamaForCausalLM(LlamaConfig(
        vocab_size=len(tok), hidden_size=32, intermediate_size=64, num_hidden_layers=2, num_attention_heads=4,
        num_key_value_heads=2, max_position_embeddings=128, tie_word_embeddings=False,
        bos_token_id=tok.bos_token_id, eos_token_id=tok.eos_token_id, pad_token_id=tok.pad_token_id)).eval()
    head = model.lm_head.weight
    with torch.no_grad():
        head.mul_(40.0)
        rows = sample_ids(model, [tok(p)["input_ids"] for p in PROMPTS], n=1, temperature=0, top_p=1.0,
                          max_new_tokens=MAX_NEW, eos_ids=[tok.eos_token_id], pad_id=tok.pad_token_id,
                          generator=torch.Generator())
        head[tok.eos_token_id] = head[rows[1][9]] * 1.01
    return model, tok, [tok.eos_token_id, rows[0][4]]


def _hf_greedy(model, tok, ids, eos_ids):
    width = max(map(len, ids))
    inp = torch.tensor([[tok.pad_token_id] * (width - len(p)) + p for p in ids])
    att = torch.tensor([[0] * (width - len(p)) + [1] * len(p) for p in ids])
    with torch.no_grad():
        out = model.generate(input_ids=inp, attention_mask=att, do_sample=False, max_new_tokens=MAX_NEW,
                             eos_token_id=eos_ids, pad_token_id=tok.pad_token_id)
    rows = []
    for seq in out[:, width:].tolist():
        cut = next((i + 1 for i, t in enumerate(seq) if t in eos_ids), len(seq))
        rows.append(seq[:cut])
    return rows


def test_greedy_sample_ids_match_generate_token_for_token(model_tok):
    model, tok, eos_ids = model_tok
    ids = [tok(p)["input_ids"] for p in PROMPTS * 3]
    kw = dict(temperature=0, top_p=1.0, max_new_tokens=MAX_NEW, eos_ids=eos_ids, pad_id=tok.pad_token_id,
              generator=torch.Generator())
    got = sample_ids(model, ids, n=1, drop_at=1.0, **kw)  # compact as soon as any row ends
    ref = _hf_greedy(model, tok, ids, eos_ids)
    assert len({len(p) for p in ids}) > 1, "precondition: prompts of different lengths"
    assert {r[-1] for r in ref if len(r) < MAX_NEW} == set(eos_ids), "precondition: rows end on either eos id"
    assert len({len(r) for r in ref}) > 1
    assert got == ref
    for r in got:
        assert not set(r[:-1]) & set(eos_ids) and (len(r) == MAX_NEW or r[-1] in eos_ids)
    # n rows per prompt off one shared prefill are the n = 1 rows repeated
    assert sample_ids(model, ids[:3], n=3, **kw) == [r for r in ref[:3] for _ in range(3)]


@pytest.mark.parametrize("temperature,top_p", [(1.0, 1.0), (0.7, 0.85)])
def test_sampled_first_tokens_follow_the_model_distribution(model_tok, temperature, top_p):
    model, tok, eos_ids = model_tok
    ids = tok(PROMPTS[0])["input_ids"]
    rows = sample_ids(model, [ids], n=6000, temperature=temperature, top_p=top_p, max_new_tokens=1, eos_ids=eos_ids,
                      pad_id=tok.pad_token_id, generator=torch.Generator().manual_seed(1))
    assert {len(r) for r in rows} == {1}
    first = Counter(r[0] for r in rows)
    assert chi_square_z(first, _next_token_probs(model, tok, ids, temperature, top_p)) < 4.75
    assert chi_square_z(first, _next_token_probs(model, tok, ids, temperature * 1.3, top_p)) > 4.75


# ----------------------------------------------------------------------------- GRPO stages
RL = {"steps": 2, "group_size": 4, "prompts_per_step": 2, "lr": 1e-3, "temperature": 1.0, "max_completion_tokens": 12,
      "beta": 0.0, "loss_type": "grpo", "epsilon": 0.2, "log_every": 1, "save_every": 10}


@pytest.fixture(scope="module")
def parent(tmp_path_factory):
    return write_parent(tmp_path_factory.mktemp("parent"), {**ARCH, "num_layers": 1}, arithmetic_prompts())


@pytest.fixture
def counted(monkeypatch):
    """Counts rollouts drawn by `sample_ids` (prompts, n, completions) and calls of TRL's generate path."""
    calls = {"fast": [], "trl": 0}
    monkeypatch.setattr(grpo, "make_reward", length_reward())

    def fast(model, prompt_ids, **kw):
        rows = sample_ids(model, prompt_ids, **kw)
        calls["fast"].append((prompt_ids, kw["n"], rows))
        return rows

    trl_gen = trl.GRPOTrainer._generate_single_turn

    def trl_path(self, *a, **kw):
        calls["trl"] += 1
        return trl_gen(self, *a, **kw)

    monkeypatch.setattr(ext, "sample_ids", fast)
    monkeypatch.setattr(trl.GRPOTrainer, "_generate_single_turn", trl_path)
    return calls


def _stage(parent, out, **rl):
    return grpo.train_stage(str(parent / "manifest.json"), "math", str(parent / "prompts.jsonl"),
                            str(out / "manifest.json"), {**RL, **rl}, seed=0, chain="math")


def test_auto_backend_draws_grpo_rollouts_from_the_fast_sampler(parent, tmp_path, counted, capsys):
    manifest = _stage(parent, tmp_path)
    assert manifest["rollout_backend"] == "fast" and "rollout backend: fast" in capsys.readouterr().out
    assert counted["trl"] == 0 and len(counted["fast"]) == RL["steps"]
    eos = build_tokenizer().eos_token_id
    for prompts, n, rows in counted["fast"]:
        assert (len(prompts), n, len(rows)) == (RL["prompts_per_step"], RL["group_size"],
                                                RL["prompts_per_step"] * RL["group_size"])
        assert all(1 <= len(r) <= RL["max_completion_tokens"] and eos not in r[:-1] for r in rows)


def test_hf_backend_uses_trl_generate(parent, tmp_path, counted, capsys):
    manifest = _stage(parent, tmp_path, rollout_backend="hf")
    assert manifest["rollout_backend"] == "hf" and "rollout backend: hf" in capsys.readouterr().out
    assert counted["trl"] == RL["steps"] and not counted["fast"]


def test_same_seed_same_rollouts_curve_and_weights(parent, tmp_path, counted):
    a, b = _stage(parent, tmp_path / "a"), _stage(parent, tmp_path / "b")
    assert a["rollout_backend"] == b["rollout_backend"] == "fast"
    first, second = counted["fast"][:RL["steps"]], counted["fast"][RL["steps"]:]
    assert [rows for *_, rows in first] == [rows for *_, rows in second]
    assert (tmp_path / "a/reward_curve.csv").read_bytes() == (tmp_path / "b/reward_curve.csv").read_bytes()
    wa, wb = (load_file(tmp_path / d / "model/model.safetensors") for d in "ab")
    start = load_file(parent / "model/model.safetensors")
    assert any(not torch.equal(wa[k], start[k]) for k in wa), "GRPO did not change the weights"
    assert all(torch.equal(wa[k], wb[k]) for k in wa)


def _trainer(parent, out, steps):
    torch.manual_seed(0)
    tok = build_tokenizer()
    tok.padding_side = "left"
    args = GRPOConfig(output_dir=str(out), max_steps=steps, per_device_train_batch_size=8, num_generations=4,
                      learning_rate=1e-3, max_completion_length=12, logging_steps=1, save_steps=2, seed=0,
                      use_cpu=True, report_to=[], disable_tqdm=True, gradient_checkpointing=False)
    prompts = [{"prompt": f"Q : solve {i} + 1 . A :"} for i in range(8)]
    return ext.SupportGRPOTrainer(model=AutoModelForCausalLM.from_pretrained(parent / "model"),
                                  reward_funcs=[length_reward()("math")], args=args, processing_class=tok,
                                  train_dataset=Dataset.from_list(prompts))


def test_resumed_run_redraws_the_same_rollouts(parent, tmp_path, counted):
    full = _trainer(parent, tmp_path / "full", steps=4)
    full.train()
    resumed = _trainer(parent, tmp_path / "resumed", steps=4)
    resumed.train(resume_from_checkpoint=str(tmp_path / "full/checkpoint-2"))
    assert full.rollout_backend == "fast" and len(counted["fast"]) == 4 + 2
    assert [rows for *_, rows in counted["fast"][2:4]] == [rows for *_, rows in counted["fast"][4:]]
    for (name, p), q in zip(full.model.named_parameters(), resumed.model.parameters()):
        assert torch.equal(p, q), name
