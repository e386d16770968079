r"""IFTrain: the 29 training constraints of AllenAI's IF-RLVR (Pyatkin et al. 2025,
"Generalizing Verifiable Instruction Following"), re-implemented offline and deterministically.

Semantics follow AllenAI's reference code (github allenai/open-instruct,
`open_instruct/IFEvalG/instructions.py`, ids from `instructions_registry.py`): the same
instruction ids, with their `copy:`, `new:`, `first_word:`... prefixes, and kwargs names.
They are scored like IFEval (strict, and loose over the same 8 response variants; an empty
response follows nothing): a family of the shared protocol (`instructions`), like IFBench's.
Each checker takes (response, kwargs-without-None, prompt) and returns bool; the response is
never executed or parsed as code, and every scan is linear in its length.

Deviations from upstream, all of them:

1. Sentences and words. Upstream splits sentences with its own regex splitter
   (`instructions_util.split_into_sentences`, which breaks after every ".", "?" and "!" that
   its abbreviation rules do not protect) and tokenises with `nltk.word_tokenize` (downloaded
   data). Ours: `sentences.split_sentences` (NLTK's Punkt: a break needs whitespace after the
   mark) and `sentences.treebank_words` (Treebank-like; punctuation tokens such as "," or a final
   "." are not words). So `count:counting_composition` counts words, not nltk tokens (upstream
   counts "Go home." as 3), `count:count_unique` ignores repeated punctuation (upstream fails
   any response with two commas), and `keywords:keyword_specific_position` counts positions
   over words. `keywords:start_end` keeps punctuation as tokens (its instruction forbids
   trailing punctuation): tokens are `\w+` runs and single other non-space characters.
2. Keywords are literals. Upstream passes the keyword to `re.findall` unescaped (so "c++" or
   "a.b" are regexes, and "(" raises). Ours: the keyword as a literal, case-insensitive,
   counted like `re.findall` (non-overlapping, substrings included: "cat" in "concatenate").
   The same for `copy:repeat_phrase`'s first and last words.
3. Missing kwargs and impossible values. Upstream: a missing count becomes a random value, an
   unknown relation makes the check return None. Ours: a missing kwarg is a load-time error,
   and so are impossible values: counts below 0 (below 1 for positions, `small_n`, `N` of
   `copy:copying_multiple`, `n_sent`, `n_words`), empty keywords, phrases or prompts, a
   `copy:repeat_phrase` phrase of fewer than 2 words (no match can have its length), a
   `new:copy_span_idx` span that is empty after stripping, a `letters:letter_counting2`
   letter that is not one ASCII letter (upstream substitutes a random one). Upstream also
   replaces a count of 0 by a random value (`if not N:`), e.g. `new:copy_span_idx`'s
   `n_start` = 0 or `count:lowercase_counting`'s `N` = 0; ours keeps 0.
4. `keywords:exclude_word_harder`: upstream only looks for " keyword " (spaces both sides), so
   the keyword at the start or end of the response or next to punctuation passes. Ours: the
   keyword must not occur as a whole word (case-sensitive, as upstream).
5. `count:counting_composition`: upstream drops an empty first or last paragraph from the
   count but still requires it to have `n_sent` sentences, so a response ending in "***"
   always fails. Ours: empty edge paragraphs are skipped.
6. `copy:repeat_phrase`: upstream's `first .*? last` regex backtracks (quadratic on a long
   line with many first words and no last word); ours scans each line once for the same
   non-overlapping, shortest matches.

Not deviations: `count:lowercase_counting` counts all lower-case words (`\b[a-z]+\b`), not
each word's repeats, as upstream does (its description says "each lowercase word ... at most
N times"); `keywords:palindrome` accepts any whitespace token equal to its reverse, one
letter included; `new:copy_span_idx` slices `prompt[n_start:n_end]` (the end is excluded,
though the description says "including").
"""

from __future__ import annotations

import re
from collections import Counter

