"""lighteval details Parquet (`details/<model>/<date>/details_<task>_<date>.parquet`).

Followed: huggingface/lighteval at 3fd15266bc8448b797e61462d293aa3fd40b3580:
src/lighteval/logging/evaluation_tracker.py (`save`: `Dataset.from_list([asdict(detail)])`,
the top-level `id` dropped, columns sorted; `save_details`: `dataset.to_parquet`),
src/lighteval/logging/info_loggers.py (`DetailsLogger.Detail`: `doc`, `model_response`,
`metric`), src/lighteval/tasks/requests.py (`Doc`: `query`, `choices`, `gold_index` (int or a
list), `instruction`, `specific`, `id`, `num_samples`, ...) and
src/lighteval/models/model_output.py (`ModelResponse`: `input`, `text` (the n samples),
`output_tokens` (their token ids, when the backend keeps them), `logprobs`, ...).

One row per document: the n responses are `model_response.text`. Prompts are keyed by
`doc.id` (the task's document id) when it is set, else by the query's text key. The gold
answer is `doc.choices[gold_index]` (the first gold when several). `metric` holds the
document's scores, each over all n responses (pass@k:k=1&n=4 ...), so a source score per
response exists only for n = 1 (`source_score`: the metric's name, default its first).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from rlvr_support.imports.formats.sniff import require_fields
from rlvr_support.imports.formats.source_files import parquet_rows
from rlvr_support.imports.prompt_keys import text_key
from rlvr_support.imports.records import ImportedPrompt, ImportFormatError, score_value, typed


def _gold(doc: dict[str, Any]) -> Any:
    choices, gold = doc.get("choices") or [], doc.get("gold_index")
    if isinstance(gold, list):
        gold = gold[0] if gold else None
    if isinstance(gold, int) and 0 <= gold < len(choices):
        return choices[gold]
    return None


def read(path, spec: dict[str, Any]) -> Iterator[ImportedPrompt]:
    for where, row in parquet_rows(path):
        require_fields(row, ("doc", "model_response"), where, "lighteval")
        doc = typed(row["doc"], dict, where, "doc", "the Doc as a struct")
        response = typed(row["model_response"], dict, where, "model_response", "the ModelResponse as a struct")
        query = typed(doc.get("query"), str, where, "doc.query", "the query text")
        texts = response.get("text")
        if not isinstance(texts, list) or not texts or not all(isinstance(t, str) for t in texts):
            raise ImportFormatError(where, "model_response.text", "expected a non-empty list of response strings")
        tokens = response.get("output_tokens") or None
        if tokens is not None and len(tokens) != len(texts):
            tokens = None  # a backend that keeps one token list for all samples: not per response
        metric = row.get("metric") or {}
        name = spec.get("source_score", next(iter(metric), None)) if isinstance(metric, dict) else None
        scores = None
        if name and len(texts) == 1:
            if name not in metric:
                raise ImportFormatError(where, f"metric.{name}", "missing: the entry's source_score names this metric")
            scores = [score_value(metric[name], where, f"metric.{name}")]
        key = str(doc["id"]) if doc.get("id") not in (None, "") else text_key(query)
        yield ImportedPrompt(prompt_key=key, prompt=query, doc=doc, responses=texts, where=where,
                             source_scores=scores, token_ids=tokens, extra={"gold": _gold(doc)})
