"""langdetect_fast against langdetect itself: bit-identical probabilities and answers.

The reference is langdetect 1.0.9 run as the IFEval checker runs it (seed 0, one
text per Detector). Texts cover the paths of its algorithm: toy lower/upper case
words (upper case skips "capital words"), several scripts (cleaning_text drops
Latin letters from mostly non-Latin text), Vietnamese marks (normalize_vi), URLs
and e-mails, runs of spaces, text past the 10,000-character limit, texts with 1, 2
or 2^k n-grams (random.choice's rejection edge cases), no n-grams at all (raise),
and texts whose trials run to the 1000-iteration limit.
"""

import random

import langdetect
import pytest
from langdetect.detector import Detector

from rlvr_support.scoring.verifiers import ifeval
from rlvr_support.scoring.verifiers import langdetect_fast as lf

WORDS = "the river cat garden music light story data model answer".split()
SENTENCES = [
    "The quick brown fox jumps over the lazy dog.",
    "Le chat dort sur le canapé pendant que la pluie tombe.",
    "Der schnelle braune Fuchs springt über den faulen Hund.",
    "El perro come la comida en la cocina todos los días.",
    "Il gatto dorme sul divano mentre piove fuori.",
    "Tôi yêu tiếng Việt và phở bò.",
    "Tôi yêu tie\u0302\u0301ng Vie\u0323\u0302t",  # combining marks: normalize_vi
    "Привет, как дела? Всё хорошо.",
    "日本語のテキストです。カタカナもある。",
    "这是一个中文句子，没有拉丁字母。",
    "مرحبا بالعالم، هذا نص عربي.",
    "한국어 문장입니다 and English",
    "Ελληνικά κείμενα για δοκιμή.",
    "see https://example.com/a?b=c and mail me at a.b@example.org",
    "many     spaces    between\t\twords\n\nand lines",
    "I DON'T think that's right; it's WRONG.",
    "MiXeD CaSe WoRdS HeRe",
    "café naïve résumé",
]


def _toy_texts(rng: random.Random, n: int) -> list[str]:
    out = []
    for i in range(n):
        words = " ".join(rng.choice(WORDS) for _ in range(rng.randint(1, 14)))
        out.append([words, words.upper(), words.title(), f'"{words}"', words + ", " + words][i % 5])
    return out


def _random_unicode(rng: random.Random, n: int) -> list[str]:
    pools = ["abcdefghijklmnopqrstuvwxyz ", "ABCXYZ ", "éèàüößçñ ", "абвгдеж ", "日本語中文 ", "αβγδ "]
    pools.append("., !?0123\n")
    return ["".join(rng.choice(rng.choice(pools)) for _ in range(rng.randint(0, 60))) for _ in range(n)]


def _edge_texts() -> list[str]:
    return [
        "",
        "   ",
        "123 456 !!!",
        "ß",  # 1 n-gram
        "x",  # 2 n-grams: "x", " x"
        "ab",
        "THE",  # capital word: only "T" and " T"
        "a " * 2,
        "the " * 4,  # 16 n-grams: power of two
        "the river " * 40,
        "lorem ipsum dolor sit amet " * 500,  # > 10,000 characters: cut
    ]


@pytest.fixture(scope="module")
def texts() -> list[str]:
    rng = random.Random(20240601)
    return SENTENCES + _edge_texts() + _toy_texts(rng, 150) + _random_unicode(rng, 60)


def _reference(text):
    return lf._reference_langprob(text)


def test_langprob_bit_identical(texts):
    fast = lf.langprob_batch(texts)
    for text, got in zip(texts, fast):
        assert got == _reference(text), repr(text[:80])
    assert any(p is None for p in fast) and sum(p is not None for p in fast) > 200


def test_answers_identical_to_langdetect_detect(texts):
    langdetect.DetectorFactory.seed = 0
    expected = []
    for t in texts:
        try:
            expected.append(langdetect.detect(t))
        except langdetect.LangDetectException:
            expected.append(None)
    assert lf.detect_languages(texts) == expected
    assert {"en", "fr", "de", "ru", "ja"} <= set(expected)


def test_extract_ngrams_matches_detector(texts):
    factory = langdetect.detector_factory._factory
    for text in texts:
        d = factory.create()
        d.append(text)
        d.cleaning_text()
        ref = d._extract_ngrams()
        if not ref:
            with pytest.raises(lf._NoFeatures):
                lf.extract_ngrams(text)
        else:
            assert lf.extract_ngrams(text) == ref, repr(text[:80])


