"""Map RLVR-IFeval ground truth (allenai/RLVR-IFeval, open-instruct `if_functions.py`) to IFEval ids.

Each row's `ground_truth` is a JSON object `{"func_name": ..., <its arguments>}` (unused
arguments null). open-instruct's functions differ from Google's IFEval in a few semantics;
the mapping keeps the constraint the prompt states and says where it changes:

* exact counts (`verify_keyword_frequency`, `verify_letter_frequency`: "N times") become
  two IFEval instructions, `at least N` and `less than N+1`, whose conjunction is "exactly N";
* `at most N` becomes `less than N+1`; `around N` becomes `at least N-t` and `less than
  N+t+1` with open-instruct's tolerance t (10 % of N, at least 1, for words and capital
  words; 1 for sentences);
* letter counts are case-insensitive in IFEval (case-sensitive in open-instruct);
* `validate_choice` maps only when its options are IFEval's three ("My answer is yes." ...).

Not mappable (returned as None with a reason): `validate_choice` with other options, and any
function name outside the table. IFEval's word, sentence and paragraph counting then apply.
"""

from __future__ import annotations

import json

_IFEVAL_CHOICES = {"My answer is yes.", "My answer is no.", "My answer is maybe."}


def _count(iid: str, n_key: str, rel_key: str, n: int, quantifier: str, tol: int) -> list[tuple[str, dict]]:
    if quantifier == "at least":
        return [(iid, {n_key: n, rel_key: "at least"})]
    if quantifier == "at most":
        return [(iid, {n_key: n + 1, rel_key: "less than"})]
    if quantifier == "around":
        return [(iid, {n_key: max(n - tol, 0), rel_key: "at least"}), (iid, {n_key: n + tol + 1, rel_key: "less than"})]
    raise KeyError(f"quantifier {quantifier!r} (expected at least / at most / around)")


def _exact(iid: str, n_key: str, rel_key: str, n: int, **extra) -> list[tuple[str, dict]]:
    return [(iid, {**extra, n_key: n, rel_key: "at least"}), (iid, {**extra, n_key: n + 1, rel_key: "less than"})]


def _word_tol(n: int) -> int:
    return max(round(n * 0.1), 1)


def _map(func: str, a: dict) -> list[tuple[str, dict]] | None:
    if func == "verify_keywords":
        return [("keywords:existence", {"keywords": list(a["keyword_list"])})]
    if func == "verify_keyword_frequency":
        return _exact("keywords:frequency", "frequency", "relation", int(a["N"]), keyword=a["word"])
    if func == "validate_forbidden_words":
        return [("keywords:forbidden_words", {"forbidden_words": list(a["forbidden_words"])})]
    if func == "verify_letter_frequency":
        return _exact("keywords:letter_frequency", "let_frequency", "let_relation", int(a["N"]), letter=a["letter"])
    if func == "validate_response_language":
        return [("language:response_language", {"language": a["language"]})]
    if func == "verify_paragraph_count":
        return [("length_constraints:number_paragraphs", {"num_paragraphs": int(a["N"])})]
    if func == "validate_word_constraint":
        n = int(a["N"])
        return _count("length_constraints:number_words", "num_words", "relation", n, a["quantifier"], _word_tol(n))
    if func == "verify_sentence_constraint":
        return _count("length_constraints:number_sentences", "num_sentences", "relation", int(a["N"]), a["quantifier"], 1)
    if func == "validate_paragraphs":
        return [("length_constraints:nth_paragraph_first_word",
                 {"num_paragraphs": int(a["N"]), "nth_paragraph": int(a["i"]), "first_word": a["first_word"]})]
    if func == "verify_postscript":
        return [("detectable_content:postscript", {"postscript_marker": a["postscript_marker"]})]
    if func == "validate_placeholders":
        return [("detectable_content:number_placeholders", {"num_placeholders": int(a["N"])})]
    if func == "verify_bullet_points":
        return [("detectable_format:number_bullet_lists", {"num_bullets": int(a["N"])})]
    if func == "validate_title":
        return [("detectable_format:title", {})]
    if func == "validate_choice":
        if set(a.get("options") or []) == _IFEVAL_CHOICES:
            return [("detectable_format:constrained_response", {})]
        return None
    if func == "validate_highlighted_sections":
        return [("detectable_format:number_highlighted_sections", {"num_highlights": int(a["N"])})]
    if func == "validate_sections":
        return [("detectable_format:multiple_sections", {"num_sections": int(a["N"]), "section_spliter": a["section_splitter"]})]
    if func == "validate_json_format":
        return [("detectable_format:json_format", {})]
    if func == "validate_repeat_prompt":
        return [("combination:repeat_prompt", {"prompt_to_repeat": a["original_prompt"]})]
    if func == "validate_two_responses":
        return [("combination:two_responses", {})]
    if func == "validate_uppercase":
        return [("change_case:english_capital", {})]
    if func == "validate_lowercase":
        return [("change_case:english_lowercase", {})]
    if func == "validate_frequency_capital_words":
        n = int(a["N"])
        return _count("change_case:capital_word_frequency", "capital_frequency", "capital_relation", n,
                      a["quantifier"], _word_tol(n))
    if func == "validate_end":
        return [("startend:end_checker", {"end_phrase": a["end_phrase"]})]
    if func == "validate_quotation":
        return [("startend:quotation", {})]
    if func == "validate_no_commas":
        return [("punctuation:no_comma", {})]
    return None


def map_ground_truth(ground_truth: str | dict) -> tuple[list[str], list[dict]] | str:
    """(instruction_id_list, kwargs) for one row, or a string saying why it cannot be mapped."""
    gt = json.loads(ground_truth) if isinstance(ground_truth, str) else ground_truth
    specs = gt if isinstance(gt, list) else [gt]
    ids, kwargs = [], []
    for spec in specs:
        if not isinstance(spec, dict) or "func_name" not in spec:
            return f"ground_truth has no func_name: {str(spec)[:80]}"
        args = {k: v for k, v in spec.items() if k != "func_name" and v is not None}
        try:
            mapped = _map(spec["func_name"], args)
        except KeyError as e:
            return f"{spec['func_name']}: missing or bad argument {e}"
        if mapped is None:
            return f"{spec['func_name']} has no IFEval equivalent" + (
                f" (options {args.get('options')})" if spec["func_name"] == "validate_choice" else "")
        for iid, kw in mapped:
            ids.append(iid)
            kwargs.append(kw)
    return ids, kwargs
