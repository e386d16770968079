"""Worker processes for tests/test_frozen_sharded.py: one scenario per launch, started on every rank by torchrun
(`python -m torch.distributed.run --nproc_per_node 2 tests/sharded_workers.py SCENARIO OUT_DIR`) on the CPU with
gloo. Each rank writes OUT_DIR/rank<r>.json with what it measured; the test asserts on those files.

Scenarios:
  fsdp2          the policy and frozen copies (fp32 and bf16) sharded with FSDP2 as accelerate shards the policy,
                 one SGD step on the policy, then training/frozen.copy_weights
  trainer_fsdp2  SupportGRPOTrainer under an FSDP2 plugin, KL in the reward reset every step, 2 steps
  zero3          DeepSpeed ZeRO-3 (DS_ACCELERATOR=cpu): the policy from deepspeed.initialize, the reference from
                 trl.models.prepare_deepspeed, one optimizer step, then copy_weights
  trainer_zero3  SupportGRPOTrainer under ZeRO-3 (policy and reference built under zero.Init), as trainer_fsdp2
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import torch
import torch.distributed as dist

ARCH = {"hidden_size": 16, "intermediate_size": 32, "num_layers": 3, "num_heads": 2, "max_positions": 64}


def _toy(seed: int = 0):
    from rlvr_support.data.toyworld.tokenizer import build_tokenizer
    from rlvr_support.models.loading import toy_llama

    torch.manual_seed(seed)  # the same starting weights on every rank
    tok = build_tokenizer()
    tok.padding_side = "left"
    return toy_llama(len(tok), ARCH, tok), tok


def _inner(model):
    """The model under a DeepSpeedEngine (prepare_deepspeed returns the engine), else the model itself."""
    return model.module if type(model).__name__ == "DeepSpeedEngine" else model


def gathered(model) -> dict[str, torch.Tensor]:
    """name -> the whole parameter, on every rank: a ZeRO-3 parameter through GatheredParameters, an FSDP2 DTensor
    through full_tensor() (both collective: every rank calls this at the same point)."""
    import contextlib

    from torch.distributed.tensor import DTensor

    params = list(_inner(model).named_parameters())
    partitioned = [p for _, p in params if hasattr(p, "ds_id")]
    together = contextlib.nullcontext()
    if partitioned:  # one gather for the whole toy model: a gather per parameter is a collective each, and on a
        import deepspeed  # loaded machine each waits for both ranks to be scheduled (9 s alone became 62 s)

        together = deepspeed.zero.GatheredParameters(partitioned)
    with together:
        return {name: (p.full_tensor() if isinstance(p, DTensor) else p).detach().clone() for name, p in params}


def gaps(policy, ref) -> dict[str, float]:
    """Per parameter: max |policy - reference| over the whole tensors, the policy cast to the reference's dtype."""
    a, b = gathered(policy), gathered(ref)
    assert a.keys() == b.keys(), (sorted(a), sorted(b))
    return {n: float((a[n].to(b[n].dtype).float() - b[n].float()).abs().max()) for n in a}


def _local_numel(model) -> tuple[int, int]:
    """(elements this rank holds, elements of the whole model) over the parameters."""
    from torch.distributed.tensor import DTensor

    held = full = 0
    for p in _inner(model).parameters():
        full += p.ds_numel if hasattr(p, "ds_id") else p.numel()
        held += (p.ds_tensor.numel() if hasattr(p, "ds_id") else
                 p.to_local().numel() if isinstance(p, DTensor) else p.numel())
    return held, full


# ----------------------------------------------------------------------------- copy_weights, no trainer
def _one_step(model, backward, step):
    """One language-modelling step on a different batch per rank."""
    ids = torch.randint(0, _inner(model).config.vocab_size, (2, 12),
                        generator=torch.Generator().manual_seed(dist.get_rank()))
    backward(model(input_ids=ids, labels=ids).loss)
    step()


def fsdp2(out_dir: Path) -> dict:
    from torch.distributed.device_mesh import init_device_mesh
    from torch.distributed.fsdp import fully_shard

    from rlvr_support.training.frozen import copy_weights, load_frozen

    mesh = init_device_mesh("cpu", (dist.get_world_size(),))
    policy, _ = _toy()
    refs = {"float32": load_frozen(policy, torch.float32), "bfloat16": load_frozen(policy, torch.bfloat16)}
    for model in (policy, *refs.values()):  # as accelerate wraps the policy: one unit per decoder layer, then root
        for layer in model.model.layers:
            fully_shard(layer, mesh=mesh)
        fully_shard(model, mesh=mesh)
    _one_step(policy, torch.Tensor.backward, torch.optim.SGD(policy.parameters(), lr=0.5).step)
    out = {"numel": _local_numel(policy)}
    for name, ref in refs.items():
        before = gaps(policy, ref)
        copy_weights(policy, ref)
        out[name] = {"before": before, "after": gaps(policy, ref), "numel": _local_numel(ref)}
    return out


