"""Instruction following inside reasoning: the segment rules on written responses, and the table's
HAcc / SAcc / bypass against hand counts."""

from __future__ import annotations

import pytest

from rlvr_support.analysis.reasoning_if import reasoning_if_table
from rlvr_support.analysis.runs import parse_files
from rlvr_support.config.defaults import ANALYSIS_DEFAULTS
from rlvr_support.metrics.reasoning_segments import compile_rules, split_reasoning
from support_helpers import write_samples

REAL = compile_rules(ANALYSIS_DEFAULTS["reasoning_if"])
TOY = compile_rules({"answer_markers": [r"\banswer :"], "reasoning_prefixes": [r"step :[^.]*\."]})


@pytest.mark.parametrize("rules, text, reasoning, answer", [
    # a think block: its inside is the reasoning, whatever follows the answer
    (REAL, "<think>Let me count, carefully.</think>The answer is 4.", "Let me count, carefully.", "The answer is 4."),
    # no think block: the text before the LAST final-answer marker
    (REAL, "First 2+2. Answer: 3? No. Answer: 4", "First 2+2. Answer: 3? No. ", "Answer: 4"),
    (REAL, "We add them, so \\boxed{4}", "We add them, so ", "\\boxed{4}"),
    # a direct answer has no reasoning; no marker and no prefix: the whole text is the answer
    (REAL, "The answer is 4.", "", "The answer is 4."),
    (REAL, "Four apples, red ones.", "", "Four apples, red ones."),
    # the toy world: steps before `answer :`, a `step :` plan before an IF text, `so :` has none
    (TOY, "step : 2 * 9 = 18 ; 18 + 63 = 81 . answer : 81", "step : 2 * 9 = 18 ; 18 + 63 = 81 . ", "answer : 81"),
    (TOY, "step : topic cats , rule short . Cats are warm .", "step : topic cats , rule short .", " Cats are warm ."),
    (TOY, "answer : Cats are warm .", "", "answer : Cats are warm ."),
    (TOY, "so : I keep cats , and dogs .", "", "so : I keep cats , and dogs ."),
])
def test_split_reasoning(rules, text, reasoning, answer):
    assert split_reasoning(text, *rules) == (reasoning, answer)


def test_a_bad_rule_names_its_key():
    with pytest.raises(ValueError, match=r"analysis.reasoning_if.answer_markers\[0\]"):
        compile_rules({"answer_markers": ["("]})


def test_table_counts_hard_soft_and_bypass(tmp_path):
    # one IF prompt with two constraints: no commas, and at least 4 words
    prompts = {"p": {"id": "p", "task": "if", "prompt": "Write.", "instruction_id_list":
                     ["punctuation:no_comma", "length_constraints:number_words"],
                     "kwargs": [{}, {"num_words": 4, "relation": "at least"}]}}
    texts = [
        "step : topic cats , rule nocomma . Cats are warm and soft .",  # reasoning breaks no_comma; answer meets both
        "answer : Cats are warm .",                                       # no reasoning, meets both: a bypass
        "answer : Cats .",                                                # no reasoning, fails the length
        "step : topic cats rule short . Cats , dogs and more .",          # reasoning 5 words no comma; answer has a comma
    ]
    root = tmp_path / "samples"
    files = [write_samples(root, c, "if", {"p": [[1]] * 4}, {"p": texts}) for c in ("base", "if/seed0")]
    t = reasoning_if_table(parse_files(files, root), prompts, rules=TOY_CFG, n_boot=50, ci=0.9, seed=0)
    row = t.set_index("chain").loc["base"]
    assert row["reasoning_rate"] == pytest.approx(2 / 4)
    # whole response: 1 breaks no_comma (the plan's commas), 2 meets both, 3 fails length, 4 has a comma
    assert row["HAcc_whole"] == pytest.approx(1 / 4) and row["SAcc_whole"] == pytest.approx((0.5 + 1 + 0.5 + 0.5) / 4)
    # answer segment: 1 meets both, 2 meets both, 3 fails length, 4 has a comma
    assert row["HAcc_answer"] == pytest.approx(2 / 4)
    # reasoning, over the two responses that have one: 1 breaks no_comma (5 words); 4 meets both (5 words, no comma)
    assert row["HAcc_reasoning"] == pytest.approx(1 / 2) and row["SAcc_reasoning"] == pytest.approx((0.5 + 1) / 2)
    # of the responses meeting every constraint (only 2), all skipped the reasoning
    assert row["bypass"] == pytest.approx(1.0) and row["n_bypass"] == 1


TOY_CFG = {"answer_markers": [r"\banswer :"], "reasoning_prefixes": [r"step :[^.]*\."]}


def test_bypass_diff_is_paired_against_the_base_and_read_by_the_claim(tmp_path):
    import pandas as pd

    from rlvr_support.analysis.claims.table import claims_table

    prompts = {p: {"id": p, "task": "if", "prompt": "Write.", "instruction_id_list": ["punctuation:no_comma"],
                   "kwargs": [{}]} for p in ("p", "q")}
    # the base meets no_comma through a plan half the time; the checkpoint always answers directly
    base = {p: ["step : topic cats rule short . Cats are warm .", "answer : Cats are warm ."] for p in prompts}
    ckpt = {p: ["answer : Cats are warm .", "answer : Dogs are warm ."] for p in prompts}
    root = tmp_path / "samples"
    files = [write_samples(root, "base", "if", {p: [[1]] * 2 for p in prompts}, base)]
    files += [write_samples(root, f"if/seed{s}", "if", {p: [[1]] * 2 for p in prompts}, ckpt) for s in range(3)]
    t = reasoning_if_table(parse_files(files, root), prompts, rules=TOY_CFG, n_boot=50, ci=0.9, seed=0)
    t = t.set_index("chain")
    assert t.loc["base", "bypass"] == pytest.approx(0.5) and t.loc["if", "bypass"] == pytest.approx(1.0)
    assert t.loc["if", "bypass_diff"] == pytest.approx(0.5) and t.loc["base", "bypass_diff"] == 0
    assert t.loc["if", "bypass_diff_lo"] == pytest.approx(0.5)  # every prompt moves by the same amount
    claims = claims_table([], {"reasoning_if": t.reset_index()}, {"reasoning_if": "reasoning_if.csv"}, m=3, n_boot=50,
                          ci=0.9, seed=0)
    row = claims.set_index("claim").loc["IF-RLVR: more of the constraint-following responses skip the reasoning (bypass)"]
    assert row["effect"] == pytest.approx(0.5) and row["verdict"] == "agree" and row["source"] == "reasoning_if.csv"
