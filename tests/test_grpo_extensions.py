"""SupportGRPOTrainer (src/rlvr_support/training/trainer.py): TRL override points, remedy parameters, the
routing mask and the remedies TRL implements itself. The value of every other remedy (advantages, KL
terms, reference reset, distillation, memory calibration, a plain stage against TRL's own trainer) is
tested in tests/test_trainer_values.py."""

from __future__ import annotations

import inspect

import pytest
import torch
import trl
from datasets import Dataset
from transformers import AutoModelForCausalLM
from trl import GRPOConfig, GRPOTrainer

from rlvr_support.training.trainer import (TRL_TARGET, SupportGRPOTrainer, check_remedies, remedy_grpo_kwargs,
                                          resolve_remedies)
from rlvr_support.models.loading import toy_llama
from rlvr_support.data.toyworld.tokenizer import build_tokenizer

# The override points the subclass relies on, with the parameters it calls them with.
OVERRIDE_POINTS = {
    "_generate_single_turn": ["self", "prompt_ids", "images", "multimodal_fields", "num_generations",
                              "has_tool_images"],
    "_calculate_rewards": ["self", "inputs", "prompts", "completions", "completion_ids_list"],
    "_generate_and_score_completions": ["self", "inputs"],
    "_get_per_token_logps_and_entropies": ["self", "model", "input_ids", "attention_mask", "logits_to_keep",
                                           "batch_size", "compute_entropy", "compute_aux_loss"],
    "_compute_loss": ["self", "model", "inputs"],
    "compute_loss": ["self", "model", "inputs", "return_outputs", "num_items_in_batch"],
}


def test_trl_version_is_the_targeted_one():
    assert trl.__version__ == TRL_TARGET, "training/trainer.py targets a pinned TRL; re-check the override points"


@pytest.mark.parametrize("name,params", OVERRIDE_POINTS.items())
def test_override_points_exist_with_expected_signature(name, params):
    fn = getattr(GRPOTrainer, name, None)
    assert fn is not None, f"GRPOTrainer.{name} disappeared"
    got = list(inspect.signature(fn).parameters)
    assert got[:len(params)] == params, f"GRPOTrainer.{name} changed signature: {got}"


def test_trainer_state_and_attributes_the_subclass_reads_exist():
    src = inspect.getsource(GRPOTrainer)
    for attr in ("self.eos_token_ids", "self.scale_rewards", "self.reward_weights", "self.num_generations",
                 "self.max_completion_length", '"tool_mask"', "self._metrics"):
        assert attr in src, f"GRPOTrainer no longer uses {attr}"


def test_resolve_and_check_remedies():
    r = resolve_remedies({"kl": {"beta": 0.1}, "passk": {}})
    assert r["kl"] == {"beta": 0.1, "estimator": "k3", "where": "loss", "reset_every": 0, "reset_optimizer": False}
    assert remedy_grpo_kwargs(r) == {"beta": 0.1}
    with pytest.raises(ValueError, match="unknown remedy"):
        resolve_remedies({"kll": {}})
    with pytest.raises(ValueError, match="passk.k"):
        check_remedies(resolve_remedies({"passk": {"k": 4}}), group_size=4)
    assert remedy_grpo_kwargs(resolve_remedies({"clip_higher": {}, "entropy_bonus": {"coef": 0.02}})) == {
        "epsilon": 0.2, "epsilon_high": 0.28, "entropy_coef": 0.02}


# ----------------------------------------------------------------------------- tiny training runs
PROMPTS = ["Compute 2 + 3.", "Compute 4 + 1.", "Write one word.", "Say hello."]


def _reward(prompts, completions, **_):
    # Deterministic, varied within a group: the completion's length parity.
    return [float(len(c) % 2) for c in completions]


def _trainer(tmp_path, remedies, steps=1, **cfg):
    torch.manual_seed(0)
    tok = build_tokenizer()
    tok.padding_side = "left"
    model = toy_llama(len(tok), {"hidden_size": 16, "intermediate_size": 32, "num_layers": 1, "num_heads": 2,
                                 "max_positions": 128}, tok)
    # TRL builds its own reference (native k3 KL) from the model's path, as in the pipeline.
    model.save_pretrained(tmp_path / "init")
    model = AutoModelForCausalLM.from_pretrained(tmp_path / "init")
    args = GRPOConfig(output_dir=str(tmp_path), max_steps=steps, per_device_train_batch_size=8, num_generations=4,
                      learning_rate=1e-3, max_completion_length=8, logging_steps=1, save_strategy="no", seed=0,
                      use_cpu=True, report_to=[], disable_tqdm=True, temperature=1.0, gradient_checkpointing=False,
                      **{**remedy_grpo_kwargs(resolve_remedies(remedies)), **cfg})
    return SupportGRPOTrainer(model=model, reward_funcs=[_reward], args=args, processing_class=tok,
                              train_dataset=Dataset.from_list([{"prompt": p} for p in PROMPTS] * 4),
                              remedies=remedies)


def _logged(trainer):
    keys = set()
    for h in trainer.state.log_history:
        keys |= set(h)
    return keys


def _batch(trainer):
    """One generation batch through the remedy path, as the training step sees it."""
    trainer.model.train()
    inputs = [{"prompt": p} for p in PROMPTS[:2] for _ in range(4)]
    return trainer._generate_and_score_completions(inputs)


def test_routing_masks_the_routed_prefix(tmp_path):
    t = _trainer(tmp_path, {"routing": {"gamma": 1.0, "tokens": 3}})
    out = _batch(t)
    routed = torch.tensor(t._routed_len)
    assert (routed > 0).all(), "gamma = 1 routes every rollout"
    for i, m in enumerate(routed.tolist()):
        assert out["tool_mask"][i, :m].sum() == 0, "routed tokens must be out of the loss"
        assert out["tool_mask"][i, m:].eq(1).all()
    t.train()
    assert {"routing/routed_frac", "routing/masked_tokens"} <= _logged(t)


def test_routing_gamma_zero_routes_nothing(tmp_path):
    t = _trainer(tmp_path, {"routing": {"gamma": 0.0, "tokens": 3}})
    out = _batch(t)
    assert sum(t._routed_len) == 0 and out["tool_mask"].eq(1).all()


def test_clip_higher_and_entropy_bonus_reach_trl(tmp_path):
    t = _trainer(tmp_path, {"clip_higher": {"epsilon_low": 0.1, "epsilon_high": 0.3}, "entropy_bonus": {"coef": 0.05}})
    assert (t.epsilon_low, t.epsilon_high, t.entropy_coef) == (0.1, 0.3, 0.05)
    t.train()
    assert "entropy_coef" in _logged(t)
