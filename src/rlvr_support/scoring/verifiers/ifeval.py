r"""IFEval instruction checkers (Zhou et al. 2023, "Instruction-Following Evaluation
for Large Language Models"), re-implemented offline and deterministically.

This module is the IFEval family (scoring/verifiers/families.py): its 25 checkers in
`REGISTRY`, its kwargs checks and its language detection. The protocol all instruction families
share (kwargs validation, strict/loose scoring) is `instructions`; IFBench's checkers (`ifbench`)
and IF-RLVR's training constraints (`iftrain`) are families of their own, so a job whose data
uses IFEval's ids only runs (and its code hash covers) none of theirs.

Semantics follow Google's reference code as vendored in lm-eval
(`lm_eval/tasks/ifeval/instructions.py`, `utils.py`): same instruction ids, same
kwargs names, same strict/loose protocol; `tests/test_ifeval_differential.py`
compares both. Like upstream, an empty or whitespace-only response follows no
instruction.

Deviations from upstream, all of them (upstream = lm-eval's copy; "Google" =
google-research's `instruction_following_eval` where it differs). Each is a fix:

1. Keywords as patterns. Upstream: `keywords:existence`, `keywords:frequency` and
   `keywords:forbidden_words` pass the keyword to `re` as a regex, so "(a)" or
   "c++" errors or matches something else, and a pathological keyword backtracks
   catastrophically. Ours: keywords are literal text (`re.escape`), matched
   case-insensitively; existence and frequency still match substrings, as upstream.
2. Forbidden words with a symbol at an edge. Upstream: `\bWORD\b`; next to a
   symbol `\b` needs a word character on the other side, so forbidden "+" in
   "One + one" or "(note)" in "See (note) below." is never caught ("C++" is caught
   on Python 3.11 only because the pattern `C++` reads as a possessive `C+`).
   Ours: a boundary (`(?<!\w)`, `(?!\w)`) only on an edge of the word that is a
   word character, so those are caught and forbidden "cat" still does not fire
   on "concatenate".
3. `keywords:letter_frequency` letters. Upstream (lm-eval): a letter outside a-z,
   or longer than one character, is silently replaced by a random ASCII letter;
   Google now accepts any single non-whitespace character ("#") and rejects
   longer ones. Ours: any single character after stripping whitespace, counted
   case-insensitively; an empty or longer `letter` is a load-time error.
4. `detectable_content:postscript` markers as patterns. Upstream: a marker other
   than "P.S." and "P.P.S" is a regex (`\s*MARKER.*$`), so "." matches any
   character and marker "P.S" matches "possible". Ours: the marker is literal
   (case-insensitive); "P.S." and "P.P.S" keep upstream's patterns (optional space
   after a dot).
5. `detectable_format:multiple_sections` splitter as a pattern. Upstream:
   `\s?SPLITTER\s?\d+\s?` with SPLITTER as a regex. Ours: SPLITTER is literal.
6. Missing and falsy kwargs. Upstream: a missing kwarg becomes a random value
   (scores are not reproducible), and kwargs are filtered with `if v`, so a falsy
   one such as `frequency=0` became random too. Ours: a missing required kwarg is
   an error (`validate_instructions`); only None is dropped, so 0 is 0.
7. Out-of-range kwargs. Upstream: `nth_paragraph` <= 0 and bad letters (see 3) become
   random values. Ours: load-time errors naming the instruction and the kwarg.
8. `combination:repeat_prompt`. Upstream: `prompt_to_repeat` is required; missing
   or empty (dropped as falsy) raises ValueError while scoring. Ours: missing falls
   back to the `prompt` argument; empty or whitespace-only is a load-time error
   (it would let every non-empty response pass).
9. Words. Upstream: `nltk.word_tokenize` for capital words (its sentence pass needs
   downloaded data). Ours: `sentences.word_tokens` (Treebank-like). Sentences are no
   deviation: `sentences.split_sentences` is NLTK's Punkt with upstream's English model.
10. Language detection. Upstream (lm-eval): langdetect with a random seed, one
    text at a time (Google now fixes seed 0). Ours: seed 0, computed by the
    bit-identical batched `langdetect_fast` and cached; `LangDetectException`
    counts as followed, as upstream.
11. `detectable_format:json_format` on deeply nested JSON. Upstream: the
    RecursionError from `json.loads` escapes and aborts the evaluation. Ours: not
    JSON, so not followed.

Not deviations: bullets, placeholders, titles, postscripts and sections are
counted by linear scans that give upstream's regex results without its quadratic
backtracking (see those functions).
"""

from __future__ import annotations

