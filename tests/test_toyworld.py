"""The toy world: deterministic, held out where it must be, and checkable by the real verifiers."""

from __future__ import annotations

import random

import pandas as pd
import pytest
import yaml

from conftest import REPO
from rlvr_support.scoring.score import score_samples
from rlvr_support.data.toyworld.constraints import IF_INSTRUCTIONS
from rlvr_support.data.toyworld.math_problems import MathProblem, sample_problems
from rlvr_support.data.toyworld.world import build_corpus, build_prompt_sets, reference_solutions
from rlvr_support.scoring.verifiers.ifeval import validate_instructions

WORLD = yaml.safe_load((REPO / "config.yaml").read_text())["world"]


@pytest.fixture(scope="module")
def world():
    sets = build_prompt_sets(WORLD)
    return sets, build_corpus(WORLD, sets)


def test_same_seed_same_world_other_seed_other_world(world):
    sets, corpus = world
    again = build_prompt_sets(WORLD)
    assert again == sets
    assert build_corpus(WORLD, again)[:50] == corpus[:50]
    other = build_prompt_sets({**WORLD, "seed": WORLD["seed"] + 1})
    assert other["math"] != sets["math"]


def test_records_follow_the_data_contract(world):
    sets, _ = world
    for task, records in sets.items():
        counts = {s: sum(r["split"] == s for r in records) for s in ("train", "eval")}
        assert counts == {"train": WORLD[task]["train"], "eval": WORLD[task]["eval"]}
        assert len({r["id"] for r in records}) == len(records)
        for r in records:
            assert {"id", "task", "prompt", "answer", "instruction_id_list", "kwargs", "split"} <= set(r)
            assert r["task"] == task and r["prompt"].endswith("A :")
            if task != "if":
                assert int(r["answer"]) >= 0
            if task != "math":
                validate_instructions(r["instruction_id_list"], r["kwargs"], r["id"])


def test_eval_prompts_are_held_out(world):
    sets, corpus = world
    corpus_prompts = {e["prompt"] for e in corpus}
    for task, records in sets.items():
        train = {r["prompt"] for r in records if r["split"] == "train"}
        for r in records:
            if r["split"] == "eval":
                assert r["prompt"] not in train and r["prompt"] not in corpus_prompts
    # IF eval prompts use (topic, constraint pair) combinations training never shows
    pair = lambda r: (r["topic"], tuple(sorted(r["instruction_id_list"])))  # noqa: E731
    train_pairs = {pair(r) for r in sets["if"] if r["split"] == "train" and len(r["instruction_id_list"]) == 2}
    assert not any(pair(r) in train_pairs for r in sets["if"] if r["split"] == "eval")


def test_the_world_uses_the_required_ifeval_instruction_types(world):
    sets, _ = world
    used = {i for r in sets["if"] for i in r["instruction_id_list"]}
    required = {"change_case:english_capital", "change_case:english_lowercase", "length_constraints:number_words",
                "startend:end_checker", "keywords:existence", "keywords:forbidden_words", "punctuation:no_comma",
                "startend:quotation", "detectable_format:title", "detectable_content:postscript"}
    assert required <= used == set(IF_INSTRUCTIONS)


def test_every_solution_style_is_correct_and_opens_differently():
    problems = sample_problems(random.Random(0), 60, {1: 1, 2: 1, 3: 1})
    recs = [{"id": f"m{i}", "task": "math", "prompt": f"Q : solve {p.question} . A :", "answer": str(p.answer),
             "instruction_id_list": [], "kwargs": [], "split": "eval"} for i, p in enumerate(problems)]
    texts = [(r["id"], s, t) for r in recs for s, t in reference_solutions(r).items()]
    scores = score_samples(pd.DataFrame({"prompt_id": [t[0] for t in texts], "sample_idx": range(len(texts)),
                                         "text": [t[2] for t in texts]}), {r["id"]: r for r in recs})
    assert scores["reward"].eq(1.0).all(), "a canonical solution failed math-verify"
    assert {t[2].split()[0] for t in texts} == {"step", "so", "answer"}
    wrong = score_samples(pd.DataFrame({"prompt_id": ["m0"], "sample_idx": [0], "text": ["answer : 100000"]}),
                          {"m0": recs[0]})
    assert wrong["reward"].iloc[0] == 0.0


def test_corpus_mixes_styles_and_partial_compliance(world):
    sets, corpus = world
    share = pd.Series([e["style"] for e in corpus]).value_counts(normalize=True)
    for style, w in WORLD["corpus"]["style_weights"].items():
        assert abs(share[style] - w) < 0.03
    records = {r["prompt"]: r for r in sets["if"]}
    sample = [e for e in corpus if e["task"] == "if"][:600]
    df = pd.DataFrame({"prompt_id": [records[e["prompt"]]["id"] for e in sample], "sample_idx": range(len(sample)),
                       "text": [e["response"] for e in sample]})
    scores = score_samples(df, {r["id"]: r for r in sets["if"]})
    by_style = scores.assign(style=[e["style"] for e in sample]).groupby("style")["reward"].mean()
    # partial compliance: neither all nor none, and the plan-writing style complies most often
    assert 0.05 < scores["reward"].mean() < 0.95
    assert by_style["step"] > by_style["answer"]


def test_impossible_problem_counts_are_an_error_not_a_hang():
    with pytest.raises(ValueError, match="too small"):
        sample_problems(random.Random(0), 10_000, {3: 1.0})


def test_problem_arithmetic():
    assert MathProblem(2, (37, 4, 8)).answer == 69
    assert MathProblem(3, (3, 4, 5, 6)).solution("step") == "step : 3 * 4 = 12 ; 5 * 6 = 30 ; 12 + 30 = 42 . answer : 42"


def test_problem_space_size_is_what_sampling_can_draw():
    from rlvr_support.data.toyworld.math_problems import problem_space_size

    size = problem_space_size(3)  # the smallest level: exhausted in a second
    assert size == 8**4
    assert len(set(sample_problems(random.Random(0), size, {3: 1.0}))) == size
    with pytest.raises(ValueError, match="too small"):
        sample_problems(random.Random(0), size + 1, {3: 1.0})
    assert problem_space_size(1) == 90 * 90 and problem_space_size(2) == 90 * 8 * 8
