"""Reasoning Gym as a data source, scored by reasoning_gym's own score_answer (binarised at 1.0)."""

from __future__ import annotations

import json

import pandas as pd
import pytest

from conftest import optional_import

optional_import("reasoning_gym", "reasoning-gym is not installed (pip install -r requirements.txt)")

from rlvr_support.data.sources import build_task_records  # noqa: E402
from rlvr_support.data.sources.build import source_verifiers  # noqa: E402
from rlvr_support.data.sources.if_templates import template_records  # noqa: E402
from rlvr_support.scoring.score import load_prompts, score_samples  # noqa: E402
from rlvr_support.scoring.verifiers.ifeval import validate_instructions  # noqa: E402
from rlvr_support.scoring.verifiers.reasoning_gym import score_rg  # noqa: E402


def _score(recs, texts, tmp_path):
    path = tmp_path / "p.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in recs))
    samples = pd.DataFrame({"prompt_id": [r["id"] for r in recs], "sample_idx": 0, "text": texts})
    return score_samples(samples, load_prompts(path))


@pytest.mark.parametrize("task", ["leg_counting", "arc_1d", "graph_color"])
def test_rg_records_roundtrip_and_score(task, tmp_path):
    recs, _ = build_task_records("math", [{"format": "reasoning_gym", "rg_task": task, "size": 3, "seed": 5,
                                           "split": "eval"}])
    assert all(r["scorer"] == "reasoning_gym" and r["rg"]["task"] == task for r in recs)
    if task == "graph_color":  # no single oracle answer: the entry's valid colouring is one
        right = [f"<answer>{json.dumps(r['rg']['entry']['metadata']['possible_answer'])}</answer>" for r in recs]
    else:
        right = [f"thinking...\n<answer>{r['rg']['entry']['answer']}</answer>" for r in recs]
    good = _score(recs, right, tmp_path)
    assert good["reward"].tolist() == [1.0] * 3 and good["math_correct"].all()
    bad = _score(recs, ["<answer>no idea</answer>", "", "the answer is 3"], tmp_path)
    assert bad["reward"].tolist() == [0.0] * 3


def test_partial_credit_is_not_success():
    recs, _ = build_task_records("math", [{"format": "reasoning_gym", "rg_task": "graph_color", "size": 1,
                                           "seed": 1, "split": "eval"}])
    entry = recs[0]["rg"]["entry"]
    res = score_rg('<answer>{"0": 1}</answer>', "graph_color", entry)  # parseable JSON, wrong colouring
    assert 0 < res.score < 1 and not res.correct


def test_unsafe_task_refused():
    with pytest.raises(ValueError, match="not allowed.*eval"):
        build_task_records("math", [{"format": "reasoning_gym", "rg_task": "n_queens", "size": 1, "split": "eval"}])


def test_if_templates_valid_and_deterministic():
    a = template_records(40, seed=3, max_constraints=2)
    assert a == template_records(40, seed=3, max_constraints=2)
    for r in a:
        validate_instructions(r["instruction_id_list"], r["kwargs"], r["key"])
        assert 1 <= len(r["instruction_id_list"]) <= 2
    joint = template_records(5, seed=3, math={"task": "leg_counting"})
    assert all(r["answer"].isdigit() for r in joint)


def test_rg_scorer_math_hands_the_numeric_answers_to_math_verify(tmp_path):
    """A model that answers "The answer is 7" without the tags scores 0 under Reasoning Gym's rule and 1
    under `rg_scorer: math` (lenient extraction); a wrong number stays wrong."""
    src = {"format": "reasoning_gym", "rg_task": "basic_arithmetic", "size": 3, "seed": 2, "split": "eval",
           "rg_config": {"min_terms": 2, "max_terms": 2, "min_digits": 1, "max_digits": 1}}
    rg_recs, _ = build_task_records("math", [src])
    math_recs, _ = build_task_records("math", [{**src, "rg_scorer": "math"}])
    assert [r["prompt"] for r in math_recs] == [r["prompt"] for r in rg_recs]
    assert all("scorer" not in r and "rg" not in r for r in math_recs)
    assert source_verifiers({**src, "rg_scorer": "math"}) == ("math", "reasoning_gym")
    texts = [f"The answer is {r['answer']}" for r in math_recs]
    assert _score(rg_recs, texts, tmp_path)["reward"].tolist() == [0.0] * 3
    path = tmp_path / "m.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in math_recs))
    samples = pd.DataFrame({"prompt_id": [r["id"] for r in math_recs] * 2, "sample_idx": [0] * 3 + [1] * 3,
                            "text": texts + [f"so it is {int(r['answer']) + 1}" for r in math_recs]})
    scored = score_samples(samples, load_prompts(path), math_extraction="lenient")
    assert scored["reward"].tolist() == [1.0] * 3 + [0.0] * 3


def test_rg_scorer_math_refuses_a_task_whose_answers_are_not_numbers():
    with pytest.raises(ValueError, match=r"arc_1d.*id arc_1d-0: rg_scorer 'math' needs a numeric answer"):
        build_task_records("math", [{"format": "reasoning_gym", "rg_task": "arc_1d", "size": 2, "split": "eval",
                                     "rg_scorer": "math"}])
