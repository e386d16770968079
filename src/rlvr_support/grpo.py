"""One RLVR stage: GRPO (TRL's GRPOTrainer, trl==1.16.0) on one task from a parent checkpoint.

The checkpoint is declared by `manifest.json`; weights go to `model/` beside it and TRL's
resumable checkpoints to `_partial/`, outside the declared output, so a job killed mid-way
continues from its last save when Snakemake reruns it.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pandas as pd
import torch

from .atomic import atomic_dir, read_jsonl, write_json, write_text
from .modeling import load_policy
from .rewards import make_reward


def _dataset(prompts: list[dict]):
    from datasets import Dataset

    # kwargs differ in keys between instructions; JSON keeps Arrow from unifying them into nulls.
    return Dataset.from_list([{
        "prompt": r["prompt"], "prompt_id": r["id"], "answer": r.get("answer") or "",
        "instruction_id_list": r.get("instruction_id_list") or [],
        "kwargs_json": json.dumps(r.get("kwargs") or []),
    } for r in prompts])


def grpo_config(out: Path, rl: dict, seed: int):
    from trl import GRPOConfig

    return GRPOConfig(
        output_dir=str(out),
        max_steps=rl["steps"],
        per_device_train_batch_size=rl["prompts_per_step"] * rl["group_size"],
        num_generations=rl["group_size"],
        learning_rate=rl["lr"],
        lr_scheduler_type="constant",
        warmup_steps=0,
        max_completion_length=rl["max_completion_tokens"],
        temperature=rl["temperature"],
        top_p=1.0,
        beta=rl["beta"],
        loss_type=rl["loss_type"],
        epsilon=rl["epsilon"],
        logging_steps=rl["log_every"],
        save_steps=rl["save_every"],
        save_total_limit=1,
        save_only_model=False,
        seed=seed,
        data_seed=seed,
        use_cpu=not torch.cuda.is_available(),  # the GPU when the job has one (resources.train.gpu)
        bf16=torch.cuda.is_available() and torch.cuda.is_bf16_supported(),
        gradient_checkpointing=False,  # pointless, and broken, for tiny models on CPU
        report_to=[],
        disable_tqdm=False,
        dataloader_num_workers=0,
    )


def train_stage(parent: str, task: str, prompts_path: str, out_manifest: str, rl: dict, seed: int,
                chain: str, threads: int = 1) -> dict:
    from trl import GRPOTrainer

    torch.set_num_threads(threads)
    out = Path(out_manifest).parent
    partial = out / "_partial"
    prompts = [r for r in read_jsonl(prompts_path) if r["split"] == "train"]
    if not prompts:
        raise ValueError(f"{prompts_path}: no train-split prompts for task {task!r}")
    model, tok = load_policy(parent)
    model.train()
    tok.padding_side = "left"
    trainer = GRPOTrainer(
        model=model, reward_funcs=[make_reward(task)], args=grpo_config(partial, rl, seed),
        train_dataset=_dataset(prompts), processing_class=tok,
    )
    resume = any(p.name.startswith("checkpoint-") for p in partial.glob("checkpoint-*"))
    if resume:
        print(f"resuming from {sorted(partial.glob('checkpoint-*'))[-1]}", flush=True)
    t0 = time.time()
    trainer.train(resume_from_checkpoint=True if resume else None)
    elapsed = time.time() - t0

    history = pd.DataFrame([h for h in trainer.state.log_history if "reward" in h])
    with atomic_dir(out / "model") as tmp:
        trainer.save_model(str(tmp))
        tok.save_pretrained(tmp)
    curve = history[[c for c in ("step", "reward", "reward_std", "kl", "entropy",
                                 "completions/mean_length") if c in history]]
    write_text(out / "reward_curve.csv", curve.to_csv(index=False))
    print(curve.to_string(index=False), flush=True)
    return {
        "model_dir": "model", "chain": chain, "task": task, "seed": seed, "parent": str(parent),
        "steps": rl["steps"], "seconds": round(elapsed, 1), "resumed": resume,
        "final_reward": float(history["reward"].tail(5).mean()) if len(history) else None,
    }
