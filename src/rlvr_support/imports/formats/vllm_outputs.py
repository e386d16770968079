"""vLLM offline `RequestOutput`s saved as JSONL, one request per line.

Followed: vllm-project/vllm vllm/outputs.py (`RequestOutput`: `request_id`, `prompt`,
`prompt_token_ids`, `outputs`; `CompletionOutput`: `index`, `text`, `token_ids`,
`cumulative_logprob`, `logprobs`, `finish_reason`, `stop_reason`) and vllm/sequence.py
(`Logprob`: `logprob`, `rank`, `decoded_token`). vLLM has no file writer of its own for these:
users save `dataclasses.asdict`-like dicts, so a line is {"request_id", "prompt",
"prompt_token_ids", "outputs": [{"index", "text", "token_ids", "logprobs", "finish_reason",
...}]}. `logprobs`, when requested, is one entry per generated token: a map from token id (a
string key once in JSON) to a Logprob ({"logprob": ..}) or a bare float; or a list of floats
(the sampled tokens' own). The sampled token's log-probability is kept.

Prompts are keyed by their text (`prompt_key: text`, the default: vLLM's offline request ids
are a counter, "0", "1", ..., not document ids, so two runs' ids need not match), or by
`request_id` (`prompt_key: id`) when the user set them to document ids. A prompt given only as
token ids needs a `docs:` file with its text. Keyed by text, a prompt's requests add up (a
prompt submitted 8 times with n = 1 has 8 samples); keyed by id, the same id twice, or one
`index` twice, is a duplicate.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from rlvr_support.imports.formats.sniff import require_fields
from rlvr_support.imports.formats.source_files import json_lines
from rlvr_support.imports.prompt_keys import text_key
from rlvr_support.imports.records import ImportedPrompt, ImportFormatError, typed


def _sampled_logprobs(logprobs: Any, token_ids: list[int], where: str, field: str) -> list[float] | None:
    if logprobs is None:
        return None
    if not isinstance(logprobs, list) or len(logprobs) != len(token_ids):
        raise ImportFormatError(where, field, f"expected one entry per generated token ({len(token_ids)})")
    out = []
    for t, (entry, tok) in enumerate(zip(logprobs, token_ids)):
        if isinstance(entry, dict):
            entry = entry.get(str(tok), entry.get(tok))
            if isinstance(entry, dict):
                entry = entry.get("logprob")
        if isinstance(entry, bool) or not isinstance(entry, (int, float)):
            raise ImportFormatError(where, f"{field}[{t}]", f"no log-probability for the sampled token {tok}")
        out.append(float(entry))
    return out


def read(path, spec: dict[str, Any]) -> Iterator[ImportedPrompt]:
    by_id = spec.get("prompt_key", "text") == "id"
    for where, row in json_lines(path):
        require_fields(row, ("request_id", "outputs"), where, "vllm_outputs")
        outputs = typed(row["outputs"], list, where, "outputs", "the list of CompletionOutputs")
        if not outputs:
            raise ImportFormatError(where, "outputs", "empty: a request with no completion")
        prompt = row.get("prompt")
        if prompt is not None:
            typed(prompt, str, where, "prompt", "the prompt text")
        elif not by_id:
            raise ImportFormatError(where, "prompt", "missing: a prompt given only as token ids cannot be keyed by its "
                                                     "text (set prompt_key: id and give a docs: file)")
        texts, idx, ids, lps, reasons = [], [], [], [], []
        for i, out in enumerate(outputs):
            f = f"outputs[{i}]"
            typed(out, dict, where, f, "a CompletionOutput object")
            texts.append(typed(out.get("text"), str, where, f"{f}.text", "the completion text"))
            idx.append(typed(out.get("index", i), int, where, f"{f}.index", "the completion's index"))
            toks = out.get("token_ids")
            if toks is not None:
                toks = typed(toks, list, where, f"{f}.token_ids", "a list of token ids")
            ids.append(toks)
            lps.append(_sampled_logprobs(out.get("logprobs"), toks, where, f"{f}.logprobs") if toks is not None else None)
            reasons.append(out.get("finish_reason"))
        have_ids = all(t is not None for t in ids)
        key = str(row["request_id"]) if by_id else text_key(prompt)
        yield ImportedPrompt(prompt_key=key, prompt=prompt or "", doc={}, responses=texts, where=where,
                             token_ids=ids if have_ids else None,
                             token_logprobs=lps if have_ids and all(lp is not None for lp in lps) else None,
                             finish_reasons=reasons, sample_indices=None if not by_id else idx, appends=not by_id,
                             extra={"request_id": row["request_id"], "prompt_token_ids": row.get("prompt_token_ids")})
