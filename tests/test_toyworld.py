"""The toy world: deterministic, held out where it must be, and checkable by the real verifiers."""

from __future__ import annotations

import random

import pandas as pd
import pytest
import yaml

from conftest import REPO
from rlvr_support.scoring.score import score_samples
from rlvr_support.data.toyworld.constraints import IF_INSTRUCTIONS, Constraint
from rlvr_support.data.toyworld.math_problems import MathProblem, problem_from_question, problem_space_size, sample_problems
from rlvr_support.data.toyworld.responses import if_response
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
    # partial compliance: neither all nor none, in every style
    assert 0.05 < scores["reward"].mean() < 0.95
    by_style = scores.assign(style=[e["style"] for e in sample]).groupby("style")["reward"].mean()
    assert ((by_style > 0.02) & (by_style < 0.98)).all(), by_style


# ---- the premises of PREMISES.md, each as a property of the generator, decided by the real verifier


def _if_record(constraint: Constraint, topic: str = "cats") -> dict:
    return {"id": "p", "task": "if", "prompt": f"Q : write about {topic} . {constraint.phrase()} . A :",
            "answer": None, "instruction_id_list": [constraint.instruction_id], "kwargs": [dict(constraint.kwargs)],
            "split": "eval"}


def _compliance(constraint: Constraint, style: str, p_comply: float, n: int = 200, seed: int = 0) -> float:
    """Share of `n` generator responses in `style` that the IFEval verifier passes."""
    rng = random.Random(seed)
    texts = [if_response(rng, "cats", [constraint], style, p_comply) for _ in range(n)]
    df = pd.DataFrame({"prompt_id": ["p"] * n, "sample_idx": range(n), "text": texts})
    return float(score_samples(df, {"p": _if_record(constraint)})["reward"].mean())


@pytest.mark.parametrize("constraint", [
    Constraint("punctuation:no_comma"), Constraint("change_case:english_capital"), Constraint("startend:quotation"),
    Constraint("keywords:forbidden_words", {"forbidden_words": ["fur"]}),
], ids=lambda c: c.instruction_id)
def test_a_step_plan_breaks_surface_constraints_that_direct_answers_can_meet(constraint):
    # premise 3: even a writer who always tries fails with a plan (kept as written: commas, lower
    # case, outside the quotes, naming the word, too many words); a direct answer can comply
    assert _compliance(constraint, "step", 1.0) == 0.0
    assert _compliance(constraint, "answer", 1.0) > 0.5


def test_a_step_response_under_a_word_limit_exceeds_it_more_often_than_a_direct_answer():
    limit = Constraint("length_constraints:number_words", {"relation": "less than", "num_words": 10})
    step, direct = _compliance(limit, "step", 1.0), _compliance(limit, "answer", 1.0)
    assert step < 0.6 and direct == 1.0, (step, direct)


def test_a_step_plan_meets_what_it_restates_and_a_direct_answer_stays_short():
    # premise 4: the plan's restated keywords meet keywords:existence even when the writer does not
    # try; its words help reach a minimum length that a one-sentence direct answer never reaches
    include = Constraint("keywords:existence", {"keywords": ["bones", "snow"]})
    assert _compliance(include, "step", 0.0) == 1.0
    assert _compliance(include, "answer", 0.0) == 0.0
    at_least = Constraint("length_constraints:number_words", {"relation": "at least", "num_words": 20})
    assert _compliance(at_least, "answer", 1.0) == 0.0
    assert _compliance(at_least, "step", 1.0) == 1.0


def test_styles_share_one_compliance_probability():
    # no style-specific compliance rate: on a constraint no style's text conflicts with, the styles comply alike
    title = Constraint("detectable_format:title")
    rates = [_compliance(title, style, 0.6, n=600, seed=1) for style in ("step", "so", "answer")]
    assert max(rates) - min(rates) < 0.1, rates


def test_a_direct_answer_is_wrong_more_often_than_a_step_solution():
    # premise 2: operations done silently slip; a step solution writes every operation down
    rng = random.Random(0)
    problems = sample_problems(rng, 300, {3: 1, 4: 1})
    recs = {f"m{i}": {"id": f"m{i}", "task": "math", "prompt": "", "answer": str(p.answer),
                      "instruction_id_list": [], "kwargs": [], "split": "eval"} for i, p in enumerate(problems)}
    acc = {}
    for style in ("step", "so", "answer"):
        texts = [p.attempt(style, rng, 0.15) for p in problems]
        df = pd.DataFrame({"prompt_id": list(recs), "sample_idx": 0, "text": texts})
        acc[style] = float(score_samples(df, recs)["reward"].mean())
    assert acc["step"] == 1.0 > acc["so"] > acc["answer"], acc
    # no slip, no error: the canonical solution in every style is what attempt writes
    assert all(p.attempt(s, rng, 0.0) == p.solution(s) for p in problems[:20] for s in ("step", "so", "answer"))


def test_the_smoke_worlds_eval_sets_leave_headroom_on_the_generator():
    # premise 7 on the generator: 32 corpus-like responses per eval prompt, in the corpus's style mix,
    # do not meet every prompt's constraints (a base that learned the corpus well has room to lose support)
    w = yaml.safe_load((REPO / "tests" / "config" / "smoke.yaml").read_text())["world"]
    sets = build_prompt_sets(w)
    rng = random.Random(0)
    styles, weights = zip(*w["corpus"]["style_weights"].items())
    recs, texts, ids = {}, [], []
    for r in (r for r in sets["if"] if r["split"] == "eval"):
        cons = [Constraint(i, k) for i, k in zip(r["instruction_id_list"], r["kwargs"])]
        recs[r["id"]] = r
        for _ in range(32):
            texts.append(if_response(rng, r["topic"], cons, rng.choices(styles, weights)[0], w["corpus"]["comply"]))
            ids.append(r["id"])
    scores = score_samples(pd.DataFrame({"prompt_id": ids, "sample_idx": range(len(ids)), "text": texts}), recs)
    best = scores.groupby("prompt_id")["reward"].max()
    pass1 = scores["reward"].mean()
    assert pass1 < 0.6 and 0 < best.mean() <= 1.0


def test_impossible_problem_counts_are_an_error_not_a_hang():
    with pytest.raises(ValueError, match="too small"):
        sample_problems(random.Random(0), 10_000, {3: 1.0})


def test_problem_arithmetic():
    assert MathProblem(4, (23, 7, 4, 6)).answer == 185
    assert problem_from_question("23 * 7 + 4 * 6") == MathProblem(4, (23, 7, 4, 6))
    assert problem_from_question("3 * 7 + 4 * 6").level == 3
    assert problem_space_size(4) == 19 * 8 * 8 * 8
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
