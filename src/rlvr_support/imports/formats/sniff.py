"""Which tool wrote a row: the error for a file of another format than the entry names says
which format it looks like, from the fields each tool always writes."""

from __future__ import annotations

from typing import Any

from rlvr_support.imports.records import ImportFormatError

# format -> fields its every row has (read from each tool's writer: see the format modules)
SIGNATURES = {
    "lm_eval": ("doc_id", "resps", "filtered_resps"),
    "lighteval": ("doc", "model_response", "metric"),
    "vllm_outputs": ("request_id", "outputs"),
    "openai_batch": ("custom_id", "response"),
    "verl": ("input", "output", "gts", "score", "step"),
    "trl_completions": ("step", "prompt", "completion", "advantage"),
}


def looks_like(row: dict[str, Any]) -> str | None:
    """The format whose fields `row` has, or None."""
    for name, fields in SIGNATURES.items():
        if all(f in row for f in fields):
            return name
    return None


def require_fields(row: dict[str, Any], fields: tuple[str, ...], where: str, fmt: str) -> None:
    """An error naming the first of `fields` missing from `row`, and the format `row` looks like
    if it is another tool's."""
    missing = [f for f in fields if f not in row]
    if not missing:
        return
    other = looks_like(row)
    hint = (f"; this looks like a {other} file, not {fmt} (set the entry's format: {other})" if other and other != fmt
            else f" (a {fmt} row has {', '.join(fields)}; this one has {', '.join(list(row)[:12])})")
    raise ImportFormatError(where, missing[0], "missing" + hint)
