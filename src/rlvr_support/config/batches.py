"""How a GRPO step splits into micro-batches: one definition for config validation (before any job), the
trainer (training/stage.py: TRL's per-device batch and gradient accumulation), the study plan's check of
an accelerate config's accumulation (planning/study.py) and the pilot (planning/pilot.py)."""

from __future__ import annotations


def micro_batches(rl: dict) -> tuple[int, int]:
    """(sequences per forward/backward, micro-batches per optimizer step) of `rl` (rl.micro_batch, default the
    whole step: rl.prompts_per_step x rl.group_size sequences); a micro-batch that does not divide the step is
    an error naming both."""
    per_step = rl["prompts_per_step"] * rl["group_size"]
    micro = rl.get("micro_batch") or per_step
    if per_step % micro:
        raise ValueError(f"rl.micro_batch: {micro} does not divide the step's rl.prompts_per_step x "
                         f"rl.group_size = {per_step} sequences")
    return micro, per_step // micro