def zero3(out_dir: Path) -> dict:
    import deepspeed
    from accelerate import Accelerator
    from accelerate.utils import DeepSpeedPlugin, InitProcessGroupKwargs
    from trl.models import prepare_deepspeed

    from rlvr_support.training.frozen import copy_weights, load_frozen

    # every parameter partitioned (the default threshold keeps small ones whole on every rank)
    cfg = {"train_micro_batch_size_per_gpu": 1, "gradient_accumulation_steps": 1, "zero_allow_untested_optimizer": True,
           "zero_optimization": {"stage": 3, "stage3_param_persistence_threshold": 0}}
    # the backend named: without it accelerate finds none on a CPU-only machine and counts 1 process
    accelerator = Accelerator(deepspeed_plugin=DeepSpeedPlugin(hf_ds_config=cfg),
                              kwargs_handlers=[InitProcessGroupKwargs(backend="gloo")])
    policy, _ = _toy()
    ref = load_frozen(policy, torch.float32)  # taken before the policy is partitioned
    whole = load_frozen(policy, torch.float32)  # the old reset's reference: whole on every rank
    engine, opt, *_ = deepspeed.initialize(model=policy, optimizer=torch.optim.SGD(policy.parameters(), lr=0.5),
                                           config=cfg)
    sd = engine.module.state_dict()
    state_dict = {"numel": sum(v.numel() for v in sd.values()), "tensors": len(sd)}
    ref = prepare_deepspeed(ref, accelerator)
    _one_step(engine, engine.backward, engine.step)
    try:
        load_frozen(engine.module, torch.float32)
        refused = None
    except ValueError as e:
        refused = str(e)
    try:  # the old reset
        whole.load_state_dict(engine.module.state_dict())
        old_reset = "loaded"
    except RuntimeError as e:
        old_reset = str(e).splitlines()[1].strip()
    before = gaps(engine.module, ref)
    copy_weights(engine.module, ref)
    return {"distributed_type": str(accelerator.distributed_type), "processes": accelerator.num_processes,
            "policy_state_dict": state_dict, "old_reset": old_reset, "numel": _local_numel(engine.module),
            "ref_numel": _local_numel(ref), "before": before, "after": gaps(engine.module, ref),
            "load_frozen_refused": refused}


# ----------------------------------------------------------------------------- the real trainer
def _cpu_fsdp_accelerator():
    """accelerate 1.15 applies an FSDP plugin only on GPU-like devices (AcceleratorState keeps a gloo/CPU run at
    MULTI_CPU and drops the plugin); this Accelerator keeps it, so that accelerate's own FSDP2 preparation of the
    policy (fsdp2_prepare_model) and the trainer's of the frozen copies run on the CPU."""
    from accelerate import Accelerator, PartialState
    from accelerate.utils import DistributedType

    class CPUFSDPAccelerator(Accelerator):
        def __init__(self, *args, fsdp_plugin=None, **kwargs):
            super().__init__(*args, fsdp_plugin=fsdp_plugin, **kwargs)
            if fsdp_plugin is not None and self.state.distributed_type == DistributedType.MULTI_CPU:
                # every AcceleratorState() re-reads PartialState's type, as accelerate itself writes it
                PartialState._shared_state["distributed_type"] = DistributedType.FSDP
                self.state.distributed_type = DistributedType.FSDP
                self.state.fsdp_plugin = fsdp_plugin

    return CPUFSDPAccelerator


PROMPTS = ["Compute 2 + 3.", "Compute 4 + 1.", "Write one word.", "Say hello."]


def _reward(prompts, completions, **_):
    return [float(len(c) % 2) for c in completions]


def _gathered_while_layers_run(model) -> list[int]:
    """Hooks on every decoder layer of `model` recording, as the layer starts, how many elements of the *other*
    decoder layers are gathered (unsharded) at that moment; 0 when each layer is its own shard unit."""
    from torch.distributed.tensor import DTensor

    layers = list(_inner(model).model.layers)
    seen: list[int] = []

    def hook(layer, *_):
        seen.append(sum(p.numel() for other in layers if other is not layer for p in other.parameters()
                        if not isinstance(p, DTensor)))

    for layer in layers:
        layer.register_forward_pre_hook(hook)
    return seen


