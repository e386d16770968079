"""lm-evaluation-harness `samples_<task>_<date>.jsonl` (`--log_samples`).

Followed: lm_eval 0.4.13 (the wheel installed here; EleutherAI/lm-evaluation-harness
lm_eval/evaluator.py `evaluate`, the `example` dict of `log_samples`, and
lm_eval/loggers/evaluation_tracker.py `save_results_samples`). One line per document and
filter: `doc_id`, `doc`, `target` (as a string), `arguments` ({"gen_args_0": {"arg_0": context,
"arg_1": gen_kwargs}}; before 0.4.3 a list [[context, gen_kwargs]]), `resps` (one list per
request; a generate_until task has one request, whose list holds the K responses of
`repeats: K`, each a string), `filtered_resps` (one per request: what the filter kept, e.g.
take_first's first response or a regex's extracted answer), `filter`, `metrics` (the names),
`doc_hash`, `prompt_hash`, `target_hash`, then one field per metric (IFEval's
`prompt_level_strict_acc` is a bool, `exact_match` a float).

Read here: every one of the K responses in `resps[0]`, not `filtered_resps`. A task with
several filters writes each document once per filter, with the same `resps`: the lines of the
entry's `filter` (default: the first line's) are read, the others skipped. The metric is the
filtered response's, which for repeats without a custom filter is lm-eval's default
take_first, the first response: it is kept as sample 0's source score (`source_score`: the
metric's field, default the first of the line's `metrics`; a metric that is not a number or
bool, such as IFEval's per-instruction lists, is an error naming it).
Prompts are keyed by `doc_id`.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from rlvr_support.imports.formats.sniff import require_fields
from rlvr_support.imports.formats.source_files import json_lines
from rlvr_support.imports.records import ImportedPrompt, ImportFormatError, score_value, typed

REQUIRED = ("doc_id", "doc", "arguments", "resps", "filtered_resps")


def _context(arguments: Any, where: str) -> str:
    if isinstance(arguments, dict):  # 0.4.3 on: {"gen_args_0": {"arg_0": context, "arg_1": gen_kwargs}}
        first = arguments.get("gen_args_0")
        ctx = first.get("arg_0") if isinstance(first, dict) else None
    elif isinstance(arguments, list) and arguments and isinstance(arguments[0], list) and arguments[0]:
        ctx = arguments[0][0]
    else:
        ctx = None
    if not isinstance(ctx, str):
        raise ImportFormatError(where, "arguments.gen_args_0.arg_0", "missing: the request's context (prompt) text")
    return ctx


def _metric_field(row: dict[str, Any], spec: dict[str, Any]) -> str | None:
    if "source_score" in spec:
        return spec["source_score"] or None
    names = row.get("metrics") or []
    return names[0] if names else None


def read(path, spec: dict[str, Any]) -> Iterator[ImportedPrompt]:
    wanted = spec.get("filter")
    for where, row in json_lines(path):
        require_fields(row, REQUIRED, where, "lm_eval")
        if wanted is None:
            wanted = row.get("filter")
        if row.get("filter") != wanted:
            continue
        resps = typed(row["resps"], list, where, "resps", "a list with one list of responses per request")
        if len(resps) != 1:
            raise ImportFormatError(where, "resps", f"{len(resps)} requests for one document: a loglikelihood "
                                                    "(multiple-choice) task, whose responses are scores, not text")
        responses = typed(resps[0], list, where, "resps[0]", "the list of the K generated responses")
        if not responses or not all(isinstance(r, str) for r in responses):
            raise ImportFormatError(where, "resps[0]", "expected a non-empty list of response strings")
        doc_id = row["doc_id"]
        typed(doc_id, (int, str), where, "doc_id", "an integer or string document id")
        doc = typed(row["doc"], dict, where, "doc", "the document as an object")
        metric = _metric_field(row, spec)
        scores = None
        if metric is not None:
            if metric not in row:
                raise ImportFormatError(where, metric, "missing: the entry's source_score names this metric")
            scores = [score_value(row[metric], where, metric)] + [None] * (len(responses) - 1)
        yield ImportedPrompt(prompt_key=str(doc_id), prompt=_context(row["arguments"], where), doc=doc,
                             responses=responses, where=where, source_scores=scores,
                             extra={"target": row.get("target"), "doc_hash": row.get("doc_hash"),
                                    "prompt_hash": row.get("prompt_hash")})