import contextlib
import json
import re
from collections import OrderedDict
from typing import Callable

from rlvr_support.scoring.reasoning import strip_reasoning
from rlvr_support.scoring.verifiers import langdetect_fast
# The protocol (validation, strict/loose scoring) lives in `instructions`; its names are re-exported
# here, where callers have always found them. Scoring through them scores every family the job
# may load, IFBench's and IFTrain's ids included.
from rlvr_support.scoring.verifiers.instructions import (
    INT as _INT,
    LIST as _LIST,
    REL as _REL,
    RELATIONS,
    STR as _STR,
    IFResult,
    InstructionError,
    check_instruction,
    loose_variants,
    score_if,
    validate_instructions,
)
from rlvr_support.scoring.verifiers.sentences import count_sentences, count_words, whole_word, word_tokens

__all__ = ["RELATIONS", "IFResult", "InstructionError", "check_instruction", "loose_variants", "score_if",
           "strip_reasoning", "validate_instructions", "INSTRUCTION_IDS", "REGISTRY", "detect_language",
           "detect_languages", "clear_language_cache", "languages_prefetched"]

_CONSTRAINED_RESPONSES = ("My answer is yes.", "My answer is no.", "My answer is maybe.")


# ---------------------------------------------------------------------------
# Language detection (langdetect), deterministic and cached.
#
# langdetect with seed 0 is computed by `langdetect_fast` (bit-identical, batched)
# and remembered per text in a bounded LRU shared by all calls. Inside
# `languages_prefetched(items)`, every text that score_if(*item) will ask about has
# been detected in one batch beforehand and is held until the block ends.

_LANG_CACHE: OrderedDict[str, str | None] = OrderedDict()
_LANG_CACHE_ITEMS = 65_536
_LANG_CACHE_CHARS = 16_000_000  # bounds memory: at most ~16M characters of keys
_LANG_CACHE_MAX_TEXT = 20_000  # longer texts are not cached (langdetect reads ~10k chars)
_lang_cache_chars = 0
_PINNED: dict[str, str | None] = {}  # held by languages_prefetched, whatever the LRU evicts
_MISSING = object()


def detect_language(text: str) -> str | None:
    """ISO code from langdetect (seed 0), or None when it cannot tell (upstream: pass)."""
    return detect_languages([text])[0]


def detect_languages(texts: list[str]) -> list[str | None]:
    """detect_language for many texts; the unknown ones are detected in one batch."""
    out = []
    for t in texts:
        found = _PINNED.get(t, _MISSING)
        if found is _MISSING:
            found = _LANG_CACHE.get(t, _MISSING)
            if found is not _MISSING:
                _LANG_CACHE.move_to_end(t)
        out.append(found)
    todo = list(dict.fromkeys(t for t, o in zip(texts, out) if o is _MISSING))
    if todo:
        found = dict(zip(todo, langdetect_fast.detect_languages(todo)))
        for text, code in found.items():
            _remember(text, code)
        out = [found[t] if o is _MISSING else o for t, o in zip(texts, out)]
    return out


def _remember(text: str, code: str | None) -> None:
    global _lang_cache_chars
    if len(text) > _LANG_CACHE_MAX_TEXT or text in _LANG_CACHE:
        return
    _LANG_CACHE[text] = code
    _lang_cache_chars += len(text)
    while len(_LANG_CACHE) > _LANG_CACHE_ITEMS or _lang_cache_chars > _LANG_CACHE_CHARS:
        old, _ = _LANG_CACHE.popitem(last=False)
        _lang_cache_chars -= len(old)


def clear_language_cache() -> None:
    global _lang_cache_chars
    _LANG_CACHE.clear()
    _lang_cache_chars = 0


def _is_language(text: str, code: str) -> bool:
    found = detect_language(text)
    return found is None or found == code


# ---------------------------------------------------------------------------
# Checkers. Each takes (response, kwargs-without-None, prompt) and returns bool.


def _compare(count: int, relation: str, threshold: int) -> bool:
    return count < threshold if relation == "less than" else count >= threshold


def _existence(v, kw, _):
    return all(re.search(re.escape(k), v, re.IGNORECASE) for k in kw["keywords"])


def _frequency(v, kw, _):
    n = len(re.findall(re.escape(kw["keyword"].strip()), v, re.IGNORECASE))
    return _compare(n, kw["relation"], kw["frequency"])


def _forbidden(v, kw, _):
    return not any(whole_word(w).search(v) for w in kw["forbidden_words"])


def _letter_frequency(v, kw, _):
    n = v.lower().count(kw["letter"].strip().lower())
    return _compare(n, kw["let_relation"], kw["let_frequency"])


