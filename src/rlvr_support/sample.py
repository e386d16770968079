"""Sample n responses per eval prompt from one checkpoint and store them as Parquet."""

from __future__ import annotations

import zlib

import pandas as pd
import torch

from .atomic import read_jsonl, write_parquet
from .modeling import load_policy
from .prompting import prompt_format, render
from .sampling.hf import generate_hf

SAMPLE_COLUMNS = ["prompt_id", "sample_idx", "text", "n_tokens", "finish_reason", "token_ids",
                  "token_logprobs", "token_entropies"]


def job_seed(base_seed: int, *parts: str) -> int:
    """A fixed seed per (checkpoint, eval set) job, stable across runs and machines."""
    return (base_seed * 1_000_003 + zlib.crc32("/".join(parts).encode())) % 2**31


def eval_prompts(prompts_path: str) -> list[dict]:
    prompts = [r for r in read_jsonl(prompts_path) if r["split"] == "eval"]
    if not prompts:
        raise ValueError(f"{prompts_path}: no eval-split prompts")
    return prompts


def sample_checkpoint(model_path: str, prompts_path: str, out: str, cfg: dict, job: str, threads: int = 1) -> pd.DataFrame:
    torch.set_num_threads(threads)
    prompts = eval_prompts(prompts_path)
    model, tok = load_policy(model_path)
    seed = job_seed(cfg["seed"], job)
    if cfg["backend"] != "hf":
        raise ValueError(f"sampling.backend {cfg['backend']!r} is not available in this environment")
    texts = render(tok, [p["prompt"] for p in prompts], prompt_format(model_path))
    rows = generate_hf(model, tok, texts, n=cfg["n"], temperature=cfg["temperature"],
                       top_p=cfg["top_p"], max_new_tokens=cfg["max_new_tokens"], seed=seed,
                       prompt_batch=cfg["prompt_batch"])
    df = pd.DataFrame(rows)
    df.insert(0, "prompt_id", [prompts[i]["id"] for i in df.pop("prompt_index")])
    df = df[SAMPLE_COLUMNS]
    write_parquet(out, df)
    return df
