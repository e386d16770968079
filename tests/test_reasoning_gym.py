"""Reasoning Gym as a data source, scored by reasoning_gym's own score_answer (binarised at 1.0)."""

from __future__ import annotations

import json

import pandas as pd
import pytest

from conftest import optional_import

optional_import("reasoning_gym", "reasoning-gym is not installed (pip install -r requirements.txt)")

from rlvr_support.data.sources import build_task_records  # noqa: E402
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
