"""The memory plan's terms against what PyTorch really holds (CPU), and its verdicts on the paper configs.

Activations: the bytes autograd saves in a training forward (saved_tensors_hooks, each storage once,
parameters excluded), with TRL's fused LM head and a left-padded batch, as GRPO runs it. Parameters,
gradients and Adam state: the tensors' bytes after one optimizer step.
"""

from __future__ import annotations

import json
import warnings

import pytest
import torch

from rlvr_support.planning.gpus import GPUS
from rlvr_support.planning.memory import TrainSetup, activation_bytes, train_plan
from rlvr_support.planning.shapes import ModelShape, load_shape, shape_from_config, stored_config, toy_shape

SMOLLM2 = "HuggingFaceTB/SmolLM2-135M-Instruct"
TOY_ARCH = {"hidden_size": 64, "intermediate_size": 256, "num_layers": 2, "num_heads": 4, "max_positions": 256}


def build(shape: ModelShape, dtype=torch.float32):
    from transformers import AutoConfig, AutoModelForCausalLM
    from trl.trainer.utils import add_fused_lm_head

    cfg = AutoConfig.for_model(shape.family, hidden_size=shape.hidden, intermediate_size=shape.intermediate,
                               num_hidden_layers=shape.layers, num_attention_heads=shape.heads,
                               num_key_value_heads=shape.kv_heads, head_dim=shape.head_dim, vocab_size=shape.vocab,
                               tie_word_embeddings=shape.tied, max_position_embeddings=shape.max_positions)
    torch.manual_seed(0)
    model = AutoModelForCausalLM.from_config(cfg).to(dtype)
    add_fused_lm_head(model)  # as GRPOTrainer does: log-probs without the full logits
    return model


def saved_bytes(model, sequences: int, seq_len: int, checkpointing: bool) -> int:
    """Bytes autograd saves in one forward of a left-padded batch (each storage counted once, no parameters)."""
    from torch.multiprocessing.reductions import StorageWeakRef

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        if checkpointing:
            model.gradient_checkpointing_enable(gradient_checkpointing_kwargs={"use_reentrant": False})
        else:
            model.gradient_checkpointing_disable()
    model.train()
    params = {StorageWeakRef(p.untyped_storage()).cdata for p in model.parameters()}
    seen: dict[int, int] = {}

    def pack(t):
        s = t.untyped_storage()
        key = StorageWeakRef(s).cdata
        if key not in params:
            seen[key] = s.nbytes()
        return t

    gen = torch.Generator().manual_seed(1)
    ids = torch.randint(0, model.config.vocab_size, (sequences, seq_len), generator=gen)
    mask = torch.ones_like(ids)
    for row in range(sequences):  # left padding of different widths, as TRL's rollouts have
        mask[row, : (row % 3) + 1] = 0
    labels = ids.masked_fill(mask == 0, -100)
    with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        out = model(input_ids=ids, attention_mask=mask, labels=labels, fused_lm_head=True)
    assert out.log_probs.shape == (sequences, seq_len - 1)
    return sum(seen.values())


def _shapes():
    from rlvr_support.data.toyworld.tokenizer import build_tokenizer

    return {"toy": toy_shape(TOY_ARCH, len(build_tokenizer())), "smollm2": load_shape(stored_config(SMOLLM2))}


@pytest.mark.parametrize("name", ["toy", "smollm2"])
@pytest.mark.parametrize("sequences,seq_len", [(2, 48), (4, 96)])
@pytest.mark.parametrize("checkpointing", [False, True])
def test_activation_term_is_what_autograd_saves(name, sequences, seq_len, checkpointing):
    shape = _shapes()[name]
    if name == "smollm2":  # SmolLM2's width and attention (9 heads, 3 KV heads), fewer layers to stay quick
        shape = ModelShape(**{**shape.__dict__, "layers": 4})
    model = build(shape)
    planned, _ = activation_bytes(shape, sequences, seq_len, 4, checkpointing)
    measured = saved_bytes(model, sequences, seq_len, checkpointing)
    assert planned == pytest.approx(measured, rel=0.15), (planned, measured)


