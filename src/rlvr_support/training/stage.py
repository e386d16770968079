"""One RLVR stage: GRPO (TRL's GRPOTrainer, trl==1.16.0) on one task from a parent checkpoint.

The checkpoint is declared by `manifest.json`; weights go to `model/` beside it and TRL's
resumable checkpoints to `_partial/`, outside the declared output, so a job killed mid-way
continues from its last save when Snakemake reruns it.
"""

from __future__ import annotations

import importlib
import json
import os
import time
from pathlib import Path

import pandas as pd
import torch

from rlvr_support.config.batches import micro_batches
from rlvr_support.storage.atomic import publish_dir, read_jsonl, write_text
from rlvr_support.models import resume as resume_state
from rlvr_support.models.base_models import weights_checksums
from rlvr_support.models.loading import load_policy
from rlvr_support.models.prompting import prompt_format
from rlvr_support.training import trackers
from rlvr_support.training.kept_weights import KeepWeights, publish_kept
from rlvr_support.training.rewards import make_reward

# Remedy metrics kept in reward_curve.csv (their logged names start with these prefixes); `sampling`:
# TRL's vLLM-vs-trainer log-prob gap and importance ratios (rl.rollout_backend: vllm)
REMEDY_LOGS = ("kl", "routing", "distill", "memory", "remedy", "entropy_coef", "sampling")


def _dataset(prompts: list[dict], prompt_format: str = "raw"):
    from datasets import Dataset

    from rlvr_support.models.prompting import as_messages

    # kwargs differ in keys between instructions; JSON keeps Arrow from unifying them into nulls.
    # Chat models get conversational prompts (message lists), which TRL templates itself.
    return Dataset.from_list([{
        "prompt": as_messages(r["prompt"]) if prompt_format == "chat" else r["prompt"],
        "prompt_id": r["id"], "answer": r.get("answer") or "",
        "instruction_id_list": r.get("instruction_id_list") or [],
        "kwargs_json": json.dumps(r.get("kwargs") or []),
        "extra_json": json.dumps({k: r[k] for k in ("scorer", "rg") if k in r}),
    } for r in prompts])


def use_bf16(rl: dict) -> bool:
    """bf16 mixed precision only when asked for (`rl.precision: bf16`) and on a GPU; the CPU always trains in fp32."""
    if rl.get("precision", "fp32") != "bf16" or not torch.cuda.is_available():
        return False
    if not torch.cuda.is_bf16_supported():
        raise ValueError(f"rl.precision: bf16, but {torch.cuda.get_device_name(0)} has no bf16; use precision: fp32")
    # Measured on an H200 (torch 2.11, cu130): cuDNN's fused attention returns NaN gradients for the fully
    # masked query rows of left-padded GRPO batches, which poisons the weights within a step or two.
    # The flash / memory-efficient kernels take over with cuDNN's switched off.
    torch.backends.cuda.enable_cudnn_sdp(False)
    return True


def grpo_config(out: Path, rl: dict, seed: int, remedies: dict | None = None, report_to: list[str] | None = None,
                run_name: str | None = None):
    """TRL's GRPOConfig from the `rl` section; remedies TRL implements itself (k3 KL in the loss,
    clip-higher, entropy bonus) override the matching keys (training/trainer.py remedy_grpo_kwargs).
    `report_to`: the trackers of rl.report_to (training/trackers.py start), logging every `log_every` steps."""
    from trl import GRPOConfig

    from rlvr_support.training.trainer import remedy_grpo_kwargs
    from rlvr_support.training.vllm_rollouts import grpo_vllm_kwargs

    overrides = remedy_grpo_kwargs(remedies or {})
    micro, accumulation = micro_batches(rl)
    return GRPOConfig(
        output_dir=str(out),
        max_steps=rl["steps"],
        # one optimizer step sees prompts_per_step x group_size rollouts per process, `micro` at a time; TRL
        # generates them all at once (steps_per_generation defaults to the accumulation) and normalises the loss
        # over the whole step (dapo: its token count; grpo / dr_grpo: per sequence, divided by the accumulation)
        per_device_train_batch_size=micro,
        gradient_accumulation_steps=accumulation,
        num_generations=rl["group_size"],
        learning_rate=rl["lr"],
        lr_scheduler_type="constant",
        warmup_steps=0,
        max_completion_length=rl["max_completion_tokens"],
        temperature=rl["temperature"],
        top_p=1.0,
        beta=overrides.pop("beta", rl["beta"]),
        loss_type=rl["loss_type"],
        epsilon=overrides.pop("epsilon", rl["epsilon"]),
        logging_steps=rl["log_every"],
        save_steps=rl["save_every"],
        save_total_limit=1,
        save_only_model=False,
        seed=seed,
        data_seed=seed,
        use_cpu=not torch.cuda.is_available(),  # the GPU when the job has one (resources.train.gpu)
        bf16=use_bf16(rl),
        gradient_checkpointing=rl.get("gradient_checkpointing") is True,  # resolved per model (common.smk)
        report_to=report_to or [],
        run_name=run_name,
        project=trackers.project(),  # trackio's; wandb reads WANDB_PROJECT
        disable_tqdm=False,
        dataloader_num_workers=0,
        **grpo_vllm_kwargs(rl),  # rl.rollout_backend: vllm (training/vllm_rollouts.py)
        trust_remote_code=False,  # TRL's own loads (processor, vLLM rollouts): never a checkpoint's code
        **overrides,
    )


