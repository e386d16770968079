"""The file contracts between stages: the columns and types of samples and scores files.

The sample job writes `SAMPLE_SCHEMA` (sampling/samples_file.py), the score job `SCORE_SCHEMA`
(scoring/score.py); every job that reads one checks it first (`read_samples`, `read_scores`), so
a file made elsewhere or edited by hand with a column of the wrong type (integers where the
text should be) is an error naming the file and the column, not a silent reward of 0 (str(7)
is a wrong answer, not an error). A reader asks for the columns it needs; those it does not ask
for are checked too, when present, since they say what the file is.

A column whose values are all missing may have Arrow's `null` type (pandas writes an all-None
column that way); it passes for any type but a row's identity (prompt_id, sample_idx).
"""

from __future__ import annotations

import pyarrow as pa

SAMPLE_SCHEMA = pa.schema([
    ("prompt_id", pa.large_string()), ("benchmark", pa.large_string()), ("sample_idx", pa.int64()),
    ("text", pa.large_string()), ("n_tokens", pa.int64()), ("finish_reason", pa.large_string()),
    ("has_token_arrays", pa.bool_()), ("token_ids", pa.list_(pa.int64())), ("token_logprobs", pa.list_(pa.float64())),
    ("token_entropies", pa.list_(pa.float64())), ("entropy_topk", pa.int64())])
# a routed job's file (sampling/routed.py): how many tokens of each sample the routing prior chose
ROUTED_SAMPLE_SCHEMA = SAMPLE_SCHEMA.append(pa.field("routed_tokens", pa.int64()))

SCORE_SCHEMA = pa.schema([
    ("prompt_id", pa.string()), ("benchmark", pa.string()), ("sample_idx", pa.int64()), ("task", pa.string()),
    ("reward", pa.float64()), ("math_correct", pa.bool_()), ("extracted_answer", pa.string()),
    ("timeout", pa.bool_()), ("if_prompt_strict", pa.bool_()), ("if_prompt_loose", pa.bool_()),
    ("if_frac_strict", pa.float64()), ("if_frac_loose", pa.float64()), ("joint_soft", pa.float64())])

KEYS = ("prompt_id", "sample_idx")  # a row's identity: present in every file, never all missing


def kind(t: pa.DataType) -> str:
    """A type as a reader sees it: string, integer, float, bool, list of ..., null."""
    if pa.types.is_null(t):
        return "null"
    if pa.types.is_string(t) or pa.types.is_large_string(t):
        return "string"
    if pa.types.is_boolean(t):
        return "bool"
    if pa.types.is_integer(t):
        return "integer"
    if pa.types.is_floating(t):
        return "float"
    if pa.types.is_list(t) or pa.types.is_large_list(t):
        return f"list of {kind(t.value_type)}"
    return str(t)


# what a column of each kind may hold: an integer is a number too
ACCEPTS = {"float": ("float", "integer"), "list of float": ("list of float", "list of integer", "list of null"),
           "list of integer": ("list of integer", "list of null")}


def schema_problem(path, have: pa.Schema, schema: pa.Schema, what: str) -> str | None:
    """Why the file `path` (of Arrow schema `have`) is not a `what` file of `schema`; None when it is."""
    for key in KEYS:
        if key not in have.names:
            return f"{path}: no column {key!r}, which every {what} file has (its columns: {', '.join(have.names)})"
    for field in schema:
        if field.name not in have.names:
            continue
        got, want = kind(have.field(field.name).type), kind(field.type)
        ok = got in ACCEPTS.get(want, (want,)) or (got == "null" and field.name not in KEYS)
        if not ok:
            return (f"{path}: column {field.name!r} holds {got} values ({have.field(field.name).type}), "
                    f"but a {what} file's {field.name} is {want}")
    return None
