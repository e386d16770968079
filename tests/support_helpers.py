"""Small builders shared by the support-analysis tests: score/sample files in the pipeline's
layout and a tiny random toy Llama saved as a checkpoint."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd


def write_scores(root: Path, ckpt: str, eval_set: str, rewards: dict[str, list[float]], task: str = "math",
                 answers: dict[str, list] | None = None) -> Path:
    rows = []
    for pid, rs in rewards.items():
        for i, r in enumerate(rs):
            rows.append({"prompt_id": pid, "sample_idx": i, "task": task, "reward": float(r),
                         "math_correct": bool(r >= 1), "if_frac_strict": float(r),
                         "extracted_answer": None if answers is None else answers[pid][i]})
    path = root / ckpt / f"{eval_set}.parquet"
    path.parent.mkdir(parents=True, exist_ok=True)
    pd.DataFrame(rows).to_parquet(path)
    return path


def write_samples(root: Path, ckpt: str, eval_set: str, token_ids: dict[str, list[list[int]]],
                  texts: dict[str, list[str]] | None = None, entropies: dict[str, list[list[float]]] | None = None) -> Path:
    rows = []
    for pid, seqs in token_ids.items():
        for i, ids in enumerate(seqs):
            rows.append({"prompt_id": pid, "sample_idx": i,
                         "text": texts[pid][i] if texts else " ".join(f"w{t}" for t in ids),
                         "n_tokens": len(ids) + 1, "finish_reason": "stop", "token_ids": list(ids),
                         "token_logprobs": [0.0] * (len(ids) + 1),
                         "token_entropies": entropies[pid][i] if entropies else [1.0] * (len(ids) + 1)})
    path = root / ckpt / f"{eval_set}.parquet"
    path.parent.mkdir(parents=True, exist_ok=True)
    pd.DataFrame(rows).to_parquet(path)
    return path


def tiny_checkpoint(directory: Path, seed: int) -> Path:
    """A random 1-layer toy Llama with the toy tokenizer, saved with a manifest; returns the manifest."""
    import torch

    from rlvr_support.models.loading import toy_llama
    from rlvr_support.data.toyworld.tokenizer import build_tokenizer

    torch.manual_seed(seed)
    tok = build_tokenizer()
    model = toy_llama(len(tok), {"hidden_size": 16, "intermediate_size": 32, "num_layers": 1, "num_heads": 2,
                                 "max_positions": 128}, tok)
    with torch.no_grad():  # larger weights so that two seeds give clearly different distributions
        for p in model.parameters():
            p.mul_(5.0)
    model_dir = directory / "model"
    model.save_pretrained(model_dir)
    tok.save_pretrained(model_dir)
    manifest = directory / "manifest.json"
    manifest.write_text(json.dumps({"model_dir": "model"}))
    return manifest


def math_prompts(path: Path, problems: list[tuple[str, str]]) -> Path:
    """A prompts JSONL of eval math prompts from (question, answer) pairs like ('3 + 4', '7')."""
    with path.open("w") as f:
        for i, (q, a) in enumerate(problems):
            f.write(json.dumps({"id": f"math-eval-{i:05d}", "task": "math", "prompt": f"Q : solve {q} . A :",
                                "answer": a, "instruction_id_list": [], "kwargs": [], "split": "eval"}) + "\n")
    return path


def rng_rewards(seed: int, prompts: int, n: int, p: float) -> dict[str, list[float]]:
    rng = np.random.default_rng(seed)
    return {f"p{i:03d}": (rng.random(n) < p).astype(float).tolist() for i in range(prompts)}
