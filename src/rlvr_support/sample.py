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

from .atomic import read_jsonl, write_parquet
from .devices import torch_device
from .modeling import load_policy
from .prompting import prompt_format, render
from .sampling.fast import fast_supported, generate_fast
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


def shard_prompts(prompts: list, shard: int, shards: int) -> tuple[int, list]:
    """(offset, block): the `shard`-th of `shards` contiguous, near-equal blocks of `prompts`."""
    if not 0 <= shard < shards:
        raise ValueError(f"shard {shard} is not in [0, {shards})")
    lo, hi = len(prompts) * shard // shards, len(prompts) * (shard + 1) // shards
    return lo, prompts[lo:hi]


def choose_backend(backend: str, model) -> str:
    """`auto`: the fast sampler where it can run this model, else Hugging Face `generate`."""
    if backend == "auto":
        return "fast" if fast_supported(model) is None else "hf"
    return backend


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
    if routing is not None:
        from .sampling.routed import generate_routed

        model, tok = load_policy(model_path)
        reference, _ = load_policy(routing["reference"])
        texts = render(tok, [p["prompt"] for p in prompts], prompt_format(model_path))
        rows = generate_routed(model, reference, tok, texts, gamma=routing["gamma"], tokens=routing["tokens"],
                               seed=seed, prompt_batch=cfg["prompt_batch"], **kw)
    elif cfg["backend"] == "vllm":
        rows, tok = _sample_vllm(model_path, prompts, offset, cfg, job_seed(cfg["seed"], job), kw)
    else:
        model, tok = load_policy(model_path)
        model.to(torch_device())  # a GPU job samples on its GPU (`auto` then picks generate over the CPU sampler)
        backend = choose_backend(cfg["backend"], model)
        texts = render(tok, [p["prompt"] for p in prompts], prompt_format(model_path))
        generate = generate_fast if backend == "fast" else generate_hf
        print(f"sampling backend: {backend}", flush=True)
        rows = generate(model, tok, texts, seed=seed, prompt_batch=cfg["prompt_batch"], **kw)
    df = pd.DataFrame(rows)
    df.insert(0, "prompt_id", [prompts[i]["id"] for i in df.pop("prompt_index")])
    df = df[SAMPLE_COLUMNS + (["routed_tokens"] if routing is not None else [])]
    write_parquet(out, df)
    return df


def _sample_vllm(model_path, prompts, offset, cfg, seed, kw):
    """vLLM, in-process if importable, else in the vLLM environment; seeds are per global prompt index."""
    from transformers import AutoTokenizer

    from .modeling import checkpoint_dir
    from .sampling import vllm_backend

    model_dir = str(checkpoint_dir(model_path) if str(model_path).endswith(".json") else model_path)
    tok = AutoTokenizer.from_pretrained(model_dir)
    texts = render(tok, [p["prompt"] for p in prompts], prompt_format(model_path))
    vcfg = {"tensor_parallel_size": 1, "dtype": "auto", "entropy_topk": 20, **cfg.get("vllm", {})}
    request = dict(model_dir=model_dir, prompt_token_ids=[tok(t)["input_ids"] for t in texts], seed=seed,
                   prompt_offset=offset, eos_token_id=tok.eos_token_id, **vcfg, **kw)
    try:
        import vllm  # noqa: F401
        rows = vllm_backend.generate_vllm(**request)
    except ImportError:
        rows = vllm_backend.run_in_vllm_env(request)
    for r in rows:
        r["text"] = tok.decode(r["token_ids"], skip_special_tokens=True)
    return rows, tok


def merge_shards(shard_files: list[str], out: str) -> pd.DataFrame:
    """Concatenate shard Parquet files in the given (shard) order; prompts must not repeat across shards."""
    from .atomic import read_parquet

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