def _response_language(v, kw, _):
    return _is_language(v, kw["language"])


def _number_sentences(v, kw, _):
    return _compare(count_sentences(v), kw["relation"], kw["num_sentences"])


def _number_paragraphs(v, kw, _):
    # Paragraphs are separated by the markdown divider "***" (upstream regex).
    paragraphs = re.split(r"\s?\*\*\*\s?", v)
    n = len(paragraphs)
    for i, p in enumerate(paragraphs):
        if not p.strip():
            if i == 0 or i == len(paragraphs) - 1:
                n -= 1
            else:
                return False  # an empty paragraph in the middle
    return n == kw["num_paragraphs"]


def _number_words(v, kw, _):
    return _compare(count_words(v), kw["relation"], kw["num_words"])


def _nth_paragraph_first_word(v, kw, _):
    # Here paragraphs are separated by blank lines ("\n\n"), as upstream.
    paragraphs = v.split("\n\n")
    n = sum(1 for p in paragraphs if p.strip())
    nth = kw["nth_paragraph"]
    if not 1 <= nth <= n:
        return False
    paragraph = paragraphs[nth - 1].strip()
    if not paragraph:
        return False
    word = paragraph.split()[0].strip().lstrip("'").lstrip('"')
    first = ""
    for ch in word:  # upstream: cut at the first punctuation mark
        if ch in ".,?!'\"":
            break
        first += ch.lower()
    return n == kw["num_paragraphs"] and first == kw["first_word"].lower()


def _count_placeholders(v: str) -> int:
    """len(re.findall(r"\\[.*?\\]", v)) in linear time.

    The regex rescans to the end of the line from every "[" that has no "]" after
    it on its line: quadratic on a long line of "[". Here: from each "[", find the
    first "]" on the same line; if there is none, no later "[" on that line can
    match either, so jump to the next line.
    """
    count, pos = 0, 0
    while True:
        i = v.find("[", pos)
        if i < 0:
            return count
        eol = v.find("\n", i)
        eol = len(v) if eol < 0 else eol
        j = v.find("]", i + 1, eol)
        if j < 0:
            pos = eol + 1
        else:
            count += 1
            pos = j + 1


def _number_placeholders(v, kw, _):
    return _count_placeholders(v) >= kw["num_placeholders"]


def _postscript(v, kw, _):
    marker = kw["postscript_marker"].strip()
    v = v.lower()
    if marker == "P.P.S":
        pattern = r"p\.\s?p\.\s?s"
    elif marker == "P.S.":
        pattern = r"p\.\s?s\."
    else:
        pattern = re.escape(marker.lower())
    # Upstream's r"\s*MARKER.*$" with MULTILINE matches iff MARKER occurs anywhere
    # (each line's ".*$" always completes), so a search gives the same answer in
    # linear time. Other markers are literal, not patterns (deviation 4).
    return re.search(pattern, v) is not None


_NON_SPACE = re.compile(r"\S")


def _count_line_matches(v: str, star: bool) -> int:
    """Count upstream's bullet matches without its quadratic regex.

    Upstream: len(findall(r"^\\s*\\*[^\\*].*$", v, MULTILINE)) for star bullets and
    r"^\\s*-.*$" for dash bullets. "\\s*" spans newlines, so every line start in a
    whitespace run reaches the same next non-space character: either the earliest
    of them matches (and the match runs to the end of that line) or all fail. On a
    megabyte of newlines the regex rescans the run from each line (O(n^2)); this scan
    visits each character a bounded number of times.
    """
    count, pos, size = 0, 0, len(v)
    while pos <= size:
        m = _NON_SPACE.search(v, pos)
        if m is None:
            break
        j = m.start()
        if star:
            hit = v[j] == "*" and j + 1 < size and v[j + 1] != "*"
            # "[^*]" may itself be the newline; ".*$" then ends at the next line end.
            tail = j + 2 if hit and v[j + 1] == "\n" else j + 1
        else:
            hit = v[j] == "-"
            tail = j
        if hit:
            count += 1
        nl = v.find("\n", tail if hit else j)
        if nl < 0:
            break
        pos = nl + 1
    return count


def _number_bullet_lists(v, kw, _):
    n = _count_line_matches(v, star=True) + _count_line_matches(v, star=False)
    return n == kw["num_bullets"]


def _constrained_response(v, kw, _):
    v = v.strip()
    return any(option in v for option in _CONSTRAINED_RESPONSES)