def test_covers_iteration_limit_and_small_ngram_counts(monkeypatch, texts):
    """The identity above is only worth something if the hard paths were taken."""
    updates, per_trial = [], []
    orig_init, orig_update = Detector._init_probability, Detector._update_lang_prob

    def init(self):
        per_trial.append(0)
        return orig_init(self)

    def update(self, prob, word, alpha):
        per_trial[-1] += 1
        return orig_update(self, prob, word, alpha)

    monkeypatch.setattr(Detector, "_init_probability", init)
    monkeypatch.setattr(Detector, "_update_lang_prob", update)
    counts = []
    for t in texts:
        per_trial.clear()
        _reference(t)
        updates.append(max(per_trial, default=0))
        try:
            counts.append(len(lf.extract_ngrams(t)))
        except lf._NoFeatures:
            pass
    assert max(updates) == Detector.ITERATION_LIMIT + 1  # some trial ran to the limit
    assert {1, 2} <= set(counts) and any(c & (c - 1) == 0 and c >= 4 for c in counts)


def test_result_independent_of_batch(monkeypatch, texts):
    sample = texts[::7]
    together = lf.langprob_batch(sample)
    alone = [lf.langprob_batch([t])[0] for t in sample]
    reversed_ = lf.langprob_batch(sample[::-1])[::-1]
    monkeypatch.setattr(lf, "_MAX_NGRAMS", 60)  # many small batches, split by n-gram count
    monkeypatch.setattr(lf, "_CHUNK", 5)
    split = lf.langprob_batch(sample)
    assert together == alone == reversed_ == split


def test_random_stream_matches_cpython():
    for n in (1, 2, 3, 5, 16, 17, 1000):
        rng = random.Random(0)
        expected = [rng.choice(range(n)) for _ in range(300)]
        positions, values = lf._choice_table(n, 300)
        assert values.tolist() == expected
    rng = random.Random(0)
    z, znext = lf._stream().gauss_at(0)
    assert (z, znext) == (rng.gauss(0.0, 1.0), rng.gauss(0.0, 1.0))


def test_self_check_and_fallback(monkeypatch, texts):
    assert lf.self_check()  # this interpreter (CPython 3.11) runs the fast path
    sample = texts[:20]
    fast = lf.detect_languages(sample)
    monkeypatch.setattr(lf, "self_check", lambda: False)
    assert lf.detect_languages(sample) == fast == [lf.reference_detect(t) for t in sample]


def test_language_cache_is_bounded(monkeypatch):
    ifeval.clear_language_cache()
    monkeypatch.setattr(ifeval, "_LANG_CACHE_ITEMS", 3)
    monkeypatch.setattr(ifeval, "_LANG_CACHE_CHARS", 40)
    texts = ["the river", "le chat noir", "der hund", "el perro come"]
    assert ifeval.detect_languages(texts) == [lf.reference_detect(t) for t in texts]
    assert len(ifeval._LANG_CACHE) <= 3 and ifeval._lang_cache_chars <= 40
    assert list(ifeval._LANG_CACHE)[-1] == "el perro come"
    ifeval.detect_language("a" * (ifeval._LANG_CACHE_MAX_TEXT + 1))
    assert len(max(ifeval._LANG_CACHE, key=len)) <= ifeval._LANG_CACHE_MAX_TEXT
    ifeval.clear_language_cache()


def test_prefetch_covers_everything_score_if_asks(monkeypatch):
    """Inside languages_prefetched, score_if never has to detect a text itself."""
    ids = ["change_case:english_lowercase", "change_case:english_capital", "language:response_language"]
    kwargs = [{}, {}, {"language": "fr"}]
    responses = [
        "the river\nis calm",
        "The River\nis calm\nand wide",  # strict lowercase fails: variants are asked
        "THE RIVER\nIS CALM",
        "Le chat\ndort sur le canapé\nThe end",
        "",
        "*the* river\n**flows**",
    ]
    items = [(r, ids, kwargs, "prompt") for r in responses]
    ifeval.clear_language_cache()
    expected = [ifeval.score_if(*item) for item in items]
    ifeval.clear_language_cache()
    with ifeval.languages_prefetched(items):
        monkeypatch.setattr(lf, "detect_languages", lambda texts: pytest.fail(f"not prefetched: {texts}"))
        assert [ifeval.score_if(*item) for item in items] == expected
    assert not ifeval._PINNED
    ifeval.clear_language_cache()
