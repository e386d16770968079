"""A plain JSONL with fields the entry names, for every tool without a reader here.

`fields:` names them (dotted paths into a line): `prompt` and `response` (required), `id` (the
prompt's document id; without it prompts are keyed by their text key), `score` (the source's
score), `sample` (the response's index). A line holds one response (a string) or all of a
prompt's responses (a list; `score` then a list of as many, or one number for all). Lines of one
prompt need not be adjacent; with `sample`, one index twice for a prompt is a duplicate, and
without an `id`, lines with a list of responses are one prompt each (the same prompt twice is a
duplicate).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from rlvr_support.imports.formats.source_files import json_lines
from rlvr_support.imports.prompt_keys import text_key
from rlvr_support.imports.records import ImportedPrompt, ImportFormatError, get_field, message_text, score_value, typed


def read(path, spec: dict[str, Any]) -> Iterator[ImportedPrompt]:
    fields = spec.get("fields") or {}
    for need in ("prompt", "response"):
        if not fields.get(need):
            raise ImportFormatError(str(path), f"fields.{need}", "the plain_jsonl format needs the entry to name it")
    for where, row in json_lines(path):
        prompt = message_text(get_field(row, fields["prompt"], where), where, fields["prompt"])
        got = get_field(row, fields["response"], where)
        many = isinstance(got, list) and all(isinstance(r, str) for r in got)
        responses = got if many else [typed(got, str, where, fields["response"], "a response string or a list of them")]
        if not responses:
            raise ImportFormatError(where, fields["response"], "an empty list of responses")
        scores = None
        if fields.get("score"):
            raw = get_field(row, fields["score"], where)
            if isinstance(raw, list):
                if len(raw) != len(responses):
                    raise ImportFormatError(where, fields["score"], f"{len(raw)} scores for {len(responses)} responses")
                scores = [score_value(s, where, fields["score"]) for s in raw]
            else:
                scores = [score_value(raw, where, fields["score"])] * len(responses)
        indices = None
        if fields.get("sample"):
            if many:
                raise ImportFormatError(where, fields["sample"], "a sample index with a list of responses")
            indices = [typed(get_field(row, fields["sample"], where), int, where, fields["sample"], "an integer index")]
        key = (str(typed(get_field(row, fields["id"], where), (int, str), where, fields["id"], "an id"))
               if fields.get("id") else text_key(prompt))
        yield ImportedPrompt(prompt_key=key, prompt=prompt, doc=row, responses=responses, where=where,
                             source_scores=scores, sample_indices=indices, appends=not many)
