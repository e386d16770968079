"""IFEval on real responses: SmolLM2-135M-Instruct's responses to Google's 541 IFEval prompts (2 each, sampled
here; tests/data/real/smollm2/), scored by our verifier and compared with lm-evaluation-harness's IFEval
(Google's checks) on the same responses, whose verdicts scripts/make_smollm2_fixtures.sh stored. Every
disagreement is listed below with its reason, so a new one fails; the numbers are docs/verifiers.md's."""

import hashlib
import json
from collections import Counter

import pytest

from conftest import REPO
from rlvr_support.scoring.verifiers.ifeval import score_if

REAL = REPO / "tests" / "data" / "real"
DATA = REAL / "smollm2"
SHA256 = {
    "ifeval_responses.jsonl": "06c1578c6939ec9795b58df7efb5eec6367a2c62f6f6d12e0c6dc39193f6925a",
    "ifeval_official.jsonl": "a5a495ff66a54e623e4600d6b2ad7c8cdd1272c3c6e62159a9a2854cbbc3e97f",
}
# (prompt key, sample, instruction id, strict|loose) -> why ours differs from lm-eval's verdict (verifiers/
# ifeval.py's numbered deviations; docs/verifiers.md). Ours is the first value.
RANDOM_LETTER = ("deviation 3: prompt 1122 asks for at least 4 '#'; lm-eval takes a letter outside a-z for a "
                 "random ASCII letter (the stored run drew it after random.seed(0)), ours counts '#' as Google's "
                 "code does today; this response has {} (ours False)")
KNOWN = {(1122, 0, "keywords:letter_frequency", "strict"): RANDOM_LETTER.format("2 '#'"),
         (1122, 1, "keywords:letter_frequency", "strict"): RANDOM_LETTER.format("3 '#'")}
# lm-eval draws that random letter again for its loose pass, so there its loose verdict can be below its strict one
LOOSE_BELOW_STRICT = {(1122, 0), (1122, 1)}
MIN_AGREEMENT = 0.995


def _rows(path):
    return [json.loads(line) for line in path.read_text().splitlines()]


def compare() -> list[tuple]:
    """(prompt row, response row, ours, lm-eval's row) for every stored response."""
    prompts = {row["key"]: row for row in _rows(REAL / "input_data.jsonl")}
    official = {(row["key"], row["sample_idx"]): row for row in _rows(DATA / "ifeval_official.jsonl")}
    out = []
    for row in _rows(DATA / "ifeval_responses.jsonl"):
        p = prompts[row["key"]]
        ours = score_if(row["response"], p["instruction_id_list"], p["kwargs"], p["prompt"])
        out.append((p, row, ours, official[(row["key"], row["sample_idx"])]))
    return out


@pytest.fixture(scope="module")
def compared():
    return compare()


def agreement(compared) -> dict:
    """mode -> (instructions, agreeing, prompts, agreeing at prompt level), over all responses."""
    out = {}
    for mode in ("strict", "loose"):
        pairs = [(getattr(ours, mode), off[mode]) for _, _, ours, off in compared]
        out[mode] = (sum(len(a) for a, _ in pairs), sum(x == y for a, b in pairs for x, y in zip(a, b)),
                     len(pairs), sum(all(a) == all(b) for a, b in pairs))
    return out


def per_instruction(compared) -> dict:
    """id -> [n, lm-eval passes strict, loose, ours strict, loose, agree strict, loose]."""
    table = {}
    for p, _, ours, off in compared:
        for i, iid in enumerate(p["instruction_id_list"]):
            t = table.setdefault(iid, [0] * 7)
            t[0] += 1
            for j, v in enumerate((off["strict"][i], off["loose"][i], ours.strict[i], ours.loose[i],
                                   ours.strict[i] == off["strict"][i], ours.loose[i] == off["loose"][i])):
                t[j + 1] += v
    return dict(sorted(table.items()))


def test_fixture_files_are_the_recorded_ones():
    for name, digest in SHA256.items():
        assert hashlib.sha256((DATA / name).read_bytes()).hexdigest() == digest, name
    readme = (DATA / "README.md").read_text()
    assert all(digest in readme for digest in SHA256.values()) and "Apache-2.0" in readme


def test_every_prompt_has_two_responses_and_a_verdict_each(compared):
    assert Counter(p["key"] for p, *_ in compared) == {key: 2 for key in {p["key"] for p, *_ in compared}}
    assert len(compared) == 1082
    for p, row, ours, off in compared:
        assert off["instruction_id_list"] == p["instruction_id_list"]
        assert len(off["strict"]) == len(off["loose"]) == len(ours.strict)
        # loose's first variant is the response itself, but for lm-eval's random letters
        assert all(s <= l for s, l in zip(ours.strict, ours.loose))
        below = any(s > l for s, l in zip(off["strict"], off["loose"]))
        assert below == ((row["key"], row["sample_idx"]) in LOOSE_BELOW_STRICT), row["key"]


def test_disagreements_with_lm_eval_are_the_known_ones(compared):
    found = {}
    for p, row, ours, off in compared:
        for mode in ("strict", "loose"):
            for iid, mine, theirs in zip(p["instruction_id_list"], getattr(ours, mode), off[mode]):
                if mine != theirs:
                    found[(row["key"], row["sample_idx"], iid, mode)] = mine
    assert set(found) == set(KNOWN), {k: v for k, v in found.items() if k not in KNOWN}
    assert all(f"(ours {found[k]})" in reason for k, reason in KNOWN.items())


def test_agreement_rates(compared):
    """The numbers in docs/verifiers.md (IFEval, SmolLM2's responses)."""
    got = agreement(compared)
    # (instructions, agreeing; prompt-level verdicts, agreeing), over 1082 responses to 541 prompts
    assert got == {"strict": (1668, 1666, 1082, 1082), "loose": (1668, 1668, 1082, 1082)}
    passes = {}  # side -> (prompts passed, instructions passed), strict then loose
    for side in ("lm-eval", "ours"):
        for mode in ("strict", "loose"):
            verdicts = [getattr(ours, mode) if side == "ours" else off[mode] for _, _, ours, off in compared]
            passes.setdefault(side, []).append((sum(all(v) for v in verdicts), sum(sum(v) for v in verdicts)))
    assert passes == {"lm-eval": [(125, 351), (139, 396)], "ours": [(125, 349), (139, 396)]}
    for n_instr, instr, n_prompts, prompts in got.values():
        assert instr >= MIN_AGREEMENT * n_instr and prompts >= MIN_AGREEMENT * n_prompts


def docs_section(heading: str) -> str:
    """The text of docs/verifiers.md under `heading`, up to the next heading."""
    return (REPO / "docs" / "verifiers.md").read_text().split(f"\n{heading}\n", 1)[1].split("\n#", 1)[0]


def test_the_per_instruction_table_in_the_docs_is_this_one(compared):
    rows = [f"| `{iid}` | {n} | {os_} / {ol} | {ws} / {wl} | {a_s} | {al} |"
            for iid, (n, os_, ol, ws, wl, a_s, al) in per_instruction(compared).items()]
    text = docs_section("### IFEval: SmolLM2's responses against lm-eval")
    table = [line for line in text.splitlines() if line.startswith("| `")]
    assert table == rows
