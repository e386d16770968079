"""Sample n responses per eval prompt from one checkpoint and store them as Parquet.

Backends (config `sampling.backend`): `hf` (transformers `generate`), `fast` (the CPU decode
loop of sampling/fast.py, Llama/Qwen2), `vllm` (sampling/vllm_backend.py, in the vLLM
environment), `auto` (= fast where it applies, else hf). With `sampling.shards: S > 1` a job
samples one contiguous block of the eval prompts (`shard_prompts`) and `merge_shards`
concatenates the S shard files in shard order, which is the prompts' order.
"""

from __future__ import annotations

import zlib
from typing import TYPE_CHECKING

import pandas as pd

from rlvr_support.config.benchmarks import prompt_benchmark
from rlvr_support.config.benchmarks import benchmark_sampling
from rlvr_support.models.prompting import prompt_format, render
from rlvr_support.sampling.samples_file import (ROUTED_SAMPLE_SCHEMA, SAMPLE_COLUMNS, SAMPLE_SCHEMA, conform,
                                                write_sample_frame, write_samples)
from rlvr_support.storage.atomic import read_jsonl

if TYPE_CHECKING:
    from rlvr_support.sampling.backends import Sampler

# rows per batch the merge reads from a shard: small beside a row group, so the merge holds about two groups
BATCH_ROWS = 256


def job_seed(base_seed: int, *parts: str) -> int:
    """A fixed seed per (weights, eval set) job, stable across runs and machines."""
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


def benchmark_blocks(prompts: list[dict]) -> list[tuple[str, int, list[dict]]]:
    """(benchmark, offset, prompts) for each run of prompts from one source, in order: the prompt
    files list each source's prompts together, so a benchmark is one contiguous block."""
    blocks: list[tuple[str, int, list[dict]]] = []
    for i, p in enumerate(prompts):
        name = prompt_benchmark(p)
        if blocks and blocks[-1][0] == name:
            blocks[-1][2].append(p)
        else:
            if any(b[0] == name for b in blocks):
                raise ValueError(f"prompt {p['id']}: benchmark {name!r} is split by another; list a source's prompts together")
            blocks.append((name, i, [p]))
    return blocks


def sample_checkpoint(model_path: str, prompts_path: str, out: str, cfg: dict, job: str, threads: int = 1,
                      shard: int = 0, routing: dict | None = None) -> pd.DataFrame:
    """Sample and write `out`; `routing` ({reference, gamma, tokens}) applies the routing prior
    (sampling/routed.py) with the reference policy's manifest as `reference`.

    Each benchmark of the eval set is one request with its own budget (`sampling.benchmarks`:
    n, temperature, top_p, max_new_tokens), all sent to one engine; with `token_arrays: K`
    only samples 0..K-1 of each prompt keep their per-token arrays."""
    # torch and the backends here, not at the top: `sample-merge` imports this module and needs neither (400 MB)
    import torch

    from rlvr_support.models.loading import weights_id
    from rlvr_support.sampling.backends import Request
    from rlvr_support.sampling.routed import generate_routed

    torch.set_num_threads(threads)
    shards = cfg.get("shards", 1) if routing is None else 1  # a routed job samples every prompt (one job)
    offset, prompts = shard_prompts(eval_prompts(prompts_path), shard, shards)
    if not prompts:  # more shards than prompts (a 30-problem benchmark over 64 shards): an empty block
        print(f"shard {shard} of {shards}: no prompts", flush=True)
        df = SAMPLE_SCHEMA.empty_table().to_pandas()
        write_sample_frame(out, df)
        return df
    blocks = benchmark_blocks(prompts)
    # the random stream follows the weights and the job (eval set), not the checkpoint's label
    job = f"{weights_id(model_path)}/{job}"
    policy = sampler(model_path, cfg)
    print(f"sampling backend: {policy.backend}", flush=True)
    reference = sampler(routing["reference"], cfg) if routing is not None else None
    requests, budgets = [], []
    for bench, start, block in blocks:
        # one shard and one benchmark keep the plain job seed
        parts = ([f"shard{shard}of{shards}"] if shards > 1 else []) + ([bench] if len(blocks) > 1 else [])
        seed = job_seed(cfg["seed"], job, *parts)
        kw = benchmark_sampling(cfg, bench)
        texts = render(policy.tokenizer, [p["prompt"] for p in block], prompt_format(model_path))
        budgets.append(kw)
        print(f"{bench}: {len(block)} prompts x {kw['n']} samples, T={kw['temperature']}, top_p={kw['top_p']}, "
              f"max_new_tokens={kw['max_new_tokens']}", flush=True)
        # vLLM seeds each prompt by its index in the whole eval set, so its job seed is the plain one
        requests.append((texts, kw, seed, offset + start))
    if routing is not None:
        results = [generate_routed(policy, reference, texts, gamma=routing["gamma"], tokens=routing["tokens"],
                                   seed=seed, **kw) for texts, kw, seed, _ in requests]
    else:
        results = policy.generate_many([
            Request(texts, seed=job_seed(cfg["seed"], job) if policy.backend == "vllm" else seed,
                    prompt_offset=start, token_arrays=cfg.get("token_arrays"), **kw)
            for texts, kw, seed, start in requests])
    frames = []
    for (bench, _, block), rows in zip(blocks, results):
        df = pd.DataFrame(rows)
        df.insert(0, "prompt_id", [block[i]["id"] for i in df.pop("prompt_index")])
        df.insert(1, "benchmark", bench)
        frames.append(df)
    df = pd.concat(frames, ignore_index=True)
    keep = cfg.get("token_arrays")
    df["has_token_arrays"] = True if keep is None else df["sample_idx"] < keep
    for col in ("token_ids", "token_logprobs", "token_entropies"):
        df[col] = [v if k else [] for v, k in zip(df[col], df["has_token_arrays"])]
    df["entropy_topk"] = entropy_topk(policy)
    schema = SAMPLE_SCHEMA if routing is None else ROUTED_SAMPLE_SCHEMA
    df = df[schema.names]
    write_sample_frame(out, df, schema)
    return df


