"""Benchmarks: the names under which every table reports an eval source.

A benchmark is one eval source of a task (`world.tasks.<task>[k]` with `split: eval`), named by
its `name` (else derived from its hub id, file or Reasoning Gym task); its prompts carry the
name in their `source` field, and samples and scores in their `benchmark` column. The toy
world's eval sets are one benchmark each, named like the set.
"""

from __future__ import annotations

from pathlib import Path


def source_name(src: dict) -> str:
    """Prefix of the prompt ids: `name`, else the hub name and split (gsm8k_test), the file stem, the RG task."""
    if src.get("name"):
        return src["name"]
    if src.get("hub"):
        return f"{src['hub'].split('/')[-1]}_{src.get('hf_split', 'train')}"
    if src.get("file"):
        return Path(src["file"]).stem
    return src.get("rg_task") or src["format"]


def eval_benchmarks(config: dict) -> dict[str, list[str]]:
    """{eval set: its benchmarks, in source order} for the study's eval sets."""
    world = config["world"]
    if world["kind"] == "toy":
        return {e: [e] for e in config["eval_sets"]}
    return {e: [source_name(s) for s in world["tasks"].get(e, []) if s["split"] == "eval"]
            for e in config["eval_sets"]}


def prompt_benchmark(record: dict) -> str:
    """A prompt record's benchmark: its `source` (the toy world's records have none: their task)."""
    return record.get("source") or record["task"]


def max_new_tokens_keys(sampling: dict) -> dict[str, int]:
    """Each response-length budget of a `sampling` section by its key: `sampling.max_new_tokens` and
    each per-benchmark override's (what length checks must hold for)."""
    out = {"sampling.max_new_tokens": sampling["max_new_tokens"]}
    out |= {f"sampling.benchmarks.{b}.max_new_tokens": benchmark_sampling(sampling, b)["max_new_tokens"]
            for b in sampling.get("benchmarks") or {}}
    return out


def benchmark_sampling(sampling: dict, benchmark: str) -> dict:
    """The sampling keys (n, temperature, top_p, max_new_tokens) one benchmark is sampled with:
    `sampling` overridden by its `sampling.benchmarks` entry (per-benchmark budgets)."""
    own = (sampling.get("benchmarks") or {}).get(benchmark, {})
    return {k: own.get(k, sampling[k]) for k in ("n", "temperature", "top_p", "max_new_tokens")}
