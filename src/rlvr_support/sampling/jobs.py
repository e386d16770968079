"""Sample n responses per eval prompt from one checkpoint and store them as Parquet.

Backends (config `sampling.backend`): `hf` (transformers `generate`), `fast` (the CPU decode
loop of sampling/fast.py, Llama/Qwen2), `vllm` (sampling/vllm_backend.py, in the vLLM
environment), `auto` (= fast where it applies, else hf). With `sampling.shards: S > 1` a job
samples one contiguous block of the eval prompts (`shard_prompts`) and `merge_shards`
concatenates the S shard files in shard order, which is the prompts' order.
"""

from __future__ import annotations

import zlib

import pandas as pd
import torch

from rlvr_support.models.prompting import prompt_format, render
from rlvr_support.sampling.backends import Request, Sampler
from rlvr_support.sampling.routed import generate_routed
from rlvr_support.storage.atomic import read_jsonl, write_parquet

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


def shard_prompts(prompts: list, shard: int, shards: int) -> tuple[int, list]:
    """(offset, block): the `shard`-th of `shards` contiguous, near-equal blocks of `prompts`."""
    if not 0 <= shard < shards:
        raise ValueError(f"shard {shard} is not in [0, {shards})")
    lo, hi = len(prompts) * shard // shards, len(prompts) * (shard + 1) // shards
    return lo, prompts[lo:hi]


def sample_checkpoint(model_path: str, prompts_path: str, out: str, cfg: dict, job: str, threads: int = 1,
                      shard: int = 0, routing: dict | None = None) -> pd.DataFrame:
    """Sample and write `out`; `routing` ({reference, gamma, tokens}) applies the routing prior
    (sampling/routed.py) with the reference policy's manifest as `reference`."""
    torch.set_num_threads(threads)
    shards = cfg.get("shards", 1)
    offset, prompts = shard_prompts(eval_prompts(prompts_path), shard, shards)
    # one shard keeps the unsharded seed, so `shards: 1` reproduces earlier samples exactly
    seed = job_seed(cfg["seed"], job) if shards == 1 else job_seed(cfg["seed"], job, f"shard{shard}of{shards}")
    kw = dict(n=cfg["n"], temperature=cfg["temperature"], top_p=cfg["top_p"], max_new_tokens=cfg["max_new_tokens"])
    policy = sampler(model_path, cfg)
    print(f"sampling backend: {policy.backend}", flush=True)
    texts = render(policy.tokenizer, [p["prompt"] for p in prompts], prompt_format(model_path))
    if routing is not None:
        reference = sampler(routing["reference"], cfg)
        rows = generate_routed(policy, reference, texts, gamma=routing["gamma"], tokens=routing["tokens"],
                               seed=seed, **kw)
    else:
        # vLLM seeds each prompt by its global index, so its job seed is the unsharded one
        rows = policy.generate(Request(texts, seed=job_seed(cfg["seed"], job) if policy.backend == "vllm" else seed,
                                       prompt_offset=offset, **kw))
    df = pd.DataFrame(rows)
    df.insert(0, "prompt_id", [prompts[i]["id"] for i in df.pop("prompt_index")])
    df = df[SAMPLE_COLUMNS + (["routed_tokens"] if routing is not None else [])]
    write_parquet(out, df)
    return df


def sampler(model_path: str, cfg: dict) -> Sampler:
    """The checkpoint ready for the `sampling` section's backend."""
    return Sampler(model_path, cfg["backend"], prompt_batch=cfg["prompt_batch"], vllm=cfg.get("vllm"))


def merge_shards(shard_files: list[str], out: str) -> pd.DataFrame:
    """Concatenate shard Parquet files in the given (shard) order; prompts must not repeat across shards."""
    from rlvr_support.storage.atomic import read_parquet

    parts = [read_parquet(f) for f in shard_files]
    seen: dict[str, str] = {}
    for f, part in zip(shard_files, parts):
        for pid in part["prompt_id"].unique():
            if pid in seen:
                raise ValueError(f"{f}: prompt {pid} is also in {seen[pid]}; shards must be disjoint")
            seen[pid] = f
    df = pd.concat(parts, ignore_index=True)[SAMPLE_COLUMNS]
    write_parquet(out, df)
    return df
