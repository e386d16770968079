r"""IFEval instruction checkers (Zhou et al. 2023, "Instruction-Following Evaluation
for Large Language Models"), re-implemented offline and deterministically.

IFBench's checkers (`ifbench`) and IF-RLVR's training constraints (`iftrain`) join this
module's registry, so everything below (validation, strict/loose scoring) serves all three.

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
9. Sentences and words. Upstream: nltk punkt sentences (downloaded data) and
   `nltk.word_tokenize` for capital words. Ours: `sentences.split_sentences`
   (punkt-like, no data) and `sentences.word_tokens` (Treebank-like).
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
import functools
import json
import re
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any, Callable

from rlvr_support.scoring.verifiers import ifbench, iftrain, langdetect_fast
from rlvr_support.scoring.verifiers.sentences import count_sentences, count_words, whole_word, word_tokens

RELATIONS = ("less than", "at least")
_CONSTRAINED_RESPONSES = ("My answer is yes.", "My answer is no.", "My answer is maybe.")


class InstructionError(ValueError):
    """Bad instruction id or kwargs in the prompt data."""


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

_STR, _INT, _LIST, _REL = "str", "int", "list[str]", "relation"

_REGISTRY: dict[str, tuple[Callable[[str, dict, str], bool], dict[str, str], dict[str, str]]] = {
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

INSTRUCTION_IDS: tuple[str, ...] = tuple(_REGISTRY)  # IFEval's 25; IFBench's and IFTrain's are in ifbench, iftrain

# IFBench's checkers take the same (response, kwargs, prompt) and are scored by the same
# strict/loose protocol, so one registry serves both benchmarks.
_REGISTRY.update(ifbench.REGISTRY)
# IF-RLVR's training constraints (`iftrain`) join the same way; no id is shared.
if set(_REGISTRY) & set(iftrain.REGISTRY):
    raise RuntimeError(f"instruction ids in two registries: {sorted(set(_REGISTRY) & set(iftrain.REGISTRY))}")
_REGISTRY.update(iftrain.REGISTRY)


# ---------------------------------------------------------------------------
# Validation and kwargs normalisation.


def _check_type(value: Any, kind: str) -> Any:
    """Return the normalised value, or raise TypeError/ValueError with a reason."""
    if kind == _STR:
        if not isinstance(value, str):
            raise TypeError(f"expected a string, got {type(value).__name__}")
        return value
    if kind == _REL:
        if value not in RELATIONS:
            raise ValueError(f"expected one of {RELATIONS}, got {value!r}")
        return value
    if kind == _INT:
        # Data loaded through pandas may carry ints as floats (3.0): accept those.
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise TypeError(f"expected an integer, got {type(value).__name__}")
        if isinstance(value, float) and not value.is_integer():
            raise TypeError(f"expected an integer, got {value!r}")
        return int(value)
    if kind == _LIST:
        if isinstance(value, str) or not all(isinstance(x, str) for x in value):
            raise TypeError("expected a list of strings")
        return tuple(value)
    raise AssertionError(kind)


def _normalise(instruction_id: str, kwargs: dict) -> dict:
    """Drop None-valued keys, check names and types. Raises (Key|Type|Value)Error."""
    reason = ifbench.unavailable_reason(instruction_id)
    if reason is not None:
        raise KeyError(f"IFBench instruction {instruction_id!r} is not available here: {reason}")
    if instruction_id not in _REGISTRY:
        raise KeyError(f"unknown instruction id {instruction_id!r}")
    if kwargs is None:
        kwargs = {}
    if not isinstance(kwargs, dict):
        raise TypeError(f"kwargs must be a dict, got {type(kwargs).__name__}")
    _, required, optional = _REGISTRY[instruction_id]
    given = {k: v for k, v in kwargs.items() if v is not None}
    out = {}
    for name, value in given.items():
        kind = required.get(name) or optional.get(name)
        if kind is None:
            raise KeyError(f"unknown kwarg {name!r} (expected {sorted(required) + sorted(optional)})")
        try:
            out[name] = _check_type(value, kind)
        except (TypeError, ValueError) as e:
            raise type(e)(f"kwarg {name!r}: {e}") from None
    missing = [name for name in required if name not in out]
    if missing:
        raise KeyError(f"missing required kwarg(s) {missing}")
    if instruction_id == "keywords:letter_frequency" and len(out["letter"].strip()) != 1:
        # Any single character, punctuation included, as Google's IFEval (deviation 3).
        raise ValueError(f"kwarg 'letter': expected exactly one character, got {out['letter']!r}")
    repeat = out.get("prompt_to_repeat")
    if instruction_id == "combination:repeat_prompt" and repeat is not None and not repeat.strip():
        # An empty prefix is a prefix of every response: all would pass (deviation 8).
        raise ValueError(f"kwarg 'prompt_to_repeat' must not be empty, got {repeat!r}")
    if instruction_id == "length_constraints:nth_paragraph_first_word" and out["nth_paragraph"] < 1:
        raise ValueError("kwarg 'nth_paragraph' must be >= 1")
    if instruction_id in ifbench.REGISTRY:
        ifbench.check_kwargs(instruction_id, out)
    if instruction_id in iftrain.REGISTRY:
        iftrain.check_kwargs(instruction_id, out)
    return out


def validate_instructions(instruction_id_list: list[str], kwargs: list[dict], prompt_id: str) -> None:
    """Raise InstructionError naming the prompt and instruction if the spec is bad."""
    if isinstance(instruction_id_list, str) or not hasattr(instruction_id_list, "__len__"):
        raise InstructionError(f"prompt {prompt_id!r}: instruction_id_list must be a list")
    if kwargs is None or isinstance(kwargs, (str, dict)) or len(kwargs) != len(instruction_id_list):
        n = None if kwargs is None or isinstance(kwargs, (str, dict)) else len(kwargs)
        raise InstructionError(
            f"prompt {prompt_id!r}: kwargs must be a list with one dict per instruction "
            f"({len(instruction_id_list)} instructions {list(instruction_id_list)}, "
            f"got {n if n is not None else type(kwargs).__name__})"
        )
    for iid, kw in zip(instruction_id_list, kwargs):
        try:
            _normalise(iid, kw)
        except (KeyError, TypeError, ValueError) as e:
            msg = e.args[0] if e.args else str(e)
            raise InstructionError(f"prompt {prompt_id!r}, instruction {iid!r}: {msg}") from None


@functools.lru_cache(maxsize=4096)
def _normalise_cached(instruction_id: str, frozen: tuple) -> dict:
    return _normalise(instruction_id, {k: (list(v) if isinstance(v, tuple) else v) for k, v in frozen})


def _freeze(kwargs: dict | None) -> tuple:
    if not kwargs:
        return ()
    return tuple(
        sorted((k, tuple(v) if isinstance(v, list) else v) for k, v in kwargs.items() if v is not None)
    )


def _prepared(instruction_id: str, kwargs: dict | None) -> dict:
    try:
        return _normalise_cached(instruction_id, _freeze(kwargs))
    except TypeError:  # unhashable value: fall back to the uncached path
        return _normalise(instruction_id, kwargs or {})


# ---------------------------------------------------------------------------
# Public scoring API.


def check_instruction(instruction_id: str, response: str, kwargs: dict, prompt: str) -> bool:
    """Strict check of one instruction. Raises InstructionError on bad id/kwargs."""
    try:
        kw = _prepared(instruction_id, kwargs)
    except (KeyError, TypeError, ValueError) as e:
        msg = e.args[0] if e.args else str(e)
        raise InstructionError(f"instruction {instruction_id!r}: {msg}") from None
    if not response.strip():  # upstream: `response.strip() and check(...)`
        return False
    return bool(_REGISTRY[instruction_id][0](response, kw, prompt))


def loose_variants(response: str) -> list[str]:
    """IFEval's 8 loose variants (lm-eval utils.test_instruction_following_loose)."""
    lines = response.split("\n")
    drop_first = "\n".join(lines[1:]).strip()
    drop_last = "\n".join(lines[:-1]).strip()
    drop_both = "\n".join(lines[1:-1]).strip()
    variants = [response, response.replace("*", ""), drop_first, drop_last, drop_both]
    variants += [drop_first.replace("*", ""), drop_last.replace("*", ""), drop_both.replace("*", "")]
    return variants