from rlvr_support.scoring.verifiers.instructions import check_bounds
from rlvr_support.scoring.verifiers.sentences import split_sentences, treebank_words as _words

_RELATIONS = ("less than", "at least")


def _related(count: int, relation: str, n: int) -> bool:
    return count < n if relation == _RELATIONS[0] else count >= n


def _count_literal(text: str, keyword: str) -> int:
    # re.findall's count for a literal pattern: non-overlapping, case-insensitive (deviation 2).
    return sum(1 for _ in re.finditer(re.escape(keyword), text, re.IGNORECASE))


def _same_text(v: str, target: str) -> bool:
    return v.strip().lower() == target.strip().lower()


# ---------------------------------------------------------------------------
# Copying.


def repeat_phrase(v, kw, _):
    ref = kw["phrase"].split()
    first, last = ref[0], ref[-1]
    found = []
    # Upstream: re.findall(rf"{first} .*? {last}", v); "." stops at a newline, so per line.
    for line in v.split("\n"):
        pos = 0
        while True:
            start = line.find(first + " ", pos)
            if start < 0:
                break
            end = line.find(" " + last, start + len(first) + 1)
            if end < 0:
                break  # no later start on this line can find `last` either
            found.append(line[start : end + 1 + len(last)])
            pos = end + 1 + len(last)
            if len(found) > kw["small_n"]:
                return False
    if len(found) != kw["small_n"]:
        return False
    for phrase in found:
        words = phrase.split()
        if len(words) != len(ref) or sum(a != b for a, b in zip(words, ref)) != 1:
            return False
    return True


def copy(v, kw, _):
    return _same_text(v, kw["prompt_to_repeat"])


def copy_span_idx(v, kw, _):
    return _same_text(v, kw["prompt_to_repeat"][kw["n_start"] : kw["n_end"]])


def copying_multiple(v, kw, _):
    copies = v.split("******")
    return len(copies) == kw["N"] and all(_same_text(c, kw["prompt_to_repeat"]) for c in copies)


# ---------------------------------------------------------------------------
# Format.


def sentence_hyphens(v, _, __):
    gold = split_sentences(v.replace("-", " "))
    return all(s.strip() == s and s == g for s, g in zip(v.split("-"), gold))


def square_brackets(v, _, __):
    return all(w.startswith("[") and w.endswith("]") for w in v.split())


def bigram_wrapping(v, _, __):
    words = v.split()
    return all(words[i].startswith("<<") and words[i + 1].endswith(">>") for i in range(0, len(words) - 1, 2))


def _paragraph_count(parts: list[str]) -> int | None:
    """Upstream's count: empty edge parts are dropped, an empty inner part fails (None)."""
    n = len(parts)
    for i, part in enumerate(parts):
        if not part.strip():
            if i in (0, len(parts) - 1):
                n -= 1
            else:
                return None
    return n


_DIVIDER = re.compile(r"\s?\*\*\*\s?")


def paragraphs(v, _, __):
    return _paragraph_count(_DIVIDER.split(v)) == 2


def paragraphs2(v, _, __):
    return _paragraph_count(v.split("\n\n")) == 2


def counting_composition(v, kw, _):
    parts = _DIVIDER.split(v)
    if _paragraph_count(parts) != 3:
        return False
    for part in parts:
        if not part.strip():
            continue  # an edge part (deviation 5); an inner one failed above
        sents = split_sentences(part)
        if len(sents) != kw["n_sent"] or any(len(_words_only(s)) != kw["n_words"] for s in sents):
            return False
    return True


# ---------------------------------------------------------------------------
# Words and keywords.


def _words_only(text: str) -> list[str]:
    return [w for w in _words(text) if re.search(r"\w", w)]


def no_adjacent_consecutive(v, _, __):
    words = v.split()
    for a, b in zip(words, words[1:]):
        x, y = a[0].lower(), b[0].lower()
        if len(x) != 1 or len(y) != 1 or ord(y) - ord(x) == 1:
            return False
    return True


