"""OpenAI Batch API output JSONL, which `vllm run-batch` writes too.

Followed: the OpenAI Batch API's output-file format (one line per request: `id`, `custom_id`,
`response` {`status_code`, `request_id`, `body`}, `error`) and vLLM's writer of it,
vllm-project/vllm vllm/entrypoints/openai/run_batch.py (`BatchRequestOutput`,
`BatchResponseData`), whose `body` is a ChatCompletionResponse (`choices[i].message.content`,
`finish_reason`) or a CompletionResponse (`choices[i].text`).

Prompts are keyed by `custom_id`, the user's own request id. The prompt text and the gold
answer are not in the output file: give the batch's input file (or any JSONL with the ids) as
the entry's `docs:` ({file, id: custom_id}); the prompt is then read from `fields.prompt`
(default `doc.body.messages`, the request's chat messages; `doc.body.prompt` for completions).
Several requests of one prompt (n = 1 each) are named `<id><sep><sample>` by many scripts:
`custom_id_sample_sep` (e.g. "#") splits them into the prompt's key and the sample's index.
A failed request (`error` set, or a status other than 200) is an error naming its line: a
missing sample would bias pass@k.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from rlvr_support.imports.formats.sniff import require_fields
from rlvr_support.imports.formats.source_files import json_lines
from rlvr_support.imports.records import ImportedPrompt, ImportFormatError, get_field, typed


def _choice_text(choice: dict[str, Any], where: str, field: str) -> str:
    message = choice.get("message")
    if isinstance(message, dict):
        return typed(message.get("content"), str, where, f"{field}.message.content", "the assistant's text")
    return typed(choice.get("text"), str, where, f"{field}.text", "the completion text (or message.content)")


def read(path, spec: dict[str, Any]) -> Iterator[ImportedPrompt]:
    sep = spec.get("custom_id_sample_sep")
    for where, row in json_lines(path):
        require_fields(row, ("custom_id", "response"), where, "openai_batch")
        custom_id = typed(row["custom_id"], str, where, "custom_id", "the request's id string")
        if row.get("error"):
            raise ImportFormatError(where, "error", f"the request failed: {str(row['error'])[:200]}")
        response = typed(row["response"], dict, where, "response", "the response object")
        status = response.get("status_code")
        if status != 200:
            raise ImportFormatError(where, "response.status_code", f"{status}: the request failed")
        choices = typed(get_field(response, "body.choices", where), list, where, "response.body.choices",
                        "the list of choices")
        if not choices:
            raise ImportFormatError(where, "response.body.choices", "empty: a request with no completion")
        texts, reasons = [], []
        for i, ch in enumerate(choices):
            f = f"response.body.choices[{i}]"
            typed(ch, dict, where, f, "a choice object")
            texts.append(_choice_text(ch, where, f))
            reasons.append(ch.get("finish_reason"))
        key, indices, appends = custom_id, None, False
        if sep:
            head, found, tail = custom_id.rpartition(sep)
            if not found or not tail.isdigit() or len(choices) != 1:
                raise ImportFormatError(where, "custom_id", f"expected <prompt id>{sep}<sample index> with one choice "
                                                            f"(custom_id_sample_sep is {sep!r})")
            key, indices, appends = head, [int(tail)], True
        yield ImportedPrompt(prompt_key=key, prompt="", doc={}, responses=texts, where=where, finish_reasons=reasons,
                             sample_indices=indices, appends=appends, extra={"custom_id": custom_id})