def trainer(out_dir: Path, backend: str) -> dict:
    import transformers.trainer
    from datasets import Dataset
    from safetensors.torch import load_file
    from transformers import AutoModelForCausalLM
    from trl import GRPOConfig

    from rlvr_support.training.trainer import SupportGRPOTrainer, remedy_grpo_kwargs, resolve_remedies

    remedies = {"kl": {"where": "reward", "reset_every": 1}}
    model, tok = _toy()
    init = out_dir / "init"
    if dist.get_rank() == 0:
        model.save_pretrained(init)
    dist.barrier()
    start = load_file(init / "model.safetensors")
    if backend == "fsdp2":
        transformers.trainer.Accelerator = _cpu_fsdp_accelerator()
        sharding = {"use_cpu": True, "fsdp": "full_shard",
                    "fsdp_config": {"version": 2, "auto_wrap_policy": "TRANSFORMER_BASED_WRAP",
                                    "reshard_after_forward": True}}
    else:  # as configs/accelerate/zero3.yaml: batch and accumulation from the Trainer ("auto")
        # accelerate finds no backend on a CPU-only machine and then counts 1 process: a state configured with gloo
        # (as `accelerate launch` with a DeepSpeed config would set ACCELERATE_USE_DEEPSPEED) for the Trainer to use
        from accelerate import PartialState

        os.environ["ACCELERATE_USE_DEEPSPEED"] = "true"
        PartialState(backend="gloo")
        sharding = {"bf16": False, "accelerator_config": {"use_configured_state": True},
                    "deepspeed": {"zero_optimization": {"stage": 3}, "train_micro_batch_size_per_gpu": "auto",
                                  "gradient_accumulation_steps": "auto", "train_batch_size": "auto",
                                  "gradient_clipping": "auto"}}
    # the arguments before the model: under ZeRO-3 they switch on zero.Init, so the policy loads partitioned
    args = GRPOConfig(output_dir=str(out_dir / "run"), max_steps=2, per_device_train_batch_size=8, num_generations=4,
                      learning_rate=1e-2, max_completion_length=6, logging_steps=1, save_strategy="no", seed=0,
                      report_to=[], disable_tqdm=True, temperature=1.0, gradient_checkpointing=False,
                      **sharding, **remedy_grpo_kwargs(resolve_remedies(remedies)))
    model = AutoModelForCausalLM.from_pretrained(init)
    calls = []

    class Probe(SupportGRPOTrainer):
        """Measures, around each call of the reset hook, how far the reference is from the policy."""

        def _maybe_reset_reference(self):
            policy = self.accelerator.unwrap_model(self.model)
            held = sum(v.numel() for v in policy.state_dict().values())  # what the old reset loaded
            step, before = self.state.global_step, max(gaps(policy, self._ref).values())
            super()._maybe_reset_reference()
            ref = gathered(self._ref)
            calls.append({"step": step, "state_dict_numel": held, "before": before,
                          "after": max(gaps(policy, self._ref).values()),
                          "ref_moved": max(float((ref[n] - start[n]).abs().max()) for n in ref)})

    data = Dataset.from_list([{"prompt": p} for p in PROMPTS] * 4)
    kwargs = dict(model=model, reward_funcs=[_reward], args=args, processing_class=tok, remedies=remedies,
                  train_dataset=data)
    refused = None
    if backend == "zero3":  # no reference checkpoint: the trainer would copy the (partitioned) policy object
        try:
            Probe(**kwargs)
        except ValueError as e:
            refused = str(e)
    t = Probe(**kwargs, reference=str(init))
    layer_gathers = _gathered_while_layers_run(t._ref)
    t.train()
    policy = t.accelerator.unwrap_model(t.model)
    return {"is_fsdp_enabled": t.is_fsdp_enabled, "is_deepspeed_enabled": t.is_deepspeed_enabled,
            "global_step": t.state.global_step, "rollout_backend": t.rollout_backend,
            "numel": _local_numel(policy), "ref_numel": _local_numel(t._ref),
            "without_reference": refused, "other_layers_gathered": layer_gathers,
            "resets_logged": sum("kl/reference_resets" in h for h in t.state.log_history), "calls": calls}


SCENARIOS = {"fsdp2": fsdp2, "zero3": zero3,
             "trainer_fsdp2": lambda out: trainer(out, "fsdp2"), "trainer_zero3": lambda out: trainer(out, "zero3")}


def main(scenario: str, out_dir: str) -> None:
    if scenario.endswith("zero3"):
        import importlib

        import deepspeed

        # DeepSpeed's CPU backend compiles its shared-memory allreduce (deepspeed_shm_comm, a minute of cc1plus in
        # every new environment) for inference_all_reduce alone: training's collectives are torch.distributed's
        # (gloo here), and a GPU run never builds it. Without it these scenarios run the same collectives. The module
        # comes from sys.modules: deepspeed.comm's attribute `torch` is the torch package (a star import).
        importlib.import_module("deepspeed.comm.torch").build_shm_op = lambda: None
        deepspeed.init_distributed(dist_backend="gloo")
    else:
        dist.init_process_group("gloo")
    try:
        result = SCENARIOS[scenario](Path(out_dir))
        (Path(out_dir) / f"rank{dist.get_rank()}.json").write_text(json.dumps(result))
    finally:
        dist.destroy_process_group()


if __name__ == "__main__":
    main(*sys.argv[1:])
