"""From an imported prompt to this project's prompt record (the prompts JSONL the scorer reads:
`scoring.score.load_prompts`): id, task, prompt, the gold answer for math and joint, the
instruction ids and kwargs for if and joint, split, source (the benchmark).

Where each sits is a dotted path into the record's view: {"doc": the source's document, plus
what the reader kept beside it: lm-eval's `target`, verl's `gts`, lighteval's `gold`}. The
entry's `fields:` overrides the format's defaults (DEFAULT_FIELDS). A `docs:` file joins the
documents of formats whose output holds none (vLLM, OpenAI batch) by id, under "doc".
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from rlvr_support.imports.records import ImportedPrompt, ImportFormatError, get_field, message_text
from rlvr_support.scoring.score import TASKS, _check_prompt

_IF = {"instruction_id_list": "doc.instruction_id_list", "kwargs": "doc.kwargs"}
DEFAULT_FIELDS: dict[str, dict[str, str | None]] = {
    "lm_eval": {"answer": "target", **_IF},  # IFEval docs carry instruction_id_list / kwargs themselves
    "lighteval": {"answer": "gold", "instruction_id_list": "doc.specific.instruction_id_list",
                  "kwargs": "doc.specific.kwargs"},
    "vllm_outputs": {"answer": "doc.answer", **_IF},
    "openai_batch": {"answer": "doc.answer", "prompt": "doc.body.messages", **_IF},
    "verl": {"answer": "gts", **_IF},
    "trl_completions": {"answer": "doc.answer", **_IF},
    "plain_jsonl": {"answer": "doc.answer", **_IF},
}
PROMPT_ID_SEP = "-"  # prompt ids are <benchmark>-<key>, as data/sources/build.py names the pipeline's own


def prompt_id(benchmark: str, key: str) -> str:
    return f"{benchmark}{PROMPT_ID_SEP}{key}"


def prompt_key_of(pid: str) -> str:
    """The key part of a prompt id (`prompt_id`'s inverse; a benchmark name may hold the separator)."""
    return pid.rsplit(PROMPT_ID_SEP, 1)[-1]


def field_paths(spec: dict[str, Any]) -> dict[str, str | None]:
    """The dotted paths this entry reads: the format's defaults, overridden by `fields:`."""
    return {**DEFAULT_FIELDS[spec["format"]], **{k: v for k, v in (spec.get("fields") or {}).items()}}


def load_docs(spec: dict[str, Any]) -> dict[str, dict] | None:
    """The entry's `docs:` ({file, id}) as {id: document}; None without one. Held in memory: one
    document per prompt, not per sample."""
    docs = spec.get("docs")
    if not docs:
        return None
    from rlvr_support.imports.formats.source_files import json_lines

    id_path = docs.get("id", "id")
    out: dict[str, dict] = {}
    for where, row in json_lines(Path(docs["file"])):
        key = str(get_field(row, id_path, where))
        if key in out:
            raise ImportFormatError(where, id_path, f"duplicate document id {key!r}")
        out[key] = row
    return out


def _answer(value: Any, where: str, path: str) -> str:
    if isinstance(value, list) and len(value) == 1:  # a list of one gold (lighteval's golds, some verl gts)
        value = value[0]
    if isinstance(value, dict) and "ground_truth" in value:  # verl's reward_model field passed whole
        value = value["ground_truth"]
    if isinstance(value, bool) or not isinstance(value, (str, int, float)) or not str(value).strip():
        raise ImportFormatError(where, path, f"expected the gold answer (text or a number), got {str(value)[:60]!r}")
    return str(value)


def _kwargs(value: Any, where: str, path: str) -> list[dict]:
    # IFEval's hub data stores every kwargs key for every instruction, null where unused (Arrow
    # structs); lm-eval's ifeval utils drop the nulls before checking, and so does this.
    if not isinstance(value, list) or not all(isinstance(k, dict) or k is None for k in value):
        raise ImportFormatError(where, path, "expected a list of keyword-argument objects, one per instruction")
    return [{k: v for k, v in (kw or {}).items() if v is not None} for kw in value]


def prompt_record(rec: ImportedPrompt, spec: dict[str, Any], docs: dict[str, dict] | None = None) -> dict[str, Any]:
    """The prompts-JSONL record of `rec` (module doc), checked as the scorer checks it."""
    task, benchmark = spec["task"], spec["benchmark"]
    if task not in TASKS:
        raise ValueError(f"import entry: task {task!r} is not one of {TASKS}")
    doc = rec.doc
    if docs is not None:
        if rec.prompt_key not in docs:
            raise ImportFormatError(rec.where, "docs", f"prompt {rec.prompt_key!r} is not in {spec['docs']['file']}")
        doc = {**doc, **docs[rec.prompt_key]}
    view = {**rec.extra, "doc": doc}
    paths = field_paths(spec)
    prompt = rec.prompt
    if spec.get("fields", {}).get("prompt") and spec["format"] != "plain_jsonl":
        prompt = message_text(get_field(view, paths["prompt"], rec.where), rec.where, paths["prompt"])
    elif not prompt and paths.get("prompt"):
        prompt = message_text(get_field(view, paths["prompt"], rec.where), rec.where, paths["prompt"])
    out: dict[str, Any] = {"id": prompt_id(benchmark, rec.prompt_key), "task": task, "prompt": prompt,
                           "split": "eval", "source": benchmark, "import_key": rec.prompt_key}
    if task in ("math", "joint"):
        out["answer"] = _answer(get_field(view, paths["answer"], rec.where), rec.where, paths["answer"])
    if task in ("if", "joint"):
        ids = get_field(view, paths["instruction_id_list"], rec.where)
        if not isinstance(ids, list) or not all(isinstance(i, str) for i in ids):
            raise ImportFormatError(rec.where, paths["instruction_id_list"], "expected a list of instruction ids")
        out["instruction_id_list"] = ids
        out["kwargs"] = _kwargs(get_field(view, paths["kwargs"], rec.where), rec.where, paths["kwargs"])
    try:
        _check_prompt(out, rec.where)
    except ValueError as e:
        raise ImportFormatError(rec.where, None, f"the prompt record it makes is not valid: {e}") from None
    return out


def dumps(record: dict[str, Any]) -> str:
    return json.dumps(record, sort_keys=True, ensure_ascii=False)
