"""Batched, bit-exact re-implementation of `langdetect.detect` with seed 0.

Why: IFEval's `change_case:*` and `language:response_language` checks call
langdetect (Shuyo's naive-Bayes detector, Python port 1.0.9), which costs ~7-11 ms
per text; that was ~97% of IF scoring time. Almost all of it is
`Detector._detect_block`: 7 trials of up to 1001 naive-Bayes updates over 55
languages, each a Python loop, driven by `random.Random(seed)`.

What is re-implemented, and why the result is identical (not just close):

* Text preparation (`Detector.append`, `cleaning_text`, `_extract_ngrams`) is
  rewritten as tighter Python with a per-character cache of `NGram.normalize`;
  same rules, character by character.
* The random stream. With `DetectorFactory.seed = 0` every detection re-seeds a
  Mersenne Twister to 0, so all detections read the same sequence of 32-bit words
  W[0], W[1], ... (generated once here with the same `random.Random(0)`).
  `random.choice(ngrams)` with n = len(ngrams), k = n.bit_length() reads words
  until `W[q] >> (32 - k) < n` (CPython's `_randbelow_with_getrandbits`), so the
  accepted words for each n are tabulated once (`_choice_table`);
  `random.gauss` reads 4 words through `random()` = ((W[q]>>5)*2**26 + (W[q+1]>>6))
  / 2**53 on even trials and returns the cached second variate on odd ones. The
  gauss formula itself is CPython's own `random.Random.gauss`, called on a stand-in
  object that serves those words.
* The updates. Each text's 55 probabilities are updated in the same order with the
  same IEEE operations: `prob[l] *= alpha/10000 + P[word][l]`, one multiplication
  per update (never a product of factors first), every 5th update
  `prob[l] /= sum(prob)` where the sum is added left to right (CPython 3.11's `sum`
  of floats is plain left-to-right addition; np.sum is pairwise, and CPython 3.12
  made `sum` compensated, so on 3.12+ this module defers to langdetect), then the
  same convergence test (max > 0.99999, or i >= 1000). The trials' mean is summed
  in trial order, and the answer is picked by langdetect's own `Language` sort.
* Many texts run in lock step, one row per text: one numpy operation per update
  step serves all of them. That is where the speed comes from (~0.2 ms of CPU per
  text in batches of thousands, ~3 ms for a single text, vs ~8 ms in langdetect).

`self_check()` compares full probability vectors with langdetect itself on a few
texts before the fast path is first used; on any difference (another langdetect
or Python version) `detect_languages` falls back to langdetect, with a warning.
tests/test_langdetect_fast.py checks identity on many texts.
"""

from __future__ import annotations

import functools
import random
import re
import sys
import warnings

import numpy as np

UNKNOWN = "unknown"  # langdetect's answer when no language reaches PROB_THRESHOLD
_CHUNK = 4096  # most texts per lock-step batch (bounds the (5, T, 55) factor array)
_MAX_NGRAMS = 4_000_000  # most n-grams per batch (bounds memory for long texts)


class _NoFeatures(Exception):
    """Text without n-grams: langdetect raises LangDetectException here."""


# ---------------------------------------------------------------------------
# langdetect's factory (profiles) and constants, shared with langdetect itself.


@functools.lru_cache(maxsize=1)
def _model():
    from langdetect import detector_factory
    from langdetect.detector import Detector
    from langdetect.utils.ngram import NGram

    detector_factory.init_factory()  # loads the 55 profiles once (~0.5 s)
    factory = detector_factory._factory
    d = factory.create()
    return {
        "wmap": factory.word_lang_prob_map,
        "langlist": list(factory.langlist),
        "n_trial": d.n_trial,
        "max_len": d.max_text_length,
        "alpha": d.alpha,
        "alpha_width": Detector.ALPHA_WIDTH,
        "iter_limit": Detector.ITERATION_LIMIT,
        "conv": Detector.CONV_THRESHOLD,
        "base_freq": Detector.BASE_FREQ,
        "prob_threshold": Detector.PROB_THRESHOLD,
        "url_re": Detector.URL_RE,
        "mail_re": Detector.MAIL_RE,
        "normalize_vi": NGram.normalize_vi,
        "normalize": NGram.normalize,
    }


