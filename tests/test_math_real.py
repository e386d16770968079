r"""Math on real texts: MMATH's 374 gold answers (tests/data/real/mmath_en.json), each written as `\boxed{gold}` and
as a final plain answer, and SmolLM2-135M-Instruct's responses to MMATH's 90 MATH-500 problems of levels 1-2
(2 each, sampled here; tests/data/real/smollm2/), scored by our math scorer, strict and lenient extraction, and
compared with math-verify called directly on the same texts (`verify(parse("$gold$"), parse(text))`), whose
verdicts scripts/make_smollm2_fixtures.sh stored. Every disagreement is listed below with its class, so a new
one fails; the numbers are docs/verifiers.md's."""

import hashlib
import json
from collections import Counter

import pytest

from conftest import REPO
from rlvr_support.scoring.verifiers.math import score_math_batch

REAL = REPO / "tests" / "data" / "real"
DATA = REAL / "smollm2"
SHA256 = {
    "math_responses.jsonl": "8a3fa729b069813d37330b6871c77beca601078feb5c999ad4439f38b7efbb54",
    "math_official.jsonl": "d3ae1032ab3f478e00949f011175b4af3356db9b247fda0766d22be15ab0f8fe",
}
# the writings of tests/test_real_benchmarks.py, as scripts/smollm2_official/math_verdicts.py writes them
GOLD_WRITINGS = {"gold-boxed": "So the result follows. \\boxed{{{}}}",
                 "gold-final": "So the result follows.\nThe final answer is {}"}
# (set, gid, sample, strict|lenient) -> the class of the disagreement. Ours is the first value. Lenient extraction
# is math-verify's own and agrees everywhere; strict reads only marked answers (\boxed, ####, an answer phrase).
NO_MARKER = ("strict by design: no \\boxed, #### or answer phrase, so ours has no answer; math-verify's fallback "
             "reads an expression of the reasoning ({}) and it equals the gold (ours False)")
KNOWN = {
    **{("response", gid, sample, "strict"): NO_MARKER.format(read) for gid, sample, read in (
        (106, 1, "'3'"), (109, 0, "'2'"), (109, 1, "'2'"), (133, 1, "'2'"), (137, 0, "'3 \\leftrightarrow 6' as 6"),
        (290, 1, "'2'"), (350, 1, "'2'"), (363, 0, "'1'"))},
    ("response", 195, 1, "strict"): "both read 'my final answer is 360.'; ours ends the answer at the sentence end "
    "(360, wrong), math-verify's match runs on past a blank line ('360.\\n\\n5^2') and its value is 5, the gold "
    "(ours False)",
}


def _rows(path):
    return [json.loads(line) for line in path.read_text().splitlines()]


def compare() -> list[tuple]:
    """(official row, text, ours strict, ours lenient) for every text math-verify scored."""
    gold = {row["gid"]: row["answer"] for row in json.loads((REAL / "mmath_en.json").read_text())}
    response = {(r["gid"], r["sample_idx"]): r["response"] for r in _rows(DATA / "math_responses.jsonl")}
    official = _rows(DATA / "math_official.jsonl")
    texts = [response[(o["gid"], o["sample_idx"])] if o["set"] == "response" else
             GOLD_WRITINGS[o["set"]].format(gold[o["gid"]]) for o in official]
    golds = [gold[o["gid"]] for o in official]
    strict = score_math_batch(texts, golds, timeout_s=5.0, workers=2, extraction="strict")
    lenient = score_math_batch(texts, golds, timeout_s=5.0, workers=2, extraction="lenient")
    return list(zip(official, texts, strict, lenient))


@pytest.fixture(scope="module")
def compared():
    return compare()


def counts(compared) -> dict:
    """set -> (texts, math-verify correct, ours strict correct, agreeing, ours lenient correct, agreeing)."""
    out = {}
    for o, _, s, l in compared:
        c = out.setdefault(o["set"], [0] * 6)
        for j, v in enumerate((1, o["correct"], s.correct, s.correct == o["correct"], l.correct,
                               l.correct == o["correct"])):
            c[j] += v
    return {k: tuple(v) for k, v in out.items()}


def test_fixture_files_are_the_recorded_ones():
    for name, digest in SHA256.items():
        assert hashlib.sha256((DATA / name).read_bytes()).hexdigest() == digest, name
    readme = (DATA / "README.md").read_text()
    assert all(digest in readme for digest in SHA256.values()) and "MIT" in readme


def test_every_text_has_a_verdict(compared):
    sets = Counter(o["set"] for o, *_ in compared)
    assert sets == {"gold-boxed": 374, "gold-final": 374, "response": 180}
    responses = [o for o, *_ in compared if o["set"] == "response"]
    assert Counter(o["gid"] for o in responses) == {gid: 2 for gid in {o["gid"] for o in responses}}


def test_disagreements_with_math_verify_are_the_known_ones(compared):
    found, extracted = {}, {}
    for o, _, s, l in compared:
        for mode, ours in (("strict", s), ("lenient", l)):
            if ours.correct != o["correct"]:
                found[(o["set"], o["gid"], o.get("sample_idx"), mode)] = ours.correct
                extracted[(o["set"], o["gid"], o.get("sample_idx"), mode)] = ours.extracted
    assert set(found) == set(KNOWN), {k: v for k, v in found.items() if k not in KNOWN}
    assert all(f"(ours {found[k]})" in reason for k, reason in KNOWN.items())
    # the class each is listed under is what happened: no answer found, or the stated one
    assert {k: v for k, v in extracted.items() if v is not None} == {("response", 195, 1, "strict"): "360"}


def test_agreement_rates(compared):
    """The numbers in docs/verifiers.md (Math, real answers and responses)."""
    # (texts, math-verify correct, ours strict correct, agreeing, ours lenient correct, agreeing)
    assert counts(compared) == {"gold-boxed": (374,) * 6, "gold-final": (374,) * 6,
                                "response": (180, 9, 0, 171, 9, 180)}