def word_once(v, kw, _):
    return _count_literal(v, kw["keyword"]) == 1


def word_count_different_numbers(v, kw, _):
    return _related(_count_literal(v, kw["keyword"]), kw["relation"], kw["frequency"])


def exclude_word_harder(v, kw, _):
    word = kw["keyword"]
    head = r"(?<!\w)" if re.match(r"\w", word[:1]) else ""
    tail = r"(?!\w)" if re.match(r"\w", word[-1:]) else ""
    return re.search(head + re.escape(word) + tail, v) is None  # deviation 4


def count_increment_word(v, kw, _):
    return _count_literal(v, kw["keyword1"]) == 1 and _count_literal(v, kw["keyword2"]) == 2


def palindrome(v, _, __):
    return any(w == w[::-1] for w in v.split())


def keyword_specific_position(v, kw, _):
    sents = split_sentences(v)
    if len(sents) < kw["n"]:
        return False
    words = _words_only(sents[kw["n"] - 1])
    return len(words) >= kw["m"] and words[kw["m"] - 1] == kw["keyword"]


_TOKEN = re.compile(r"\w+|[^\w\s]")


def start_end(v, _, __):
    tokens = _TOKEN.findall(v)
    return len(tokens) >= 2 and tokens[0].lower() == tokens[-1].lower()


def count_unique(v, _, __):
    words = _words_only(v)
    return len(words) == len(set(words))


# ---------------------------------------------------------------------------
# First and last words.


def first_word_sent(v, kw, _):
    target = kw["first_word"].lower()
    return all(s.split()[0].lower() == target for s in split_sentences(v))


def first_word_answer(v, kw, _):
    return v.split()[0].lower() == kw["first_word"].lower()


_NOT_WORD = re.compile(r"[^\w\s]")


def _last_word(text: str) -> str:
    return _NOT_WORD.sub("", text.split()[-1]).lower()


def last_word_sent(v, kw, _):
    target = kw["last_word"].lower()
    return all(_last_word(s) == target for s in split_sentences(v))


def last_word_answer(v, kw, _):
    return _last_word(v) == kw["last_word"].lower()


# ---------------------------------------------------------------------------
# Punctuation and counts.


def punctuation_dot(v, _, __):
    return "." not in v


def punctuation_exclamation(v, _, __):
    return "!" not in v


_LOWER_WORD = re.compile(r"\b[a-z]+\b")


def lowercase_counting(v, kw, _):
    return sum(1 for _ in _LOWER_WORD.finditer(v)) <= kw["N"]


_ASCII_LETTER = re.compile(r"[a-zA-Z]")


def letter_counting(v, kw, _):
    return _related(sum(1 for _ in _ASCII_LETTER.finditer(v)), kw["relation"], kw["N"])


def letter_counting2(v, kw, _):
    return _related(Counter(v.lower())[kw["letter"].strip().lower()], kw["let_relation"], kw["let_frequency"])


# ---------------------------------------------------------------------------
# Registry (the protocol's shape, instructions.py): id -> (checker, required kwargs, optional
# kwargs). Kinds are the protocol's ("str", "int", "relation").

_S, _I, _R = "str", "int", "relation"
_P = {"prompt_to_repeat": _S}