# ---------------------------------------------------------------------------
# Text -> n-grams (Detector.append + cleaning_text + _extract_ngrams).

_SPACES = re.compile(" {2,}")
_NORM: dict[str, str] = {}


def _normalized(ch: str, normalize) -> str:
    c = _NORM.get(ch)
    if c is None:
        if len(_NORM) > 200_000:  # exotic unicode: keep the cache bounded
            _NORM.clear()
        c = _NORM[ch] = normalize(ch)
    return c


def _prepare(text: str, m: dict) -> str:
    """Detector.append then cleaning_text."""
    text = m["url_re"].sub(" ", text)
    text = m["mail_re"].sub(" ", text)
    text = m["normalize_vi"](text)
    # append() keeps a char unless it and the previous *input* char are both " ".
    text = _SPACES.sub(" ", text[: m["max_len"]])
    if text.isascii():
        return text  # no char >= U+0300, so cleaning_text removes nothing
    from langdetect.utils.unicode_block import unicode_block

    latin = non_latin = 0
    for ch in text:
        if "A" <= ch <= "z":
            latin += 1
        elif ch >= "\u0300" and unicode_block(ch) != "Latin Extended Additional":
            non_latin += 1  # (unicode_block returns ints: always "!=", as upstream)
    if latin * 2 < non_latin:
        text = "".join(ch for ch in text if ch < "A" or "z" < ch)
    return text


def _ngrams(text: str, m: dict) -> list[str]:
    """Detector._extract_ngrams with NGram.add_char inlined (N_GRAM = 3)."""
    wmap, normalize = m["wmap"], m["normalize"]
    result = []
    grams, capital = " ", False
    for ch in text:
        c = _normalized(ch, normalize)
        last = grams[-1]
        if last == " ":
            grams, capital = " ", False
            if c == " ":
                continue  # add_char returns; only the gram " " exists: nothing kept
        elif len(grams) >= 3:
            grams = grams[1:]
        grams += c
        if c.isupper():
            if last.isupper():
                capital = True
        else:
            capital = False
        if capital:
            continue
        if c != " " and c in wmap:
            result.append(c)
        size = len(grams)
        if size >= 2:
            w = grams[-2:]
            if w in wmap:
                result.append(w)
            if size >= 3 and grams in wmap:
                result.append(grams)
    return result


def extract_ngrams(text: str) -> list[str]:
    """The n-grams langdetect samples from, in its order. Raises _NoFeatures if none."""
    m = _model()
    grams = _ngrams(_prepare(text, m), m)
    if not grams:
        raise _NoFeatures(text[:50])
    return grams


# ---------------------------------------------------------------------------
# The random stream of random.Random(0).


class _Stream:
    """W[q] = the q-th 32-bit output of random.Random(0), grown on demand."""

    def __init__(self):
        self._rng = random.Random(0)
        self.words = np.zeros(0, dtype=np.int64)
        self._gauss: dict[int, tuple[float, float]] = {}

    def ensure(self, size: int) -> np.ndarray:
        if size > len(self.words):
            extra = max(size - len(self.words), len(self.words), 1 << 15)
            more = np.fromiter((self._rng.getrandbits(32) for _ in range(extra)), np.int64, extra)
            self.words = np.concatenate([self.words, more])
        return self.words

    def gauss_at(self, q: int) -> tuple[float, float]:
        """(gauss(0, 1), the cached second variate) when gauss reads words q..q+3."""
        hit = self._gauss.get(q)
        if hit is None:
            w = [int(x) for x in self.ensure(q + 4)[q : q + 4]]
            uniforms = iter(
                ((w[i] >> 5) * 67108864.0 + (w[i + 1] >> 6)) * (1.0 / 9007199254740992.0) for i in (0, 2)
            )
            stand_in = _GaussStandIn(uniforms)
            z = random.Random.gauss(stand_in, 0.0, 1.0)  # CPython's own formula
            hit = self._gauss[q] = (z, stand_in.gauss_next)
            if len(self._gauss) > 100_000:
                self._gauss.clear()
        return hit


