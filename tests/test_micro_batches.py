"""rl.micro_batch and rl.gradient_checkpointing (training/stage.py grpo_config): one optimizer step over the
same rollouts gives the same loss and the same updated weights whether its 64 sequences go through one
forward/backward or eight of eight with gradient accumulation, and with or without checkpointing."""

from __future__ import annotations

import pytest
import torch
from datasets import Dataset

from rlvr_support.data.toyworld.tokenizer import build_tokenizer
from rlvr_support.models.loading import load_policy, toy_llama
from rlvr_support.config.batches import micro_batches
from rlvr_support.training.stage import grpo_config
from rlvr_support.training.trainer import SupportGRPOTrainer

RL = {"steps": 1, "prompts_per_step": 8, "group_size": 8, "lr": 1e-3, "temperature": 1.0,
      "max_completion_tokens": 10, "beta": 0.0, "loss_type": "dapo", "epsilon": 0.2, "log_every": 1,
      "save_every": 1000}
PROMPTS = [f"Compute {a} + {b}." for a in range(4) for b in range(2)]


def _reward(prompts, completions, **_):
    # varied inside every group, the same for the same completion: the advantages are not all zero
    return [float(len(c) % 3) / 2 for c in completions]


@pytest.fixture(scope="module")
def toy_dir(tmp_path_factory):
    torch.manual_seed(0)
    tok = build_tokenizer()
    model = toy_llama(len(tok), {"hidden_size": 32, "intermediate_size": 64, "num_layers": 2, "num_heads": 4,
                                 "max_positions": 128}, tok)
    out = tmp_path_factory.mktemp("toy")
    model.save_pretrained(out)
    tok.save_pretrained(out)
    return out


def one_step(model_dir, tmp_path, prompts=PROMPTS, optim="sgd", **rl):
    """(the logged loss, the weights) after one optimizer step of a plain stage from `model_dir`. Plain SGD by
    default: its step is lr x the gradient, so a gradient off by a factor shows (Adam's first step would hide it)."""
    cfg = {**RL, **rl}
    model, tok = load_policy(model_dir)
    model.train()
    args = grpo_config(tmp_path / f"run-{cfg.get('micro_batch')}-{cfg.get('gradient_checkpointing')}", cfg, seed=0)
    args.optim = optim
    trainer = SupportGRPOTrainer(model=model, reward_funcs=[_reward], args=args, processing_class=tok,
                                 train_dataset=Dataset.from_list([{"prompt": p} for p in prompts]),
                                 reference=model_dir)
    trainer.train()
    loss = next(h["loss"] for h in trainer.state.log_history if "loss" in h)
    return loss, {k: v.detach().clone() for k, v in trainer.model.state_dict().items()}, trainer


def test_micro_batches_split_the_step():
    assert micro_batches(RL) == (64, 1)
    assert micro_batches({**RL, "micro_batch": 8}) == (8, 8)
    with pytest.raises(ValueError, match="rl.micro_batch: 24 does not divide"):
        micro_batches({**RL, "micro_batch": 24})


@pytest.mark.parametrize("loss_type", ["dapo", "grpo"])
def test_accumulated_micro_batches_give_the_full_batch_step(toy_dir, tmp_path, loss_type):
    start = {k: v.clone() for k, v in load_policy(toy_dir)[0].state_dict().items()}
    loss_full, w_full, t_full = one_step(toy_dir, tmp_path, loss_type=loss_type, lr=0.5)
    loss_micro, w_micro, t_micro = one_step(toy_dir, tmp_path, loss_type=loss_type, micro_batch=8, lr=0.5)
    assert t_full.args.gradient_accumulation_steps == 1 and t_micro.args.gradient_accumulation_steps == 8
    assert t_micro.args.per_device_train_batch_size == 8
    assert loss_micro == pytest.approx(loss_full, rel=1e-4, abs=1e-7)
    moved = max(float((w_full[k] - start[k]).abs().max()) for k in start)
    assert moved > 1e-5, "the step must move the weights, or equal weights prove nothing"
    for k in w_full:
        torch.testing.assert_close(w_micro[k], w_full[k], rtol=1e-4, atol=1e-6)


def test_gradient_checkpointing_gives_the_same_step(toy_dir, tmp_path):
    loss_off, w_off, t_off = one_step(toy_dir, tmp_path, micro_batch=16, gradient_checkpointing=False)
    loss_on, w_on, t_on = one_step(toy_dir, tmp_path, micro_batch=16, gradient_checkpointing=True)
    assert t_on.model.is_gradient_checkpointing and not t_off.model.is_gradient_checkpointing
    assert loss_on == pytest.approx(loss_off, rel=1e-5)
    for k in w_off:
        torch.testing.assert_close(w_on[k], w_off[k], rtol=1e-5, atol=1e-7)


def test_gradient_checkpointing_gives_the_same_gradients(toy_dir):
    """The gradients themselves (not only the step after Adam, which normalises them) of one forward/backward."""
    grads = {}
    for ckpt in (False, True):
        model, _ = load_policy(toy_dir)
        model.train()
        if ckpt:
            model.gradient_checkpointing_enable(gradient_checkpointing_kwargs={"use_reentrant": False})
        ids = torch.randint(0, model.config.vocab_size, (4, 20), generator=torch.Generator().manual_seed(3))
        model(input_ids=ids, labels=ids).loss.backward()
        grads[ckpt] = {n: p.grad.clone() for n, p in model.named_parameters()}
    for n in grads[False]:
        torch.testing.assert_close(grads[True][n], grads[False][n], rtol=1e-5, atol=1e-8)


@pytest.mark.snakemake
@pytest.mark.slow
def test_smollm2_micro_batches_and_checkpointing(smol_run, tmp_path):
    """The same on the real SmolLM2-135M-Instruct (the reduced study's base; its tokenizer and chat-free prompts)."""
    base = smol_run / "results" / "checkpoints" / "base" / "manifest.json"
    rl = {"max_completion_tokens": 8, "lr": 0.1}
    loss_full, w_full, _ = one_step(base, tmp_path, **rl)
    loss_micro, w_micro, _ = one_step(base, tmp_path, micro_batch=8, gradient_checkpointing=True, **rl)
    assert loss_micro == pytest.approx(loss_full, rel=1e-3, abs=1e-6)
    for k in w_full:
        torch.testing.assert_close(w_micro[k], w_full[k], rtol=1e-3, atol=1e-6)