def _number_highlighted_sections(v, kw, _):
    n = sum(1 for h in re.findall(r"\*[^\n*]*\*", v) if h.strip("*").strip())
    n += sum(1 for h in re.findall(r"\*\*[^\n*]*\*\*", v) if h[2:-2].strip())
    return n >= kw["num_highlights"]


def _multiple_sections(v, kw, _):
    splitter = re.escape(kw["section_spliter"].strip())
    # Upstream: len(re.split(r"\s?SPLITTER\s?\d+\s?", v)) - 1 = number of matches.
    n = sum(1 for _ in re.finditer(r"\s?" + splitter + r"\s?\d+\s?", v))
    return n >= kw["num_sections"]


def _json_format(v, kw, _):
    v = v.strip()
    for prefix in ("```json", "```Json", "```JSON", "```"):
        if v.startswith(prefix):
            v = v[len(prefix) :]
            break
    v = v.removesuffix("```").strip()
    try:
        json.loads(v)
    except (ValueError, RecursionError):  # RecursionError: deeply nested input
        return False
    return True


def _title(v, kw, _):
    """Upstream: any(t.lstrip("<").rstrip(">").strip() for t in findall(r"<<[^\\n]+>>")).

    The greedy regex backtracks over the whole line from every "<<" (quadratic on
    a line of "<"). Equivalent linear form: on each line the only candidate match
    runs from the first "<<" to the last ">>" that starts at least 3 chars later.
    """
    pos = 0
    while True:
        i = v.find("<<", pos)
        if i < 0:
            return False
        eol = v.find("\n", i)
        eol = len(v) if eol < 0 else eol
        e = v.rfind(">>", i + 3, eol)
        if e >= 0 and v[i : e + 2].lstrip("<").rstrip(">").strip():
            return True
        pos = eol + 1


def _two_responses(v, kw, _):
    valid = []
    parts = v.split("******")
    for i, part in enumerate(parts):
        if not part.strip():
            if i != 0 and i != len(parts) - 1:
                return False
        else:
            valid.append(part)
    return len(valid) == 2 and valid[0].strip() != valid[1].strip()


def _repeat_prompt(v, kw, prompt):
    target = kw.get("prompt_to_repeat", prompt)
    return v.strip().lower().startswith(target.strip().lower())


def _end_checker(v, kw, _):
    return v.strip().strip('"').lower().endswith(kw["end_phrase"].strip().lower())


def _quotation(v, kw, _):
    v = v.strip()
    return len(v) > 1 and v[0] == '"' and v[-1] == '"'


def _capital_word_frequency(v, kw, _):
    n = sum(1 for w in word_tokens(v) if w.isupper())
    return _compare(n, kw["capital_relation"], kw["capital_frequency"])


def _english_capital(v, kw, _):
    return v.isupper() and _is_language(v, "en")


def _english_lowercase(v, kw, _):
    return v.islower() and _is_language(v, "en")


# The checkers above that call langdetect, and the test each applies first (the
# text is only detected when that test passes): used by languages_prefetched.
_LANGUAGE_GATES: dict[str, Callable[[str], bool] | None] = {
    "change_case:english_capital": str.isupper,
    "change_case:english_lowercase": str.islower,
    "language:response_language": None,
}


def _no_comma(v, kw, _):
    return "," not in v


# ---------------------------------------------------------------------------
# Registry: id -> (checker, required kwargs {name: type}, optional kwargs).

