"""What a task's prompt file (results/data/prompts/<task>.jsonl) is made from: the data job's verb and
the arguments of it that define the prompts, read from a study config.

The data rules pass these as their params (workflow/rules/data.smk through common.smk), so Snakemake
remakes a prompt file exactly when they change; the job's provenance sidecar records them
(lineage/provenance.py `args`). The budget compares the two to tell a prompt file of this study from
one another study left in the same results tree (planning/budget.py).
"""

from __future__ import annotations

import json

TOY_WORLD_KEYS = ("seed", "math", "if", "joint")  # what the toy world's prompt sets read; not its corpus


def world_prompts_cfg(config: dict) -> dict:
    """The toy world's prompt sets (verb `data --cfg`, rule toy_data): the world's seed and per-task sizes."""
    return {k: config["world"][k] for k in TOY_WORLD_KEYS}


def task_sources(config: dict, task: str) -> list[dict]:
    """A `datasets` world's sources of one task (verb `data-sources --sources`, rule source_data)."""
    return config["world"]["tasks"][task]


def prompt_job(config: dict, task: str) -> dict:
    """{"verb": ..., "args": {...}}: the data job that makes `task`'s prompt file under `config`, with the
    arguments that define its prompts (its other arguments name files or only validate)."""
    if config["world"]["kind"] == "toy":
        return {"verb": "data", "args": {"cfg": world_prompts_cfg(config)}}
    return {"verb": "data-sources", "args": {"task": task, "sources": task_sources(config, task)}}


def _plain(value):
    """`value` as it reads back from JSON (tuples become lists): a command-line param and a sidecar's record."""
    return json.loads(json.dumps(value))


def job_differences(job: dict, task: str, verb: str, args: dict) -> list[str]:
    """The config keys in which a data job that ran as `verb` with `args` (a prompt file's provenance) differs
    from `job` (prompt_job of a config); [] when it made the prompts that config asks for."""
    if verb != job["verb"]:
        return ["world.kind"]
    if verb == "data":
        want, got = job["args"]["cfg"], args.get("cfg") or {}
        return [f"world.{k}" for k in want if _plain(want[k]) != _plain(got.get(k))]
    same = args.get("task") == task and _plain(job["args"]["sources"]) == _plain(args.get("sources"))
    return [] if same else [f"world.tasks.{task}"]