class _GaussStandIn:
    """Just what random.Random.gauss touches: .random() and .gauss_next."""

    def __init__(self, uniforms):
        self.gauss_next = None
        self.random = uniforms.__next__


@functools.lru_cache(maxsize=1)
def _stream() -> _Stream:
    return _Stream()


def _max_draws(m: dict) -> int:
    """Entries of a choice table a detection can touch (see _choice_table)."""
    updates = m["n_trial"] * (m["iter_limit"] + 1)  # each trial: iterations 0..limit
    gauss_skips = 4 * ((m["n_trial"] - 1) // 2)  # trials 2, 4, 6 read 4 words each
    return updates + gauss_skips + 4 + 5  # + the 4-word skip look-ahead, 5 picks/block


@functools.lru_cache(maxsize=256)
def _choice_table(n: int, size: int) -> tuple[np.ndarray, np.ndarray]:
    """(positions, values): the successive words random.choice(seq) accepts when
    len(seq) == n, and the index it returns for each, over the whole stream.

    CPython: k = n.bit_length(); r = getrandbits(k) = W[q] >> (32 - k), redrawn
    while r >= n. A detection's choices are consecutive entries of this table,
    except that gauss() (even trials) also consumes 4 raw words in between.
    """
    stream = _stream()
    length = 2 * size + 1024
    while True:
        r = stream.ensure(length)[:length] >> (32 - n.bit_length())
        pos = np.flatnonzero(r < n)
        if len(pos) >= size:
            pos = pos[:size]
            return pos.astype(np.int32), r[pos].astype(np.int32)  # half the memory
        length *= 2


def _sequential_sum(prob: np.ndarray) -> np.ndarray:
    """Row sums of (texts, 55), added left to right like CPython 3.11's sum().

    np.sum would use pairwise summation (different rounding); cumsum is
    sequential but slow for many rows, so then columns are added one by one.
    """
    if prob.shape[0] <= 64:
        return np.cumsum(prob, axis=1)[:, -1]
    total = prob[:, 0].copy()
    for lang in range(1, prob.shape[1]):
        total += prob[:, lang]
    return total


class _LockStep:
    """Detector._detect_block for many texts at once (one row per text).

    Per text and trial, langdetect does: update (i=0), check; then 5 updates and
    a check (i=5, 10, ...) until convergence or i >= ITERATION_LIMIT. The first
    update and check happen in `start_trials`, so the main loop only ever runs
    full blocks of 5 updates for every active text.

    Where langdetect would divide by zero (ZeroDivisionError; cannot happen, as
    every factor is >= alpha/BASE_FREQ > 0) the probabilities become NaN, which
    propagates to langprob and is reported as a failure, as langdetect's raise.
    """

    def __init__(self, ids: list[np.ndarray], vocab: dict[str, int], m: dict):
        """ids: per text, its n-grams as indices into vocab (n-gram -> index)."""
        self.m = m
        nlang = len(m["langlist"])
        self.stream = _stream()
        self.table = np.array([m["wmap"][g] for g in vocab], dtype=np.float64).reshape(len(vocab), nlang)
        lengths = [len(r) for r in ids]
        self.flat_ids = np.concatenate(ids)
        # Choice tables, one per distinct number of n-grams, concatenated.
        size = _max_draws(m)
        groups = sorted(set(lengths))
        tables = [_choice_table(k, size) for k in groups]
        self.positions = np.concatenate([t[0] for t in tables])
        self.values = np.concatenate([t[1] for t in tables])
        group_of = {k: i for i, k in enumerate(groups)}

        T = len(ids)
        self.rows = np.arange(T)  # original row of each active text
        # Next unused entry of the text's choice table (absolute index).
        self.cursor = np.array([group_of[k] * size for k in lengths], dtype=np.int64)
        self.off = np.cumsum([0] + lengths[:-1]).astype(np.int64)  # n-gram list start
        self.znext = np.zeros(T)  # gauss() second variate, used on odd trials
        self.w = np.zeros((T, 1))  # alpha / BASE_FREQ of the current trial
        self.trial = np.zeros(T, dtype=np.int64)
        self.deadline = np.zeros(T, dtype=np.int64)  # step whose check has i >= ITERATION_LIMIT
        self.finished = np.zeros(T, dtype=bool)
        self.prob = np.empty((T, nlang))
        self.langprob = np.zeros((T, nlang))
        self.out = np.full((T, nlang), np.nan)
        self.init = 1.0 / nlang
        self.step = 0  # main-loop blocks run so far
        self.max_block = -(-m["iter_limit"] // 5)  # block b checks at i = 5b

    def start_trials(self, idx: np.ndarray) -> None:
        """Begin trial `trial[t]` for texts idx: alpha, prior, update i=0, check."""
        m, stream = self.m, self.stream
        while len(idx):
            gz = 0.0 + self.znext[idx] * 1.0  # odd trials: gauss() returns the cached variate
            is_even = self.trial[idx] % 2 == 0
            even = idx[is_even]
            if len(even):  # gauss() reads 4 words after the last choice
                cursor = self.cursor[even]
                last = np.take(self.positions, cursor - 1) + 1
                q = np.where(self.trial[even] == 0, 0, last)
                zs = [stream.gauss_at(int(x)) for x in q]
                gz[is_even] = [0.0 + z * 1.0 for z, _ in zs]
                self.znext[even] = [zn for _, zn in zs]
                self.cursor[even] = _first_at_or_after(self.positions, cursor, q + 4)
            self.w[idx, 0] = (m["alpha"] + gz * m["alpha_width"]) / m["base_freq"]
            pick = np.take(self.values, self.cursor[idx])
            self.cursor[idx] += 1
            factors = np.take(self.table, np.take(self.flat_ids, self.off[idx] + pick), axis=0)
            factors += self.w[idx]
            prob = np.full(factors.shape, self.init)
            prob *= factors
            done = _normalize(prob) > m["conv"]
            done |= 0 >= m["iter_limit"]
            self.prob[idx] = prob
            self.deadline[idx] = self.step + self.max_block  # block 1 runs at step + 1
            idx = self.end_trials(idx[done])

    def end_trials(self, idx: np.ndarray) -> np.ndarray:
        """Add the trials of texts idx to langprob; return those with trials left."""
        self.langprob[idx] += self.prob[idx] / self.m["n_trial"]
        self.trial[idx] += 1
        over = self.trial[idx] == self.m["n_trial"]
        self.finished[idx[over]] = True
        return idx[~over]

    def run(self) -> np.ndarray:
        with np.errstate(invalid="ignore", divide="ignore"):
            self.start_trials(np.arange(len(self.rows)))
            self.compact()
            five = np.arange(5)[:, None]
            soonest = self.next_deadline()
            while len(self.rows):
                self.step += 1
                picks = np.take(self.values, self.cursor + five)  # (5, A): n-gram indices
                self.cursor += 5
                words = np.take(self.flat_ids, self.off + picks)
                factors = np.take(self.table, words, axis=0)  # (5, A, 55)
                factors += self.w  # alpha/BASE_FREQ + P(word | language)
                prob = self.prob
                for k in range(5):
                    prob *= factors[k]
                done = _normalize(prob) > self.m["conv"]
                if self.step >= soonest:
                    done |= self.deadline <= self.step
                if done.any():
                    self.start_trials(self.end_trials(np.flatnonzero(done)))
                    self.compact()
                    soonest = self.next_deadline()
        return self.out

    def next_deadline(self) -> int:
        return int(self.deadline.min()) if len(self.deadline) else 0

    def compact(self) -> None:
        """Store finished texts' results and drop them from the active arrays."""
        keep = ~self.finished
        if keep.all():
            return
        self.out[self.rows[self.finished]] = self.langprob[self.finished]
        names = ("rows", "cursor", "off", "znext", "w", "trial", "deadline", "finished", "prob", "langprob")
        for name in names:
            setattr(self, name, getattr(self, name)[keep])


def _normalize(prob: np.ndarray) -> np.ndarray:
    """Detector._normalize_prob on each row, in place; returns the row maxima."""
    prob /= _sequential_sum(prob)[:, None]
    return prob.max(axis=1)


def _first_at_or_after(positions, cursor, q):
    """Per text: the first table entry >= cursor whose stream position is >= q.

    Positions strictly increase and positions[cursor] >= q - 4, so the answer
    is below cursor + 4.
    """
    return cursor + (np.take(positions, cursor[:, None] + np.arange(4)) < q[:, None]).sum(axis=1)


# ---------------------------------------------------------------------------
# Public API.


def _answer(langprob_row, m: dict) -> str:
    """Detector.detect from langprob: the most probable language above 0.1."""
    from langdetect.language import Language

    found = [Language(lang, p) for lang, p in zip(m["langlist"], langprob_row) if p > m["prob_threshold"]]
    found.sort(reverse=True)
    return found[0].lang if found else UNKNOWN


def langprob_batch(texts: list[str]) -> list[list[float] | None]:
    """Detector.langprob after detection, per text; None where langdetect raises.

    Texts run in lock-step batches of at most _CHUNK texts (sizes balanced) and
    _MAX_NGRAMS n-grams, so memory stays bounded for long texts.
    """
    m = _model()
    out: list[list[float] | None] = [None] * len(texts)
    per_batch = -(-len(texts) // -(-len(texts) // _CHUNK)) if texts else 0
    rows: list[int] = []
    ids: list[np.ndarray] = []
    vocab: dict[str, int] = {}
    total = 0

    def flush():
        for i, row in zip(rows, _LockStep(ids, vocab, m).run()):
            out[i] = None if np.isnan(row).any() else row.tolist()

    for i, text in enumerate(texts):
        try:
            grams = extract_ngrams(text)
        except Exception:  # _NoFeatures, or langdetect's own odd unicode failures
            continue
        rows.append(i)
        ids.append(np.array([vocab.setdefault(g, len(vocab)) for g in grams], dtype=np.int64))
        total += len(grams)
        if len(rows) >= per_batch or total >= _MAX_NGRAMS:
            flush()
            rows, ids, vocab, total = [], [], {}, 0
    if rows:
        flush()
    return out


def _reference_langprob(text: str) -> list[float] | None:
    """langdetect itself (seed 0): the specification of langprob_batch."""
    import langdetect

    langdetect.DetectorFactory.seed = 0
    langdetect.detector_factory.init_factory()
    detector = langdetect.detector_factory._factory.create()
    try:
        detector.append(text)
        detector.get_probabilities()
    except Exception:
        return None
    return list(detector.langprob)


def reference_detect(text: str) -> str | None:
    """langdetect.detect(text) with seed 0; None where it raises."""
    import langdetect

    langdetect.DetectorFactory.seed = 0
    try:
        return langdetect.detect(text)
    except Exception:  # LangDetectException, and odd failures on exotic unicode
        return None


_CANARIES = (
    "the river runs through the quiet garden",
    "THE RIVER RUNS THROUGH THE QUIET GARDEN",
    "Le chat dort sur le canapé pendant que la pluie tombe.",
    "日本語のテキスト and some english words",
)


@functools.lru_cache(maxsize=1)
def self_check() -> bool:
    """True if the fast path reproduces langdetect bit for bit on the canaries."""
    if sys.version_info >= (3, 12):  # sum() of floats became compensated in 3.12
        return False
    _model()
    ok = langprob_batch(list(_CANARIES)) == [_reference_langprob(t) for t in _CANARIES]
    if not ok:
        warnings.warn("langdetect_fast differs from langdetect here; using langdetect (slow)", stacklevel=2)
    return ok


def detect_languages(texts: list[str]) -> list[str | None]:
    """[langdetect.detect(t) with seed 0 for t in texts], None where it raises."""
    if not self_check():
        return [reference_detect(t) for t in texts]
    m = _model()
    return [None if p is None else _answer(p, m) for p in langprob_batch(texts)]