REGISTRY: dict[str, tuple[Callable[[str, dict, str], bool], dict[str, str], dict[str, str]]] = {
    "keywords:existence": (_existence, {"keywords": _LIST}, {}),
    "keywords:frequency": (_frequency, {"keyword": _STR, "frequency": _INT, "relation": _REL}, {}),
    "keywords:forbidden_words": (_forbidden, {"forbidden_words": _LIST}, {}),
    "keywords:letter_frequency": (
        _letter_frequency,
        {"letter": _STR, "let_frequency": _INT, "let_relation": _REL},
        {},
    ),
    "language:response_language": (_response_language, {"language": _STR}, {}),
    "length_constraints:number_sentences": (
        _number_sentences,
        {"num_sentences": _INT, "relation": _REL},
        {},
    ),
    "length_constraints:number_paragraphs": (_number_paragraphs, {"num_paragraphs": _INT}, {}),
    "length_constraints:number_words": (_number_words, {"num_words": _INT, "relation": _REL}, {}),
    "length_constraints:nth_paragraph_first_word": (
        _nth_paragraph_first_word,
        {"num_paragraphs": _INT, "nth_paragraph": _INT, "first_word": _STR},
        {},
    ),
    "detectable_content:number_placeholders": (
        _number_placeholders,
        {"num_placeholders": _INT},
        {},
    ),
    "detectable_content:postscript": (_postscript, {"postscript_marker": _STR}, {}),
    "detectable_format:number_bullet_lists": (_number_bullet_lists, {"num_bullets": _INT}, {}),
    "detectable_format:constrained_response": (_constrained_response, {}, {}),
    "detectable_format:number_highlighted_sections": (
        _number_highlighted_sections,
        {"num_highlights": _INT},
        {},
    ),
    "detectable_format:multiple_sections": (
        _multiple_sections,
        {"section_spliter": _STR, "num_sections": _INT},
        {},
    ),
    "detectable_format:json_format": (_json_format, {}, {}),
    "detectable_format:title": (_title, {}, {}),
    "combination:two_responses": (_two_responses, {}, {}),
    "combination:repeat_prompt": (_repeat_prompt, {}, {"prompt_to_repeat": _STR}),
    "startend:end_checker": (_end_checker, {"end_phrase": _STR}, {}),
    "startend:quotation": (_quotation, {}, {}),
    "change_case:capital_word_frequency": (
        _capital_word_frequency,
        {"capital_frequency": _INT, "capital_relation": _REL},
        {},
    ),
    "change_case:english_capital": (_english_capital, {}, {}),
    "change_case:english_lowercase": (_english_lowercase, {}, {}),
    "punctuation:no_comma": (_no_comma, {}, {}),
}

INSTRUCTION_IDS: tuple[str, ...] = tuple(REGISTRY)  # IFEval's 25; IFBench's and IFTrain's are in ifbench, iftrain


def check_kwargs(instruction_id: str, out: dict) -> None:
    """IFEval's value checks, after the protocol's name and type checks (instructions._normalise)."""
    if instruction_id == "keywords:letter_frequency" and len(out["letter"].strip()) != 1:
        # Any single character, punctuation included, as Google's IFEval (deviation 3).
        raise ValueError(f"kwarg 'letter': expected exactly one character, got {out['letter']!r}")
    repeat = out.get("prompt_to_repeat")
    if instruction_id == "combination:repeat_prompt" and repeat is not None and not repeat.strip():
        # An empty prefix is a prefix of every response: all would pass (deviation 8).
        raise ValueError(f"kwarg 'prompt_to_repeat' must not be empty, got {repeat!r}")
    if instruction_id == "length_constraints:nth_paragraph_first_word" and out["nth_paragraph"] < 1:
        raise ValueError("kwarg 'nth_paragraph' must be >= 1")


# ---------------------------------------------------------------------------
# Language detection ahead of scoring.


def _asks_language(instruction_id: str, text: str) -> bool:
    gate = _LANGUAGE_GATES[instruction_id]
    return bool(text.strip()) and (gate is None or gate(text))


@contextlib.contextmanager
def languages_prefetched(items: list[tuple[str, list[str], list[dict], str]]):
    """Within the block, score_if(*item) finds every language it needs detected.

    items: (text, instruction_id_list, kwargs, prompt), text already stripped of
    reasoning. The texts are detected in one batch (~30x faster than one by one)
    and held until the block ends. Only speed changes: what score_if returns, or
    raises, is the same (malformed items are left to score_if). Two rounds, as
    score_if: the responses, then the loose variants of those whose strict
    language check failed.
    """
    saved = dict(_PINNED)
    try:
        asked, todo = [], []
        for item in items:
            text, ids = item[0], item[1]
            try:
                mine = [iid for iid in ids if iid in _LANGUAGE_GATES]
            except TypeError:  # not a list of ids: score_if reports it
                continue
            if mine:
                todo.append(item)
                asked += [text for iid in mine if _asks_language(iid, text)]
        _pin(asked)
        asked = []
        for text, ids, kwargs, prompt in todo:
            variants = None
            for iid, kw in zip(ids, kwargs if isinstance(kwargs, (list, tuple)) else ()):
                if iid not in _LANGUAGE_GATES:
                    continue
                try:
                    if check_instruction(iid, text, kw, prompt):
                        continue
                except (InstructionError, TypeError, KeyError, ValueError):
                    continue  # score_if reports it
                if variants is None:
                    variants = loose_variants(text)[1:]
                asked += [v for v in variants if _asks_language(iid, v)]
        _pin(asked)
        yield
    finally:
        _PINNED.clear()
        _PINNED.update(saved)


def _pin(texts: list[str]) -> None:
    _PINNED.update(zip(texts, detect_languages(texts)))


# The protocol's hook (instructions.prefetched).
prefetched = languages_prefetched