REGISTRY = {
    "copy:repeat_phrase": (repeat_phrase, {"phrase": _S, "small_n": _I}, {}),
    "copy:copy": (copy, _P, {}),
    "new:copy_span_idx": (copy_span_idx, {**_P, "n_start": _I, "n_end": _I}, {}),
    "detectable_format:sentence_hyphens": (sentence_hyphens, {}, {}),
    "keywords:no_adjacent_consecutive": (no_adjacent_consecutive, {}, {}),
    "detectable_format:square_brackets": (square_brackets, {}, {}),
    "keywords:word_once": (word_once, {"keyword": _S}, {}),
    "keywords:word_count_different_numbers": (
        word_count_different_numbers,
        {"keyword": _S, "frequency": _I, "relation": _R},
        {},
    ),
    # `instruction`: upstream picks the keyword from it when `keyword` is missing; unused here.
    "keywords:exclude_word_harder": (exclude_word_harder, {"keyword": _S}, {"instruction": _S}),
    "paragraphs:paragraphs": (paragraphs, {}, {}),
    "paragraphs:paragraphs2": (paragraphs2, {}, {}),
    "first_word:first_word_sent": (first_word_sent, {"first_word": _S}, {}),
    "first_word:first_word_answer": (first_word_answer, {"first_word": _S}, {}),
    "last_word:last_word_sent": (last_word_sent, {"last_word": _S}, {}),
    "last_word:last_word_answer": (last_word_answer, {"last_word": _S}, {}),
    "detectable_format:bigram_wrapping": (bigram_wrapping, {}, {}),
    "copy:copying_simple": (copy, _P, {}),
    "copy:copying_multiple": (copying_multiple, {**_P, "N": _I}, {}),
    "punctuation:punctuation_dot": (punctuation_dot, {}, {}),
    "punctuation:punctuation_exclamation": (punctuation_exclamation, {}, {}),
    "count:lowercase_counting": (lowercase_counting, {"N": _I}, {}),
    "letters:letter_counting": (letter_counting, {"N": _I, "relation": _R}, {}),
    "letters:letter_counting2": (
        letter_counting2,
        {"letter": _S, "let_frequency": _I, "let_relation": _R},
        {},
    ),
    "count:counting_composition": (counting_composition, {"n_sent": _I, "n_words": _I}, {}),
    "count:count_unique": (count_unique, {}, {}),
    "count:count_increment_word": (count_increment_word, {"keyword1": _S, "keyword2": _S}, {}),
    "keywords:palindrome": (palindrome, {}, {}),
    "keywords:keyword_specific_position": (keyword_specific_position, {"keyword": _S, "n": _I, "m": _I}, {}),
    "keywords:start_end": (start_end, {}, {}),
}

INSTRUCTION_IDS: tuple[str, ...] = tuple(REGISTRY)

# int kwargs that must be >= 1; every other int kwarg must be >= 0.
_POSITIVE = {
    "copy:repeat_phrase": ("small_n",),
    "copy:copying_multiple": ("N",),
    "count:counting_composition": ("n_sent", "n_words"),
    "keywords:keyword_specific_position": ("n", "m"),
}
# Every str kwarg must be non-empty after stripping: an empty keyword matches everywhere, an
# empty prompt or word can never be produced by a non-empty response.


def check_kwargs(instruction_id: str, kw: dict) -> None:
    """Raise ValueError naming the kwarg when a value is impossible (deviation 3). `kw` has
    passed the protocol's name and type checks (instructions.py)."""
    _, required, _ = REGISTRY[instruction_id]
    check_bounds(required, kw, _POSITIVE.get(instruction_id, ()))
    if instruction_id == "copy:repeat_phrase" and len(kw["phrase"].split()) < 2:
        raise ValueError(f"kwarg 'phrase' must have at least 2 words, got {kw['phrase']!r}")
    if instruction_id == "new:copy_span_idx":
        if kw["n_end"] < kw["n_start"]:
            raise ValueError(f"kwarg 'n_end' ({kw['n_end']}) is below 'n_start' ({kw['n_start']})")
        if not kw["prompt_to_repeat"][kw["n_start"] : kw["n_end"]].strip():
            raise ValueError(
                f"kwargs 'n_start'..'n_end' ({kw['n_start']}..{kw['n_end']}) select an empty span of "
                f"'prompt_to_repeat' (length {len(kw['prompt_to_repeat'])})"
            )
    if instruction_id == "letters:letter_counting2" and not re.fullmatch(r"[a-zA-Z]", kw["letter"].strip()):
        raise ValueError(f"kwarg 'letter' must be one ASCII letter, got {kw['letter']!r}")
