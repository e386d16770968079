"""Prompt keys across tools (imports/prompt_keys.py): one question, logged templated, decoded or bare, is one key."""

from __future__ import annotations

import glob
from pathlib import Path

import pytest

from rlvr_support.imports.formats import FORMATS
from rlvr_support.imports.prompt_keys import normalise_prompt, text_key, user_turn

REPO = Path(__file__).resolve().parents[1]
FIXTURES = REPO / "tests" / "data" / "imports"
QUESTION = "What is $7 + 5$?\nSolve it."
SYSTEM = "You are a helpful AI assistant."


@pytest.mark.parametrize("logged", [
    QUESTION,
    f"<|im_start|>system\n{SYSTEM}<|im_end|>\n<|im_start|>user\n{QUESTION}<|im_end|>\n<|im_start|>assistant\n",
    f"system\n{SYSTEM}\nuser\n{QUESTION}\nassistant\n",
    f"user\n{QUESTION}\nassistant",
    f"<|begin_of_text|><|start_header_id|>user<|end_header_id|>\n\n{QUESTION}<|eot_id|>"
    "<|start_header_id|>assistant<|end_header_id|>\n\n",
    f"  {QUESTION.replace(' ', '   ')}\n\n",
])
def test_a_question_has_one_key_however_a_tool_logged_it(logged):
    assert text_key(logged) == text_key(QUESTION)


def test_the_last_user_turn_is_the_prompt_and_other_text_is_left_alone():
    two = (f"<|im_start|>user\nfirst<|im_end|>\n<|im_start|>assistant\nok<|im_end|>\n"
           f"<|im_start|>user\n{QUESTION}<|im_end|>\n<|im_start|>assistant\n")
    assert user_turn(two) == QUESTION
    assert user_turn("Q : 3 + 4 . A :") == "Q : 3 + 4 . A :"
    assert normalise_prompt("e\u0301") == normalise_prompt("\u00e9")  # NFC
    assert text_key("What is 7 + 5?") != text_key("What is 7 + 6?")


def test_the_real_fixtures_of_every_tool_key_the_same_six_math_prompts():
    """vLLM (templated), verl (decoded), TRL and lighteval (bare messages), written by the tools themselves
    (tests/data/imports/README.md): the same six questions under the same six keys."""
    sources = [("vllm_outputs", FIXTURES / "vllm" / "request_outputs.jsonl"),
               ("lighteval", *sorted(FIXTURES.glob("lighteval/details_*.parquet"))[:1]),
               ("verl", FIXTURES / "verl" / "validation" / "0.jsonl")]
    keys = {}
    for fmt, path in sources:
        recs = list(FORMATS[fmt](path, {"format": fmt, "benchmark": "math", "task": "math"}))
        keys[fmt] = sorted(text_key(r.prompt) for r in recs)
    trl = [r for f in sorted(glob.glob(str(FIXTURES / "trl/completions/*.parquet")))
           for r in FORMATS["trl_completions"](Path(f), {"format": "trl_completions", "benchmark": "math",
                                                         "task": "math"})]
    keys["trl_completions"] = sorted({text_key(r.prompt) for r in trl})
    assert len(keys["vllm_outputs"]) == 6
    assert all(k == keys["vllm_outputs"] for k in keys.values()), keys
