"""The frozen models beside the policy (the reference of the KL and routing remedies, the distillation
teacher): how many a stage holds, and how they are built, placed and reset.

They are built the way TRL builds its own `ref_model` (trl 1.16 GRPOTrainer.__init__): loaded from the
checkpoint's folder (never a deep copy of a policy whose ZeRO-3 shards are empty), in the dtype the policy
computes in (bf16 under mixed precision, fp32 on the CPU), then sharded like the policy: DeepSpeed ZeRO-3
partitions them over the GPUs (trl.models.prepare_deepspeed), FSDP wraps them (prepare_fsdp, one unit per
decoder layer as in the policy), otherwise they sit whole on the device. The reset copies the policy's weights
into the reference shard by shard.
This module imports torch lazily: the planner (planning/study.py) counts copies at parse time.
"""

from __future__ import annotations

from pathlib import Path


def uses_trl_kl(remedies: dict) -> bool:
    """k3 in the loss is exactly TRL's `beta` term: TRL's own ref_model does it."""
    kl = remedies.get("kl")
    return bool(kl) and kl["where"] == "loss" and kl["estimator"] == "k3"


def needs_reference(remedies: dict) -> bool:
    """Our own reference copy: KL in the reward, k1 in the loss, or the routing prior's reference policy."""
    return ("kl" in remedies and not uses_trl_kl(remedies)) or "routing" in remedies


def teacher_shares_reference(remedies: dict, separate_teacher: bool) -> bool:
    """Distillation toward the stage's own start reuses the reference copy (the same frozen weights), unless
    the reference is reset to the moving policy."""
    return (not separate_teacher and needs_reference(remedies)
            and not (remedies.get("kl") or {}).get("reset_every"))


def frozen_copies(remedies: dict, beta: float, separate_teacher: bool = False) -> int:
    """Models a stage holds beside the policy: TRL's ref_model (beta > 0), ours, and the teacher."""
    trl_ref = beta > 0 or (uses_trl_kl(remedies) and remedies["kl"]["beta"] > 0)
    teacher = "distill" in remedies and not teacher_shares_reference(remedies, separate_teacher)
    return int(trl_ref) + int(needs_reference(remedies)) + int(teacher)


def load_frozen(source, dtype):
    """A frozen model from a checkpoint folder or manifest (loaded, as TRL loads its reference) or, for a model
    built in memory (tests), a deep copy; in `dtype`, eval mode, no gradients."""
    import copy

    if isinstance(source, (str, Path)):
        from rlvr_support.models.loading import load_model

        model = load_model(source, dtype=dtype)
    else:
        if _is_zero3_partitioned(source):
            raise ValueError("a ZeRO-3 policy holds only its shard: give the reference's checkpoint path, not the model")
        model = copy.deepcopy(source).to(dtype)
    model.eval()
    for p in model.parameters():
        p.requires_grad_(False)
    return model


def _is_zero3_partitioned(model) -> bool:
    return any(hasattr(p, "ds_id") for p in model.parameters())


def place_frozen(model, trainer):
    """Shard a frozen model like the policy, as TRL does for its ref_model (accelerate 1.15, trl 1.16).

    Under FSDP2, trl.models.prepare_fsdp makes the whole model one shard unit, which each forward gathers at once
    (16 GB for an 8B model in bf16, on every GPU, beside the policy's units); so the modules the FSDP plugin's
    auto-wrap policy makes units of in the policy (its decoder layers) are units here too, each prepared by
    prepare_fsdp, and a forward gathers one layer at a time. ZeRO-3 gathers module by module already."""
    acc = trainer.accelerator
    if trainer.is_deepspeed_enabled:
        from trl.models import prepare_deepspeed

        return prepare_deepspeed(model, acc)
    if trainer.is_fsdp_enabled:
        from trl.models import prepare_fsdp

        if acc.is_fsdp2:
            from accelerate.utils import get_module_children_bottom_up
            from accelerate.utils.fsdp_utils import fsdp2_prepare_auto_wrap_policy

            is_unit = fsdp2_prepare_auto_wrap_policy(acc.state.fsdp_plugin, model)
            for module in get_module_children_bottom_up(model)[:-1] if is_unit else []:
                if is_unit(module):
                    prepare_fsdp(module, acc)
        return prepare_fsdp(model, acc)
    return acc.prepare_model(model, evaluation_mode=True)


def copy_weights(src, dst) -> None:
    """dst := src, parameter by parameter, for two models sharded alike: under ZeRO-3 each pair is gathered
    (one parameter at a time, so the whole model is never gathered) and rank 0's copy is re-partitioned;
    under FSDP both hold the same local shards (DTensors of one placement), which are copied locally;
    otherwise the full tensors are copied."""
    import torch

    pairs = list(zip(src.parameters(), dst.parameters(), strict=True))
    with torch.no_grad():
        if any(hasattr(p, "ds_id") for p, _ in pairs):
            import deepspeed

            for s, d in pairs:
                with deepspeed.zero.GatheredParameters([s, d], modifier_rank=0):
                    if deepspeed.comm.get_rank() == 0:
                        d.data.copy_(s.data)
            return
        for s, d in pairs:
            if s.shape != d.shape:
                raise ValueError(f"reference reset: parameter shapes differ ({tuple(s.shape)} vs {tuple(d.shape)}): "
                                 "the reference is not sharded like the policy")
            d.data.copy_(s.data.to(d.dtype))
