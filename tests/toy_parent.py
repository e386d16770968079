"""A toy parent checkpoint for the GRPO stage tests (test_trackers, test_grpo_fast_rollouts,
test_resume_faults): the toy Llama and its tokenizer saved to a folder beside a manifest, with six
arithmetic prompts, and a stand-in reward graded within each group (the tiny policy earns no
verifiable reward, so a binary one would leave every advantage, and every update, zero)."""

from __future__ import annotations

import json
from pathlib import Path

import torch

from rlvr_support.data.toyworld.tokenizer import build_tokenizer
from rlvr_support.models.loading import toy_llama
from rlvr_support.storage.atomic import write_jsonl


def arithmetic_prompts(splits=("train",), math_fields: bool = False) -> list[dict]:
    """Six `i + (i + 3)` prompts per split; `math_fields`: with the task and empty IF fields of a prompt file."""
    extra = {"task": "math", "instruction_id_list": [], "kwargs": []} if math_fields else {}
    return [{"id": f"math-{split}-{i}" if math_fields else f"p{i}", "prompt": f"Q : solve {i} + {i + 3} . A :",
             "answer": str(2 * i + 3), "split": split, **extra} for split in splits for i in range(6)]


def write_parent(d: Path, arch: dict, prompts: list[dict]) -> Path:
    """`d/model` (seeded random weights), `d/manifest.json` and `d/prompts.jsonl`; returns d."""
    tok = build_tokenizer()
    torch.manual_seed(0)
    toy_llama(len(tok), arch, tok).save_pretrained(d / "model")
    tok.save_pretrained(d / "model")
    (d / "manifest.json").write_text(json.dumps({"model_dir": "model"}))
    write_jsonl(d / "prompts.jsonl", prompts)
    return d


def length_reward(modulus: int = 5):
    """A reward factory (`task` -> reward function) of the completion's length mod `modulus`, in [0, 1]."""
    def factory(task, scoring=None):
        def reward(prompts, completions, **_):
            return [len(c) % modulus / (modulus - 1) for c in completions]
        return reward
    return factory