def test_activation_term_of_a_bf16_qwen3_layer():
    """Qwen3's per-head q/k norms and the fp32 parts of bf16 RMSNorms: the GPU layout, on CPU in bfloat16."""
    shape = shape_from_config({"model_type": "qwen3", "hidden_size": 128, "intermediate_size": 384,
                               "num_hidden_layers": 3, "num_attention_heads": 4, "num_key_value_heads": 2,
                               "head_dim": 32, "vocab_size": 512, "max_position_embeddings": 512,
                               "tie_word_embeddings": False})
    model = build(shape, torch.bfloat16)
    for ckpt in (False, True):
        planned, _ = activation_bytes(shape, 3, 64, 2, ckpt)
        assert planned == pytest.approx(saved_bytes(model, 3, 64, ckpt), rel=0.15)


def test_recomputed_layer_is_one_layer_of_the_full_forward():
    shape = _shapes()["toy"]
    model = build(shape)
    full, none = activation_bytes(shape, 4, 64, 4, False)
    ckpt, layer = activation_bytes(shape, 4, 64, 4, True)
    assert none == 0 and layer == pytest.approx((full - ckpt) / shape.layers + shape.hidden * 4 * 4 * 64)
    # and the whole forward's saved bytes grow by exactly that layer when a layer is added
    deeper = ModelShape(**{**shape.__dict__, "layers": shape.layers + 1})
    grown = saved_bytes(build(deeper), 4, 64, False) - saved_bytes(model, 4, 64, False)
    assert layer == pytest.approx(grown, rel=0.02)


@pytest.mark.parametrize("name", ["toy", "smollm2"])
def test_parameter_terms_are_what_adam_holds(name):
    shape = _shapes()[name]
    if name == "smollm2":
        shape = ModelShape(**{**shape.__dict__, "layers": 2})
    model = build(shape)
    assert sum(p.numel() for p in model.parameters()) == shape.params
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    ids = torch.randint(0, shape.vocab, (2, 16))
    model(input_ids=ids, labels=ids, fused_lm_head=True).loss.backward()
    opt.step()
    held = {
        "policy parameters": sum(p.numel() * p.element_size() for p in model.parameters()),
        "gradients": sum(p.grad.numel() * p.grad.element_size() for p in model.parameters()),
        "optimizer state": sum(t.numel() * t.element_size() for st in opt.state.values() for t in st.values()
                               if t.dim() > 0),  # the 0-dim `step` counters are bytes, not parameters
    }
    setup = TrainSetup(processes=1, sharding="none", offload_optimizer=False, p=4, micro_batch=2, seq_len=16,
                       checkpointing=False, frozen_copies=0, rollout="hf", rollout_sequences=2)
    plan = {t.name: t.bytes for t in train_plan("m", shape, setup, GPUS["h100"]).terms}
    for term, measured in held.items():
        assert plan[term] == pytest.approx(measured, rel=0.15), term


@pytest.mark.parametrize("hub", ["Qwen/Qwen3-8B-Base", "Qwen/Qwen2.5-Math-7B", "Qwen/Qwen2.5-7B",
                                 "deepseek-ai/DeepSeek-R1-Distill-Qwen-1.5B", SMOLLM2])
def test_parameter_count_of_the_stored_configs(hub):
    """The plan's parameter count equals the model transformers builds from that config (on the meta device)."""
    from transformers import AutoConfig, AutoModelForCausalLM

    raw = json.loads(stored_config(hub).read_text())
    shape = shape_from_config(raw)
    cfg = AutoConfig.for_model(**{k: v for k, v in raw.items() if not k.startswith("_")})
    with torch.device("meta"):
        model = AutoModelForCausalLM.from_config(cfg)
    assert sum(p.numel() for p in model.parameters()) == shape.params