_THINK_END = "</think>"


def strip_reasoning(text: str, reasoning: str = "none") -> str:
    """Select the part of a response that the verifiers score.

    reasoning="none": the whole text.
    reasoning="after_think": the text after the last "</think>" (the whole text when
    there is none), then, if it contains "<answer>...</answer>", the content of the
    last such block (between the last "</answer>" and the "<answer>" before it). Reasoning models state constraints in their thinking; scoring
    only the final part keeps those drafts from counting for or against them.
    """
    if reasoning == "none":
        return text
    if reasoning != "after_think":
        raise ValueError(f"reasoning must be 'none' or 'after_think', got {reasoning!r}")
    cut = text.rfind(_THINK_END)
    if cut >= 0:
        text = text[cut + len(_THINK_END) :]
    # Last block = up to the last "</answer>", from the "<answer>" before it. Found
    # with rfind (a lazy regex would rescan to the end from every "<answer>").
    close = text.rfind("</answer>")
    if close >= 0:
        open_ = text.rfind("<answer>", 0, close)
        if open_ >= 0:
            text = text[open_ + len("<answer>") : close]
    return text


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


@dataclass(frozen=True)
class IFResult:
    """Per-instruction strict and loose outcomes for one response."""

    strict: tuple[bool, ...]
    loose: tuple[bool, ...]

    @property
    def prompt_strict(self) -> bool:
        return all(self.strict)

    @property
    def prompt_loose(self) -> bool:
        return all(self.loose)

    @property
    def frac_strict(self) -> float:
        return sum(self.strict) / len(self.strict) if self.strict else 1.0

    @property
    def frac_loose(self) -> float:
        return sum(self.loose) / len(self.loose) if self.loose else 1.0


def score_if(
    response: str,
    instruction_id_list: list[str],
    kwargs: list[dict],
    prompt: str,
    reasoning: str = "none",
) -> IFResult:
    """Score one response against its instructions, strict and loose (IFEval)."""
    if len(kwargs) != len(instruction_id_list):
        raise InstructionError(
            f"kwargs has {len(kwargs)} entries for {len(instruction_id_list)} instructions"
        )
    text = strip_reasoning(response, reasoning)
    variants = None
    strict, loose = [], []
    for iid, kw in zip(instruction_id_list, kwargs):
        ok = check_instruction(iid, text, kw, prompt)
        strict.append(ok)
        if not ok:  # loose >= strict since variant 0 is the response itself
            if variants is None:
                variants = loose_variants(text)[1:]
            ok = any(check_instruction(iid, v, kw, prompt) for v in variants)
        loose.append(ok)
    return IFResult(strict=tuple(strict), loose=tuple(loose))
