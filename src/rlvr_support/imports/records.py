"""The record every format's reader yields, and the error every reader raises.

A record is one prompt with the responses one stretch of the source holds for it: an lm-eval
line (a doc with its K repeats), a lighteval details row, a vLLM RequestOutput, an OpenAI batch
line, or a run of verl / TRL / plain rows that share a prompt. `import_job` turns records into
rows of the samples schema; it numbers a prompt's samples 0..n-1 in the order they arrive.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


class ImportFormatError(ValueError):
    """Bad input: the message names the file and line (`where`, "path:line"; a Parquet file's row
    is "path:row N") and the field, and says what was expected."""

    def __init__(self, where: str, field_name: str | None, message: str):
        self.where, self.field = where, field_name
        super().__init__(f"{where}: field {field_name!r}: {message}" if field_name else f"{where}: {message}")


@dataclass(slots=True)
class ImportedPrompt:
    """One prompt and its responses as a source holds them (module doc).

    `prompt_key` is the source's document id where it has one, else `text_key(prompt)`;
    `source_scores`, `token_ids`, `token_logprobs` and `finish_reasons` are None when the source
    has none, else one entry per response (an entry may be None: no score for that response).
    `appends`: the source may hold more of this prompt's responses in later records (verl and TRL
    write one row per response), so a later record with the same key continues its numbering;
    without it the same key twice is a duplicate prompt. `sample_indices`: the source's own
    numbering of the responses (vLLM's `outputs[i].index`, a plain file's sample field), checked
    for duplicates; None to number them in order."""

    prompt_key: str
    prompt: str
    doc: dict[str, Any]
    responses: list[str]
    where: str
    source_scores: list[float | None] | None = None
    token_ids: list[list[int]] | None = None
    token_logprobs: list[list[float]] | None = None
    finish_reasons: list[str | None] | None = None
    sample_indices: list[int] | None = None
    appends: bool = False
    extra: dict[str, Any] = field(default_factory=dict)  # what a reader keeps for task_fields (verl's gts)


def get_field(obj: Any, path: str, where: str, *, required: bool = True) -> Any:
    """The value at dotted `path` in `obj` (dicts and lists: `doc.choices.0`); a missing step is an
    error naming `path`, or None when not `required`."""
    cur = obj
    for step in path.split("."):
        if isinstance(cur, dict) and step in cur:
            cur = cur[step]
        elif isinstance(cur, list) and step.lstrip("-").isdigit() and -len(cur) <= int(step) < len(cur):
            cur = cur[int(step)]
        else:
            if required:
                raise ImportFormatError(where, path, "missing")
            return None
    return cur


def typed(value: Any, types: type | tuple[type, ...], where: str, field_name: str, what: str) -> Any:
    """`value` if it is one of `types` (a bool is not a number here), else an error naming the field."""
    is_bool = isinstance(value, bool)
    ok = isinstance(value, types) and (not is_bool or bool in (types if isinstance(types, tuple) else (types,)))
    if not ok:
        raise ImportFormatError(where, field_name, f"expected {what}, got {type(value).__name__} {str(value)[:60]!r}")
    return value


def score_value(value: Any, where: str, field_name: str) -> float | None:
    """A source's score as a float: numbers and booleans (IFEval's prompt_level_strict_acc is a
    bool); None stays None (no score); anything else is an error naming the field."""
    if value is None:
        return None
    if isinstance(value, bool):
        return float(value)
    if isinstance(value, (int, float)):
        return float(value)
    raise ImportFormatError(where, field_name, f"expected a number or boolean score, got {type(value).__name__}")


def message_text(value: Any, where: str, field_name: str) -> str:
    """A prompt or response as text: a string as it is; a chat conversation (a list of
    {role, content} messages, as TRL logs a conversational prompt and OpenAI requests hold one)
    as its messages' contents joined by blank lines; anything else is an error."""
    if isinstance(value, str):
        return value
    if isinstance(value, list) and all(isinstance(m, dict) for m in value):
        parts = []
        for m in value:
            content = m.get("content")
            if isinstance(content, list):  # multimodal content parts: keep the text ones
                content = "".join(p.get("text", "") for p in content if isinstance(p, dict))
            if not isinstance(content, str):
                raise ImportFormatError(where, f"{field_name}[].content", "expected the message text as a string")
            parts.append(content)
        return "\n\n".join(parts)
    raise ImportFormatError(where, field_name, f"expected text or a list of chat messages, got {type(value).__name__}")
