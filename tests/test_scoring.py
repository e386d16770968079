"""score_samples on a tiny DataFrame; load_prompts validation."""

import json

import pandas as pd
import pytest

from rlvr_support.scoring.score import OUTPUT_COLUMNS, load_prompts, score_samples

PROMPTS = {
    "m1": {"id": "m1", "task": "math", "prompt": "37 + 2*48?", "answer": "133", "split": "test"},
    "i1": {
        "id": "i1",
        "task": "if",
        "prompt": "Write without commas.",
        "instruction_id_list": ["punctuation:no_comma", "startend:end_checker"],
        "kwargs": [{}, {"end_phrase": "That is all."}],
        "split": "test",
    },
    "j1": {
        "id": "j1",
        "task": "joint",
        "prompt": "Solve; no commas.",
        "answer": "5",
        "instruction_id_list": ["punctuation:no_comma"],
        "kwargs": [{"unused": None}],
        "split": "test",
    },
}


def _samples():
    return pd.DataFrame(
        {
            "prompt_id": ["m1", "i1", "j1", "m1", "i1", "j1", "j1"],
            "sample_idx": [0, 0, 0, 1, 1, 1, 2],
            "text": [
                "step : 48 * 2 = 96 ; 37 + 96 = 133 . answer : 133",
                "No commas here. That is all.",
                "answer : 5",
                "answer : 134",
                "Commas, sadly. That is all.",
                "answer : 5, done",
                "answer : 6",
            ],
            "logprob": [0.0] * 7,
        }
    )


def test_score_samples_columns_and_values():
    out = score_samples(_samples(), PROMPTS)
    assert list(out.columns) == OUTPUT_COLUMNS
    assert list(out.prompt_id) == ["m1", "i1", "j1", "m1", "i1", "j1", "j1"]
    assert list(out.sample_idx) == [0, 0, 0, 1, 1, 1, 2]
    assert list(out.reward) == [1.0, 1.0, 1.0, 0.0, 0.0, 0.0, 0.0]
    assert out.math_correct.isna().tolist() == [False, True, False, False, True, False, False]
    assert out.if_prompt_strict.isna().tolist() == [True, False, False, True, False, False, False]
    assert out.extracted_answer.tolist() == ["133", None, "5", "134", None, "5", "6"]
    assert out.if_frac_strict.iloc[4] == 0.5
    assert out.joint_soft.tolist()[2:] == pytest.approx([1.0, float("nan"), float("nan"), 0.0, 1.0], nan_ok=True)
    assert out.timeout.dtype == bool and not out.timeout.any()
    assert out.reward.between(0, 1).all()


def test_score_samples_is_deterministic():
    a, b = score_samples(_samples(), PROMPTS), score_samples(_samples(), PROMPTS)
    pd.testing.assert_frame_equal(a, b)


def test_reasoning_mode():
    df = pd.DataFrame({"prompt_id": ["i1"], "sample_idx": [0], "text": ["<think>a, b</think>fine. That is all."]})
    assert score_samples(df, PROMPTS).reward.iloc[0] == 0.0
    assert score_samples(df, PROMPTS, reasoning="after_think").reward.iloc[0] == 1.0


def test_math_extraction_mode():
    # an unmarked final answer, for a math and a joint prompt: only the lenient mode reads it
    df = pd.DataFrame({"prompt_id": ["m1", "j1"], "sample_idx": [0, 0],
                       "text": ["37 + 96 = 133", "So x = 5 and no commas"]})
    strict, lenient = score_samples(df, PROMPTS), score_samples(df, PROMPTS, math_extraction="lenient")
    assert strict.reward.tolist() == [0.0, 0.0] and strict.extracted_answer.tolist() == [None, None]
    assert lenient.reward.tolist() == [1.0, 1.0] and lenient.extracted_answer.tolist() == ["133", "5"]


def test_unknown_prompt_id():
    df = pd.DataFrame({"prompt_id": ["zz9"], "sample_idx": [0], "text": ["x"]})
    with pytest.raises(ValueError, match="zz9"):
        score_samples(df, PROMPTS)


def test_load_prompts_roundtrip(tmp_path):
    p = tmp_path / "prompts.jsonl"
    p.write_text("\n".join(json.dumps(r) for r in PROMPTS.values()) + "\n")
    assert load_prompts(p) == PROMPTS


@pytest.mark.parametrize(
    "record,needle",
    [
        ({"id": "a", "task": "math", "prompt": "q"}, "answer"),
        ({"id": "a", "task": "poetry", "prompt": "q"}, "task"),
        ({"task": "math", "prompt": "q", "answer": "1"}, "'id'"),
        ({"id": "a", "task": "if", "prompt": "q", "kwargs": []}, "instruction_id_list"),
        (
            {"id": "a", "task": "if", "prompt": "q", "instruction_id_list": ["length_constraints:number_words"], "kwargs": [{}]},
            "num_words",
        ),
    ],
)
def test_load_prompts_errors(tmp_path, record, needle):
    p = tmp_path / "bad.jsonl"
    p.write_text(json.dumps(PROMPTS["m1"]) + "\n" + json.dumps(record) + "\n")
    with pytest.raises(ValueError) as e:
        load_prompts(p)
    assert "bad.jsonl:2" in str(e.value) and needle in str(e.value)
