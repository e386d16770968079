"""Offline sentence splitter and word tokenizer for the IFEval checkers.

Google's IFEval (and lm-eval's copy of it) counts sentences with nltk's pre-trained
English punkt model (`nltk.data.load("tokenizers/punkt/english.pickle")`) and
counts capitalised words with `nltk.word_tokenize`. Neither is usable here: punkt
needs a data download and nltk may not be installed at all. This module mimics the
behaviour that matters for counting, without any data:

* `split_sentences`: punkt breaks after `.`, `?` or `!` (plus closing quotes or
  brackets) when whitespace or the end of text follows, unless the period ends a
  known abbreviation ("Dr.", "e.g.", "U.S."), a single-letter initial ("J."), or
  an ellipsis followed by a lower-case word. Decimals ("3.14") and in-word periods
  ("example.com") never break because no whitespace follows the period. Newlines
  alone do not break (punkt ignores them too).
* `word_tokens`: a Treebank-like split (whitespace, most punctuation, the common
  English contractions "n't", "'s", "'m", ...) that gives the same count of
  all-capital tokens as `nltk.word_tokenize` for ordinary text; hyphenated words
  stay one token, as in nltk ("Hyphenated words will count as one word" - IFEval).

Everything is linear-time regex work: safe on megabyte inputs.
"""

from __future__ import annotations

import functools
import re

# Lower-cased abbreviations (without their final period) that punkt's English
# model has learned not to end a sentence. A pragmatic subset: titles, Latin
# abbreviations, common units and business words.
ABBREVIATIONS = frozenset(
    """
    mr mrs ms dr prof sr jr st mt ft rev gen col lt sgt capt cpt cmdr adm gov sen rep
    pres hon messrs mme mlle vs etc e.g i.e cf al viz approx ca esp ibid op cit
    inc ltd co corp bros dept univ assn est no nos vol vols pp fig figs eq eqs ch sec
    jan feb mar apr jun jul aug sep sept oct nov dec mon tue tues wed thu thur thurs fri sat sun
    a.m p.m u.s u.k u.s.a u.n e.u d.c ph.d b.a m.a b.sc m.sc
    min max avg dept tel ext
    """.split()
)

# A candidate break: run of terminators, optional closing quotes/brackets, then
# whitespace (or end of text). `[^\S]` style alternation is avoided; each piece is
# a simple character class so the scan is linear.
_BREAK = re.compile(r"[.?!]+[\"'\u201d\u2019)\]]*(?=\s|$)")
# The first non-space character after a candidate break.
_NEXT = re.compile(r"\s*(\S?)")


def _is_break(text: str, start: int, end: int) -> bool:
    """Decide whether the terminator run text[start:end] ends a sentence."""
    punct = text[start:end].rstrip("\"'\u201d\u2019)]")
    if "?" in punct or "!" in punct:
        return True
    nxt = _NEXT.match(text, end).group(1)
    if len(punct) >= 2:  # ellipsis: punkt breaks only before a capitalised word
        return not nxt or not nxt.islower()
    # Single period: look at the word it ends.
    # Only a bounded window is inspected so that many breaks stay linear overall.
    window = text[max(0, start - 64) : start]
    word = "" if not window or window[-1].isspace() else window.split()[-1]
    word = word.lstrip("\"'(\u201c\u2018[").lower()
    if not word:
        return True
    if word in ABBREVIATIONS:
        return False
    if len(word) == 1 and word.isalpha():  # an initial such as "J."
        return False
    if "." in word and all(len(p) <= 2 and p.isalpha() for p in word.split(".")):
        return False  # dotted acronym such as "a.b.c"
    return True


def split_sentences(text: str) -> list[str]:
    """Split text into sentences, punkt-style (see module docstring)."""
    sentences: list[str] = []
    begin = 0
    for m in _BREAK.finditer(text):
        if _is_break(text, m.start(), m.end()):
            piece = text[begin : m.end()].strip()
            if piece:
                sentences.append(piece)
            begin = m.end()
    piece = text[begin:].strip()
    if piece:
        sentences.append(piece)
    return sentences


def count_sentences(text: str) -> int:
    return len(split_sentences(text))


_WORD = re.compile(r"\w+")


def count_words(text: str) -> int:
    """IFEval's word count: nltk RegexpTokenizer(r"\\w+") tokens."""
    return sum(1 for _ in _WORD.finditer(text))


# Treebank separates these characters from words; a comma or colon only when not
# followed by a digit ("1,000" and "10:30" stay whole).
_TB_SPLIT = re.compile(r"[\s?!;@#$%&*()\[\]{}<>\"`\u201c\u201d]+|[,:](?!\d)")
# Contractions the Treebank tokenizer splits off ("DON'T" -> "DO", "N'T").
_CONTRACTION = re.compile(r"(?i)(n't|'s|'m|'d|'ll|'re|'ve)$")


def word_tokens(text: str) -> list[str]:
    """Approximate `nltk.word_tokenize` (Treebank) tokens; see module docstring."""
    out: list[str] = []
    for tok in _TB_SPLIT.split(text):
        if not tok:
            continue
        m = _CONTRACTION.search(tok)
        if m and m.start() > 0:
            out.append(tok[: m.start()])
            out.append(tok[m.start() :])
        else:
            out.append(tok)
    return out


@functools.lru_cache(maxsize=4096)
def whole_word(word: str) -> re.Pattern:
    """`word` literally, as a whole word, case-insensitive: a boundary only where its own
    edge is a word character, so "C++" and "(note)" are found (a plain `\\b` next to a
    symbol needs a word character beyond it) and "cat" is not found in "concatenate"."""
    head = r"(?<!\w)" if re.match(r"\w", word[:1]) else ""
    tail = r"(?!\w)" if re.match(r"\w", word[-1:]) else ""
    return re.compile(head + re.escape(word) + tail, re.IGNORECASE)


_SUFFIXES = frozenset({"'s", "'m", "'d", "'ll", "'re", "'ve"})


def treebank_words(text: str) -> list[str]:
    """nltk.word_tokenize's tokens, approximately (IFBench's deviation 1, shared by IFTrain):
    `word_tokens` splits off brackets, quotes, "?!;,:" and the like as Treebank does; Treebank
    also splits a sentence's final period and quotes "'" at a word's edges, so those are
    stripped here (a contraction suffix "'s" stays a token). Other symbols stay attached, as in
    nltk."""
    out = []
    for tok in word_tokens(text):
        core = tok if tok.lower() in _SUFFIXES else tok.strip(".'")
        if core:
            out.append(core)
    return out
