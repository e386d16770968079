"""The 12 prompts every import fixture is generated from: 6 MATH-style questions with a `\\boxed{}` gold
answer and 6 rows in google/IFEval's layout (`key`, `prompt`, `instruction_id_list`, `kwargs`).

One list for all tools, so the same question appears in the lm-eval, vLLM, TRL, verl and lighteval
fixtures and a mixed study can match them by document id or by the hash of the prompt text.
`python prompts.py OUT_DIR` writes `math.jsonl` and `ifeval.jsonl` (the lm-eval tasks' local data).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

MATH_INSTRUCTION = "Solve the problem. Put your final answer within \\boxed{}."

# MATH-500's columns (problem, answer, unique_id); easy on purpose, so a 135M model gets some right.
MATH = [
    {"unique_id": "toy/add-1", "problem": "What is $7 + 5$?", "answer": "12"},
    {"unique_id": "toy/mul-1", "problem": "What is $6 \\times 7$?", "answer": "42"},
    {"unique_id": "toy/sub-1", "problem": "Compute $15 - 8$.", "answer": "7"},
    {"unique_id": "toy/eq-1", "problem": "If $x + 3 = 10$, what is $x$?", "answer": "7"},
    {"unique_id": "toy/frac-1", "problem": "What is $\\frac{1}{2} + \\frac{1}{4}$?", "answer": "\\frac{3}{4}"},
    {"unique_id": "toy/div-1", "problem": "How many positive divisors does $12$ have?", "answer": "6"},
]

# google/IFEval rows (kwargs hold only the keys each instruction takes, as in its input_data.jsonl).
IFEVAL = [
    {"key": 9001, "prompt": "Write a short poem about the sea. Your entire response should be in English, and in all "
                            "lowercase letters. No capital letters are allowed.",
     "instruction_id_list": ["change_case:english_lowercase"], "kwargs": [{}]},
    {"key": 9002, "prompt": "Describe a cat in two sentences. Do not include any commas in your response.",
     "instruction_id_list": ["punctuation:no_comma"], "kwargs": [{}]},
    {"key": 9003, "prompt": "Write a haiku about autumn. Wrap your entire response with double quotation marks.",
     "instruction_id_list": ["startend:quotation"], "kwargs": [{}]},
    {"key": 9004, "prompt": "List three fruits. Your answer must contain exactly 3 bullet points. Use the markdown "
                            "bullet points such as:\n* This is point 1.",
     "instruction_id_list": ["detectable_format:number_bullet_lists"], "kwargs": [{"num_bullets": 3}]},
    {"key": 9005, "prompt": "Greet a friend in one sentence. Finish your response with this exact phrase Is there "
                            "anything else I can help with?. No other words should follow this phrase.",
     "instruction_id_list": ["startend:end_checker"],
     "kwargs": [{"end_phrase": "Is there anything else I can help with?"}]},
    {"key": 9006, "prompt": "Explain what a rainbow is. Answer with less than 50 words and include the keywords sun "
                            "and rain.",
     "instruction_id_list": ["length_constraints:number_words", "keywords:existence"],
     "kwargs": [{"relation": "less than", "num_words": 50}, {"keywords": ["sun", "rain"]}]},
]


def math_prompt(row: dict) -> str:
    """The user message of a math row, the same text in every tool's fixture."""
    return f"{row['problem']}\n{MATH_INSTRUCTION}"


def write_jsonl(path: Path, rows: list[dict]) -> None:
    with open(path, "w") as f:
        for row in rows:
            f.write(json.dumps(row) + "\n")


if __name__ == "__main__":
    out = Path(sys.argv[1])
    out.mkdir(parents=True, exist_ok=True)
    write_jsonl(out / "math.jsonl", MATH)
    write_jsonl(out / "ifeval.jsonl", IFEVAL)
