"""One reader per source format: `read(path, spec) -> Iterator[ImportedPrompt]`, streamed.

Each reader's module names the tool's file and commit whose writer it follows. FORMATS is the
registry an `imports:` entry's `format` names."""

from __future__ import annotations

from rlvr_support.imports.formats import (lighteval, lm_eval, openai_batch, plain_jsonl, trl_completions, verl,
                                          vllm_outputs)

FORMATS = {
    "lm_eval": lm_eval.read,
    "lighteval": lighteval.read,
    "vllm_outputs": vllm_outputs.read,
    "openai_batch": openai_batch.read,
    "verl": verl.read,
    "trl_completions": trl_completions.read,
    "plain_jsonl": plain_jsonl.read,
}

# how each format keys its prompts (the "stated per format"; docs/imports.md lists it)
PROMPT_KEYS = {
    "lm_eval": "doc_id",
    "lighteval": "doc.id, else the text key of doc.query",
    "vllm_outputs": "the text key of prompt (prompt_key: id -> request_id)",
    "openai_batch": "custom_id (less its sample suffix with custom_id_sample_sep)",
    "verl": "the text key of input",
    "trl_completions": "the text key of prompt",
    "plain_jsonl": "fields.id, else the text key of fields.prompt",
}