def process_threads(threads: int, environ=os.environ) -> int:
    """This training process's share of the job's `threads` cores: `accelerate launch` starts one process per GPU
    of the node (torchrun sets LOCAL_WORLD_SIZE), and each takes threads / processes (at least 1), not all."""
    return max(1, threads // max(1, int(environ.get("LOCAL_WORLD_SIZE") or 1)))


def reward_scoring(scoring: dict | None, threads: int, environ=os.environ) -> dict | None:
    """The `scoring` section the reward and the monitor of this training process use: its math-verify
    workers are capped at the process's share of the job's cores (process_threads), since every process
    of a multi-GPU stage scores its own completions (paper.yaml's 16 workers x 8 ranks would be 128
    processes on a node). Workers change no score, so the resume fingerprint keeps the config's section."""
    if scoring is None:
        return None
    return {**scoring, "workers": min(scoring["workers"], process_threads(threads, environ))}


def _monitor_module():
    """training/support_monitor.py, imported by name: its code (metrics, sampling, scoring) counts in the
    stage's code hash only where it can stop the stage early (lineage/job_code.py, monitor_moves_weights)."""
    return importlib.import_module(f"{__package__}.support_monitor")


def _monitor(tok, rl: dict, task: str, probes: dict[str, str] | None, csv: Path, seed: int, fmt: str = "raw",
             scoring: dict | None = None):
    """The support monitor (training/support_monitor.py) on the first `prompts` eval prompts of each task in the chain."""
    mon = rl.get("monitor")
    if not mon or not probes:
        return None
    sets = {t: [r for r in read_jsonl(p) if r["split"] == "eval"][:mon["prompts"]] for t, p in probes.items()}
    return _monitor_module().SupportMonitor(tok, sets, task, csv, every=mon["every"], n=mon["n"],
                          max_new_tokens=rl["max_completion_tokens"], temperature=rl["temperature"],
                          opening_tokens=mon["opening_tokens"], early_stop_margin=mon.get("early_stop_margin"),
                          seed=seed, prompt_format=fmt, scoring=scoring)


def train_stage(parent: str, task: str, prompts_path: str, out_manifest: str, rl: dict, seed: int,
                chain: str, threads: int = 1, remedies: dict | None = None, teacher: str | None = None,
                probes: dict[str, str] | None = None, code: str | None = None,
                log_dir: str | None = None, scoring: dict | None = None) -> dict | None:
    """Train one stage; `remedies` (a chain variant's, see training/trainer.py) switch mitigations on,
    `teacher` is the distillation teacher's manifest (default: the parent), `probes` maps each task
    of the chain to its prompt file for the support monitor, whose CSV lands beside the manifest.
    `code` is the hash of the code this job runs (the `train` verb passes it): saved progress of
    other code is not resumed. `threads` are the job's cores on this node, shared by its training processes
    (process_threads); `log_dir` is where the trackers of rl.report_to write (training/trackers.py). Returns
    the manifest on the main process and None on the others (multi-GPU runs). `scoring` is the config's
    `scoring` section: the reward and the monitor score as the score jobs do (training/rewards.py)."""
    from rlvr_support.training.trainer import SupportGRPOTrainer, check_remedies, resolve_remedies

    torch.set_num_threads(process_threads(threads))
    report_to = trackers.start(rl, log_dir)  # before the model loads: a missing tracker package stops the job here
    remedies = resolve_remedies(remedies)
    check_remedies(remedies, rl["group_size"])
    out = Path(out_manifest).parent
    partial = out / "_partial"
    prompts = [r for r in read_jsonl(prompts_path) if r["split"] == "train"]
    if not prompts:
        raise ValueError(f"{prompts_path}: no train-split prompts for task {task!r}")
    # The trainer's arguments come first: under DeepSpeed ZeRO-3 they make transformers build the model
    # partitioned over the GPUs (zero.Init) instead of whole on every rank, the reference copies too.
    args = grpo_config(partial, rl, seed, remedies, report_to, trackers.run_name(chain, task, seed))
    model, tok = load_policy(parent)
    model.train()
    tok.padding_side = "left"
    own_teacher = "distill" in remedies and teacher and Path(teacher).resolve() != Path(parent).resolve()
    # Resume only this job's own progress, never a finished or different run's (resume.py says why).
    # (rl.report_to is left out: where the curves go changes no weight)
    resume_state.prepare(partial, {
        "parent": resume_state.file_digest(parent), "task": task, "chain": chain,
        "rl": {k: v for k, v in rl.items() if k != "report_to"}, "seed": seed,
        "prompts": resume_state.file_digest(prompts_path), "remedies": remedies,
        "teacher": resume_state.file_digest(teacher) if teacher else None, "code": code,
        **({"scoring": scoring} if scoring else {})})
    fmt = prompt_format(parent)  # copied into the new manifest below
    scoring_here = reward_scoring(scoring, threads)
    monitor = _monitor(tok, rl, task, probes, partial / "monitor.csv", seed, fmt, scoring_here)
    callbacks = [resume_state.SharedModes(), *([monitor] if monitor else [])]
    if rl.get("keep_every"):  # a trajectory chain (config/checkpoints.py)
        callbacks.append(KeepWeights(partial, rl["keep_every"]))
    trainer = SupportGRPOTrainer(
        model=model, reward_funcs=[make_reward(task, scoring_here)], args=args, train_dataset=_dataset(prompts, fmt),
        processing_class=tok, remedies=remedies, reference=parent, teacher=teacher if own_teacher else None,
        callbacks=callbacks or None, rollout_backend=rl.get("rollout_backend", "auto"),
    )
    why = f" ({trainer.rollout_backend_reason})" if trainer.rollout_backend_reason else ""
    print(f"rollout backend: {trainer.rollout_backend}{why}", flush=True)
    checkpoints = resume_state.checkpoints(partial)
    resume = bool(checkpoints)
    if resume:
        print(f"resuming from {checkpoints[-1]}", flush=True)
    elif report_to and trainer.accelerator.is_main_process:
        trackers.clear(log_dir)
    if report_to:
        print(f"training curves: {', '.join(report_to)} in {log_dir} (run {args.run_name})", flush=True)
    t0 = time.time()
    trainer.train(resume_from_checkpoint=True if resume else None)
    elapsed = time.time() - t0

    history = pd.DataFrame([h for h in trainer.state.log_history if "reward" in h])
    # Under accelerate every process must call save_model (ZeRO-3 gathers the shards there) into
    # the same directory; only the main process writes files and publishes the checkpoint.
    staged = partial / "final-model"
    trainer.save_model(str(staged))
    trainer.accelerator.wait_for_everyone()
    if not trainer.accelerator.is_main_process:
        return None
    tok.save_pretrained(staged)
    publish_dir(staged, out / "model")
    kept = publish_kept(partial, out)
    # A fixed column order: a resumed run reloads its log history with sorted keys.
    # frac_reward_zero_std: TRL's share of the step's groups with one reward for all G (no gradient),
    # set beside the trainability predicted from the stage's start (analysis.trainability)
    keep = [c for c in ("step", "reward", "reward_std", "frac_reward_zero_std", "kl", "entropy",
                        "completions/mean_length") if c in history]
    curve = history[keep + sorted(c for c in history if c not in keep and c.split("/")[0] in REMEDY_LOGS)]
    write_text(out / "reward_curve.csv", curve.to_csv(index=False))
    resume_state.discard(partial)  # a later rerun (new config or code) must start afresh
    rows = _monitor_module()
    empty = ",".join(rows.COLUMNS) + "\n"  # header only: monitor off
    write_text(out / "monitor.csv", rows.rows_csv(monitor.rows) if monitor else empty)
    print(curve.to_string(index=False), flush=True)
    return {
        "model_dir": "model", "chain": chain, "task": task, "seed": seed, "parent": str(parent),
        "steps": rl["steps"], "seconds": round(elapsed, 1), "resumed": resume,
        "final_reward": float(history["reward"].tail(5).mean()) if len(history) else None,
        "remedies": remedies, "early_stop": monitor.stopped_for if monitor else None,
        "trained_steps": int(trainer.state.global_step), "prompt_format": fmt,
        "rollout_backend": trainer.rollout_backend, "kept_steps": kept,
        "sha256": weights_checksums(out / "model"),
    }
