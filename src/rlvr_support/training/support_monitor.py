"""Support monitor: a TrainerCallback that tracks the rewardable support during an RLVR stage.

Every `every` optimiser steps (and at steps 0 and the last one) it samples n responses for a
fixed probe set of eval prompts of the stage's task and of the tasks trained before it in the
chain, scores them with the evaluation's verifiers, and appends, per task:

    step, task, role (current|previous), n_prompts, n, pass@1, best@k (k = n, graded reward),
    coverage (share of prompts with >= 1 success in n), opening_entropy (nats, of the pooled
    distribution of the first m response tokens; the support-reshaping paper locates the shift there)

to a CSV at full precision (the shortest text that reads back to the same float): a resumed run
reloads its rows from the CSV in `_partial/`, and rounded rows would give it another monitor.csv,
and other early-stop decisions, than an uninterrupted run. With `early_stop_margin` set, training
stops when a previous task's best@k falls more than the margin below its value at step 0.
Sampling runs in a forked RNG, so switching the monitor on or off does not change the training
run itself. The probes sample the policy being trained where it is (sampling/local.py, backend
auto: the fast sampler on CPU, `generate` on the training GPU); a vLLM engine would need the
weights synced each probe.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import torch
from transformers import TrainerCallback

from rlvr_support.scoring.rewards import graded_reward, success as success_of
from rlvr_support.storage.atomic import write_text
from rlvr_support.metrics.entropy import answer_entropy
from rlvr_support.metrics.openings import openings
from rlvr_support.metrics.passk import best_at_k
from rlvr_support.models.prompting import render
from rlvr_support.sampling.local import generate_local
from rlvr_support.sampling.prompts import Request
from rlvr_support.scoring.score import score_samples, scoring_options

COLUMNS = ["step", "task", "role", "n_prompts", "n", "pass@1", "best@k", "coverage", "opening_entropy"]
# Rows built in memory and rows read back from the CSV must be alike. They were not: concat onto an
# empty frame keeps its `object` columns, which to_csv printed in full while a resumed run's
# float columns (read back) took the 6-decimal float format.
DTYPES = {"step": "int64", "n_prompts": "int64", "n": "int64",
          **{c: "float64" for c in ("pass@1", "best@k", "coverage", "opening_entropy")}}


def typed_rows(rows: pd.DataFrame) -> pd.DataFrame:
    return rows[COLUMNS].astype(DTYPES)


def read_rows(path: str | Path) -> pd.DataFrame:
    """Monitor rows from a CSV written by `rows_csv`, exactly (pandas 3 parses floats round-trip)."""
    return typed_rows(pd.read_csv(path))


def rows_csv(rows: pd.DataFrame) -> str:
    return typed_rows(rows).to_csv(index=False)


def probe_metrics(success: np.ndarray, graded: np.ndarray, token_ids: list, opening_tokens: int) -> dict:
    """pass@1, best@n, coverage@n of (P, n) matrices and the pooled opening entropy of the samples."""
    success, graded = np.asarray(success, bool), np.asarray(graded, float)
    if success.shape != graded.shape or success.ndim != 2 or success.size == 0:
        raise ValueError(f"expected two equal non-empty (prompts, n) matrices, got {success.shape} and {graded.shape}")
    n = success.shape[1]
    return {
        "n_prompts": success.shape[0], "n": n,
        "pass@1": float(success.mean()),
        "best@k": float(best_at_k(graded, n).mean()),
        "coverage": float(success.any(axis=1).mean()),
        "opening_entropy": answer_entropy(openings(token_ids, opening_tokens)),  # NaN without samples
    }


def previous_task_drop(rows: pd.DataFrame, margin: float) -> str | None:
    """The first previous task whose latest best@k is more than `margin` below its first value, else None."""
    prev = rows[rows["role"] == "previous"]
    for task, g in prev.sort_values("step").groupby("task", sort=True):
        if len(g) > 1 and g["best@k"].iloc[-1] < g["best@k"].iloc[0] - margin:
            return str(task)
    return None


class SupportMonitor(TrainerCallback):
    def __init__(self, tokenizer, probes: dict[str, list[dict]], current_task: str, out_csv: str | Path, *,
                 every: int, n: int, max_new_tokens: int, temperature: float = 1.0, opening_tokens: int = 3,
                 early_stop_margin: float | None = None, seed: int = 0, scoring: dict | None = None,
                 prompt_format: str = "raw"):
        if current_task not in probes:
            raise ValueError(f"monitor: no probe prompts for the current task {current_task!r}")
        self.tok, self.probes, self.current = tokenizer, probes, current_task
        self.out_csv = Path(out_csv)
        self.every, self.n, self.max_new_tokens = every, n, max_new_tokens
        self.temperature, self.opening_tokens = temperature, opening_tokens
        self.margin, self.seed = early_stop_margin, seed
        self.scoring = scoring  # None: score_samples' defaults (scoring_options)
        self.rows = read_rows(self.out_csv) if self.out_csv.exists() else typed_rows(pd.DataFrame(columns=COLUMNS))
        self.stopped_for: str | None = None
        self.prompt_format = prompt_format  # the policy's (models/prompting.py): a chat model sees its template

    def evaluate(self, model, step: int) -> pd.DataFrame:
        was_training = model.training
        model.eval()
        new = []
        with torch.random.fork_rng():
            for task, recs in sorted(self.probes.items()):
                texts = render(self.tok, [r["prompt"] for r in recs], self.prompt_format)
                # the policy as it is being trained, on its device: the fast sampler on CPU, generate on a GPU
                (rows,) = generate_local(model, self.tok, "auto", [Request(
                    texts, n=self.n, temperature=self.temperature, top_p=1.0, max_new_tokens=self.max_new_tokens,
                    seed=self.seed + step)], prompt_batch=len(recs))
                df = pd.DataFrame(rows)
                df["prompt_id"] = [recs[i]["id"] for i in df["prompt_index"]]
                scores = score_samples(df[["prompt_id", "sample_idx", "text"]], {r["id"]: r for r in recs},
                                       **scoring_options(self.scoring))
                scores = scores.sort_values(["prompt_id", "sample_idx"], kind="stable")
                success = success_of(scores).to_numpy(bool).reshape(len(recs), self.n)
                graded = graded_reward(scores).to_numpy(float).reshape(len(recs), self.n)
                m = probe_metrics(success, graded, list(df["token_ids"]), self.opening_tokens)
                new.append({"step": step, "task": task, "role": "current" if task == self.current else "previous", **m})
        if was_training:
            model.train()
        kept, new = self.rows[self.rows["step"] != step], typed_rows(pd.DataFrame(new, columns=COLUMNS))
        rows = pd.concat([kept, new], ignore_index=True) if len(kept) else new
        self.rows = typed_rows(rows.sort_values(["step", "task"], kind="stable"))
        write_text(self.out_csv, rows_csv(self.rows))
        return self.rows

    def _maybe_stop(self, control) -> None:
        if self.margin is None:
            return
        task = previous_task_drop(self.rows, self.margin)
        if task is not None:
            self.stopped_for = task
            control.should_training_stop = True

    def on_train_begin(self, args, state, control, model=None, **kwargs):
        if not (self.rows["step"] == state.global_step).any():
            self.evaluate(model, state.global_step)

    def on_step_end(self, args, state, control, model=None, **kwargs):
        if self.every > 0 and state.global_step % self.every == 0:
            self.evaluate(model, state.global_step)
            self._maybe_stop(control)

    def on_train_end(self, args, state, control, model=None, **kwargs):
        if not (self.rows["step"] == state.global_step).any():
            self.evaluate(model, state.global_step)