def entropy_topk(policy: Sampler) -> int:
    """What `token_entropies` are: 0 = exact over the vocabulary (hf, fast); K > 0 = vLLM's lower
    bound from the top-K log-probs; -1 = vLLM over the whole vocabulary (exact)."""
    return int(policy.vllm["entropy_topk"]) if policy.backend == "vllm" else 0


def sampler(model_path: str, cfg: dict, dtype: str = "float32", device: str | None = None) -> Sampler:
    """The checkpoint ready for the `sampling` section's backend (hf and fast load weights in
    `dtype` on `device`, default the GPU if one is visible; vLLM takes its own `sampling.vllm.dtype`)."""
    from rlvr_support.sampling.backends import Sampler

    return Sampler(model_path, cfg["backend"], prompt_batch=cfg["prompt_batch"], vllm=cfg.get("vllm"), dtype=dtype,
                   device=device)


def merge_shards(shard_files: list[str], out: str) -> int:
    """Concatenate shard Parquet files in the given (shard) order into `out`; returns the number of
    samples. Prompts must not repeat across shards.

    Streams: the shards are read batch by batch and written in the samples file's row groups
    (sampling/samples_file.py), so memory stays about two row groups whatever the number of
    samples, and the file is byte for byte what one job writing these rows writes."""
    seen: dict[str, str] = {}
    for f in shard_files:  # the prompt ids alone: a cheap check before anything large is read
        mine = set()
        for batch in _shard_batches(f, ["prompt_id"]):
            mine.update(batch.column(0).to_pylist())
        for pid in mine:
            if pid in seen:
                raise ValueError(f"{f}: prompt {pid} is also in {seen[pid]}; shards must be disjoint")
            seen[pid] = f
    return write_samples(out, (conform(batch, SAMPLE_SCHEMA, f)
                               for f in shard_files for batch in _shard_batches(f, SAMPLE_COLUMNS)))


def _shard_batches(path: str, columns: list[str]):
    """The batches of `columns` (those of them the file has: `conform` names a missing one) of one
    shard, closing the file once they are read.

    pre_buffer off: with it the reader keeps every row group it has read until the file is
    closed, so its memory grew with the shard (measured over a shard of eight row groups: 31 MiB
    flat without, 43 rising to 92 MiB with)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    try:
        with pq.ParquetFile(path, pre_buffer=False) as f:
            have = [c for c in columns if c in f.schema_arrow.names]
            if not have:
                raise ValueError(f"{path}: missing column(s) {', '.join(columns)}")
            yield from f.iter_batches(batch_size=BATCH_ROWS, columns=have)
    except (pa.ArrowInvalid, OSError) as e:
        raise ValueError(f"{path}: unreadable Parquet file (truncated or corrupt?): {e}") from None
