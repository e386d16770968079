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


# ---- the update's transient gradients and the weights' dtype


def _tiny(family: str, **over) -> ModelShape:
    return shape_from_config({"model_type": family, "hidden_size": 64, "intermediate_size": 192,
                              "num_hidden_layers": 2, "num_attention_heads": 4, "num_key_value_heads": 2,
                              "head_dim": 16, "vocab_size": 3000, "max_position_embeddings": 256,
                              "tie_word_embeddings": False, **over})


def made_in_backward(model, ids, labels, shape_of_interest) -> dict:
    """{dtype: bytes} of every tensor of `shape_of_interest` the backward makes (a dispatch mode sees each
    operator's outputs), each storage once; not the weights (their slices are views) nor a copy of a weight
    (TRL's CPU path upcasts the weight chunk for its fp32 matmul, where CUDA's addmm takes out_dtype=float32)."""
    from torch.multiprocessing.reductions import StorageWeakRef
    from torch.utils._python_dispatch import TorchDispatchMode
    from torch.utils._pytree import tree_flatten

    made: dict = {}
    weights = {StorageWeakRef(p.untyped_storage()).cdata for p in model.parameters()}
    seen: set = set(weights)

    class Made(TorchDispatchMode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            out = func(*args, **(kwargs or {}))
            if func is torch.ops.aten._to_copy.default and StorageWeakRef(args[0].untyped_storage()).cdata in weights:
                return out
            for t in tree_flatten(out)[0]:
                if isinstance(t, torch.Tensor) and tuple(t.shape) == shape_of_interest:
                    key = StorageWeakRef(t.untyped_storage()).cdata
                    if key not in seen:
                        seen.add(key)
                        made[t.dtype] = made.get(t.dtype, 0) + t.untyped_storage().nbytes()
            return out

    loss = model(input_ids=ids, labels=labels, fused_lm_head=True).loss
    with Made():
        loss.backward()
    return made


@pytest.mark.parametrize("family", ["llama", "qwen2"])
def test_lm_head_and_embedding_gradients_are_what_the_backward_makes(family):
    """A bf16 model (the compute dtype of every GPU run) on the CPU: TRL's fused LM head accumulates its weight
    gradient in fp32 and casts it to bf16, and the embedding's backward makes a dense bf16 gradient; the plan's
    terms against every [vocab x hidden] tensor the backward makes, by dtype."""
    from rlvr_support.planning.memory import update_terms

    shape = _tiny(family)
    model = build(shape, torch.bfloat16)
    model.train()
    ids = torch.randint(0, shape.vocab, (2, 32), generator=torch.Generator().manual_seed(0))
    made = made_in_backward(model, ids, ids, (shape.vocab, shape.hidden))
    terms = {t.name: t.bytes for t in update_terms(shape, 2, 32, 2 * 31, 2, 2, True)}
    assert terms["LM-head weight gradient (fp32)"] == pytest.approx(made[torch.float32], rel=0.15)
    assert terms["LM-head weight gradient, cast"] + terms["embedding gradient"] == pytest.approx(
        made[torch.bfloat16], rel=0.15)


def test_fp32_weights_make_no_cast_of_the_lm_head_gradient():
    """One process keeps the policy in fp32: the fp32 gradient is the weight's (no cast), the embedding's is fp32."""
    from rlvr_support.planning.memory import update_terms

    shape = _tiny("llama")
    model = build(shape)
    model.train()
    ids = torch.randint(0, shape.vocab, (2, 32), generator=torch.Generator().manual_seed(0))
    made = made_in_backward(model, ids, ids, (shape.vocab, shape.hidden))
    terms = {t.name: t.bytes for t in update_terms(shape, 2, 32, 2 * 31, 4, 4, True)}
    assert "LM-head weight gradient, cast" not in terms and set(made) == {torch.float32}
    assert terms["LM-head weight gradient (fp32)"] + terms["embedding gradient"] == pytest.approx(
        made[torch.float32], rel=0.15)


@pytest.mark.parametrize("family,checkpointing", [("llama", True), ("qwen3", True), ("qwen2", True),
                                                   ("llama", False)])
def test_update_phase_peak_is_what_a_cpu_step_holds(family, checkpointing, monkeypatch):
    """The whole update phase (activations + the backward's largest moment) against the storages a CPU step
    holds at its peak, gradients allocated before it (as the GPU check runs it). TRL's LM head on a CPU has no
    Triton kernel: its torch fallback makes tile-sized temporaries, so the tile is narrowed to 64 columns here,
    which leaves the recomputed layer's backward the largest moment, as on the GPU."""
    import trl.trainer.utils as trl_utils

    from rlvr_support.planning import memory
    from rlvr_support.planning.plan_check import live_bytes_meter, update_batch, update_step

    monkeypatch.setattr(trl_utils, "_CHUNKED_LOGPROB_CHUNK_SIZE", 64)
    monkeypatch.setattr(memory, "VOCAB_TILE", 64)
    shape = _tiny(family, hidden_size=128, intermediate_size=512, vocab_size=256, head_dim=32)
    model = build(shape)
    model.train()
    if checkpointing:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", FutureWarning)
            model.gradient_checkpointing_enable()
    params = list(model.parameters())
    for p in params:
        p.grad = torch.zeros_like(p)
    ids, mask, labels = update_batch(8, 96, 16, shape.vocab, True, "cpu")
    update_step(model, ids, mask, labels)  # warm-up
    meter = live_bytes_meter()
    with meter:
        meter.start(known=[*params, *(p.grad for p in params), *model.buffers(), ids, mask, labels])
        update_step(model, ids, mask, labels, meter)
        peak = meter.peak()
    terms = memory.update_terms(shape, 8, 96, int((labels[:, 1:] != -100).sum()), 4, 4, checkpointing)
    planned = memory.MemoryPlan("train", "m", GPUS["h100"], terms=terms).phase("update")
    assert planned == pytest.approx(peak, rel=0.15), (planned, peak)


def test_one_process_and_fsdp_keep_fp32_weights_deepspeed_bf16_ones(tmp_path):
    """The policy's bytes per parameter as the launch keeps them: fp32 under one process (what training/stage.py
    loads: models/loading.py load_model's default dtype) and FSDP, bf16 under DeepSpeed; the fp32 model's bytes
    are the plan's term."""
    import yaml

    from rlvr_support.config.defaults import fill_defaults
    from rlvr_support.config.validate import validate_config
    from rlvr_support.planning.study import train_setup

    raw = yaml.safe_load((stored_config(SMOLLM2).parents[4] / "configs" / "paper.yaml").read_text())
    spec = {"kind": "hf", "path": SMOLLM2}
    one = copy_with(raw, {"launcher": "python", "gpu": 1})
    fsdp_yaml = tmp_path / "fsdp.yaml"
    fsdp_yaml.write_text("distributed_type: FSDP\nfsdp_config: {fsdp_offload_params: false}\n")
    fsdp = copy_with(raw, {"accelerate_config": str(fsdp_yaml)})
    setups = {name: train_setup(fill_defaults(validate_config(r)), spec)
              for name, r in (("one", one), ("fsdp", fsdp), ("deepspeed", raw))}
    assert {k: (s.p, s.weight_bytes) for k, s in setups.items()} == {"one": (2, 4), "fsdp": (2, 4),
                                                                    "deepspeed": (2, 2)}
    shape = ModelShape(**{**_shapes()["smollm2"].__dict__, "layers": 2})
    model = build(shape)  # fp32, as load_model loads the policy
    held = sum(p.numel() * p.element_size() for p in model.parameters())
    plan = {t.name: t.bytes for t in train_plan("m", shape, setups["one"], GPUS["h100"]).terms}
    assert plan["policy parameters"] == pytest.approx(held, rel=0.15)
    assert "fp32 master" not in next(t.how for t in train_plan("m", shape, setups["one"], GPUS["h100"]).terms
                                     if t.name == "optimizer state")


def copy_with(raw: dict, train: dict) -> dict:
    import copy

    out = copy.deepcopy(raw)
    out["resources"]["train"].update(train)
    return out


def test_vllms_share_is_of_the_memory_the_device_reports_and_sleep_leaves_some():
    """gpu_memory_utilization multiplies what the device reports (79.10 GiB on an H100 80GB), not the nominal
    80 GB; asleep, the engine keeps its CUDA graphs and NCCL buffers through the update."""
    from rlvr_support.planning.memory import VLLM_SLEEP_LEFTOVER

    shape = _shapes()["smollm2"]
    base = dict(processes=8, sharding="zero3", offload_optimizer=False, p=2, micro_batch=2, seq_len=256,
                checkpointing=True, frozen_copies=0, rollout="vllm-colocate", rollout_sequences=8,
                vllm_utilization=0.5, weight_bytes=2)
    h100 = GPUS["h100"]
    assert h100.total_gb == pytest.approx(79.10 * 2 ** 30 / 1e9) and h100.total_gb > h100.mem_gb
    awake = train_plan("m", shape, TrainSetup(**base), h100)
    asleep = train_plan("m", shape, TrainSetup(**base, vllm_sleep=True), h100)
    engine = {t.name: t for t in asleep.terms}
    assert engine["vLLM engine (colocated)"].bytes == pytest.approx(0.5 * 79.10 * 2 ** 30)
    assert engine["vLLM engine (colocated)"].phase == "rollout"
    assert engine["vLLM engine asleep"].bytes == VLLM_SLEEP_LEFTOVER and engine["vLLM engine asleep"].phase == "update"
    assert "vLLM engine asleep" not in {t.name for t in awake.terms}
    assert awake.capacity == pytest.approx(79.10 * 2 ** 30)
