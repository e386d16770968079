"""Weights a stage keeps for its training trajectory (config `trajectory: {chains, every}`).

TRL saves a resumable checkpoint every `save_every` steps and keeps only the last one (the
optimiser state of a 7B model is three times its weights). For a trajectory chain the stage
also copies the model files (weights, config, tokenizer; no optimiser state) of every save at a
multiple of `every` into `_partial/steps/step<s>/`, which survives a resume; at the end they are
published as `step<s>/model/` beside the stage's own `model/`. The `trajectory_point` rule then
declares each as a checkpoint (`step<s>/manifest.json`, with the checksums of its files).
"""

from __future__ import annotations

import shutil
from pathlib import Path

from transformers import TrainerCallback

from rlvr_support.storage.atomic import publish_dir

# files of a TRL checkpoint that are training state, not the model
TRAINING_STATE = ("optimizer.pt", "scheduler.pt", "scaler.pt", "trainer_state.json", "training_args.bin")


def is_training_state(name: str) -> bool:
    return name in TRAINING_STATE or name.startswith("rng_state") or name.startswith("global_step")


class KeepWeights(TrainerCallback):
    """Copy the model files of each checkpoint saved at a multiple of `every` (before the last step)."""

    def __init__(self, partial: Path, every: int):
        self.partial, self.every = Path(partial), int(every)

    def on_save(self, args, state, control, **kwargs):
        step = state.global_step
        if not state.is_world_process_zero or step % self.every or step >= state.max_steps:
            return
        ckpt = Path(args.output_dir) / f"checkpoint-{step}"
        dest = self.partial / "steps" / f"step{step}"
        staged = dest.with_name(f".{dest.name}.tmp")
        shutil.rmtree(staged, ignore_errors=True)
        staged.mkdir(parents=True)
        for f in ckpt.iterdir():
            if f.is_file() and not is_training_state(f.name):
                shutil.copy2(f, staged / f.name)
        publish_dir(staged, dest)


def publish_kept(partial: Path, out: Path) -> list[int]:
    """Move the kept weights to `out/step<s>/model/`; returns the steps."""
    steps = []
    for d in sorted((Path(partial) / "steps").glob("step*"), key=lambda p: int(p.name[4:])):
        target = Path(out) / d.name / "model"
        target.parent.mkdir(parents=True, exist_ok=True)
        publish_dir(d, target)
        steps.append(int(d.name[4:]))
    return steps


def point_manifest(run_manifest: str | Path, step: int) -> dict:
    """The manifest of a trained chain's trajectory point `step` (its weights at step<s>/model/)."""
    import json

    from rlvr_support.models.base_models import WEIGHT_SUFFIXES, sha256_file

    run_manifest = Path(run_manifest)
    run = json.loads(run_manifest.read_text())
    model_dir = run_manifest.parent / f"step{step}" / "model"
    if not (model_dir / "config.json").is_file():
        raise FileNotFoundError(f"{model_dir}: the stage kept no weights at step {step} (is trajectory.every a "
                                "multiple of rl.save_every, and was the stage trained with this trajectory?)")
    files = sorted(p for p in model_dir.iterdir() if p.suffix in WEIGHT_SUFFIXES or p.name == "config.json")
    return {"model_dir": "model", "chain": run["chain"], "seed": run["seed"], "task": run["task"], "step": step,
            "run": str(run_manifest), "prompt_format": run.get("prompt_format", "raw"),
            "sha256": {p.name: sha256_file(p) for p in files}}
