"""TRL GRPO completion logs: `<output_dir>/completions/completions_<step>.parquet`
(`GRPOConfig(log_completions=True)`).

Followed: trl 1.16.0 (the wheel installed here), trl/trainer/grpo_trainer.py
`GRPOTrainer.log`: a DataFrame of `step`, `prompt` (text, or a conversation: a list of
{role, content} messages), `completion` (likewise), one column per reward function (its
name), the logged extra columns, and `advantage`, written by `DataFrame.to_parquet`. The rows
are the completions logged since the last log call (one row per completion; a prompt's group
of `num_generations` rows is adjacent).

Prompts are keyed by the text key of the prompt (a conversation's messages joined, see
`records.message_text`); a prompt's rows are grouped by it, also across steps and files. The
source's score is the reward column named by `source_score`, by default the only column
besides step, prompt, completion and advantage that holds numbers (none when there are
several reward functions and none is named). `step` (an int or a list) keeps only those steps.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from rlvr_support.imports.formats.source_files import parquet_columns, parquet_rows
from rlvr_support.imports.formats.verl import grouped_rows, rows_of_steps, steps_wanted
from rlvr_support.imports.prompt_keys import text_key
from rlvr_support.imports.records import ImportedPrompt, ImportFormatError, message_text, score_value

LOGGED = ("step", "prompt", "completion", "advantage")


def _score_column(path, spec: dict[str, Any]) -> str | None:
    if "source_score" in spec:
        return spec["source_score"] or None
    import pyarrow.parquet as pq

    schema = pq.read_schema(path)
    numeric = [f.name for f in schema if f.name not in LOGGED
               and (str(f.type).startswith(("double", "float", "int")) or str(f.type) == "bool")]
    return numeric[0] if len(numeric) == 1 else None


def read(path, spec: dict[str, Any]) -> Iterator[ImportedPrompt]:
    columns = parquet_columns(path)
    steps = steps_wanted(spec)
    score_col = _score_column(path, spec)
    if score_col and score_col not in columns:
        raise ImportFormatError(f"{path}:row 0", score_col, f"missing column (the file's columns: {', '.join(columns)})")

    def prompt_of(where, row):
        text = message_text(row["prompt"], where, "prompt")
        return text_key(text), text

    def make(key, text, run):
        responses = [message_text(row["completion"], where, "completion") for where, row in run]
        scores = [score_value(row.get(score_col), where, score_col) for where, row in run] if score_col else None
        where, first = run[0]
        doc = {k: v for k, v in first.items() if k not in ("prompt", "completion")}
        return ImportedPrompt(prompt_key=key, prompt=text, doc=doc, responses=responses, where=where,
                              source_scores=scores, appends=True)

    rows = rows_of_steps(parquet_rows(path), ("prompt", "completion"), "trl_completions", steps)
    yield from grouped_rows(rows, prompt_of, make)
