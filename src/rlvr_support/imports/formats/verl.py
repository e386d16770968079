"""verl's generation dumps: `{step}.jsonl` under `trainer.validation_data_dir` (validation) or
`trainer.rollout_data_dir` (training rollouts).

Followed: volcengine/verl at b178a3cd56f58b2d502255daba591e92833930a7,
verl/trainer/ppo/ray_trainer.py `RayPPOTrainer._dump_generations`: one row per response with
`input` (the decoded prompt), `output` (the decoded response), `gts` (the ground truth, any
JSON type or null), `score` (the reward), `step` (the global step), and every reward extra
field (`reward_extra_infos_dict`) with one value per row. The file is written at once, rows
separated by "\\n".

No prompt id: prompts are keyed by the text key of `input`, and a prompt's n rows (verl repeats
each prompt n times, interleaved, so they are usually adjacent) are grouped by it; rows of one
prompt may also come apart (a balanced batch reorders them) and are still one prompt.
`score` is the source's score of each response (`source_score`: another field, e.g. `acc`).
`step` (an int or a list) keeps only those steps' rows (the `{step}.jsonl` files of one run
are usually given one per entry: `label: rl_step100`).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from rlvr_support.imports.formats.sniff import require_fields
from rlvr_support.imports.formats.source_files import json_lines
from rlvr_support.imports.prompt_keys import text_key
from rlvr_support.imports.records import ImportedPrompt, score_value, typed


def steps_wanted(spec: dict[str, Any]) -> set[int] | None:
    step = spec.get("step")
    if step is None:
        return None
    return set(step) if isinstance(step, list) else {step}


def rows_of_steps(rows, fields: tuple[str, ...], fmt: str, steps: set[int] | None):
    """The (where, row) pairs of a one-row-per-sample log (verl, TRL) that carry `fields` and, when `steps`
    is given, whose `step` is one of them."""
    for where, row in rows:
        require_fields(row, fields, where, fmt)
        if steps is None or row.get("step") in steps:
            yield where, row


def grouped_rows(rows, prompt_of, make):
    """Records of adjacent rows that share a prompt key: `prompt_of(where, row)` -> (key, text),
    `make(key, text, [(where, row), ...])` -> record."""
    run: list = []
    run_key = run_text = None
    for where, row in rows:
        key, text = prompt_of(where, row)
        if run and key != run_key:
            yield make(run_key, run_text, run)
            run = []
        run_key, run_text = key, text
        run.append((where, row))
    if run:
        yield make(run_key, run_text, run)


def read(path, spec: dict[str, Any]) -> Iterator[ImportedPrompt]:
    steps = steps_wanted(spec)
    score_field = spec.get("source_score", "score")

    def prompt_of(where, row):
        text = typed(row["input"], str, where, "input", "the decoded prompt text")
        return text_key(text), text

    def make(key, text, run):
        responses = [typed(row["output"], str, where, "output", "the decoded response text") for where, row in run]
        scores = None
        if score_field:
            scores = [score_value(row.get(score_field), where, score_field) for where, row in run]
        where, first = run[0]
        doc = {k: v for k, v in first.items() if k not in ("input", "output")}
        return ImportedPrompt(prompt_key=key, prompt=text, doc=doc, responses=responses, where=where,
                              source_scores=scores, appends=True, extra={"gts": first.get("gts")})

    yield from grouped_rows(rows_of_steps(json_lines(path), ("input", "output"), "verl", steps), prompt_of, make)
