"""Verifiable rewards for GRPO: the very scorer the evaluation uses, so train and eval agree.

Math-RLVR rewards a correct final answer, IF-RLVR a response that meets every constraint
(IFEval strict, prompt level), joint RLVR both at once (MathIF hard accuracy). The config's
`scoring` section (math_extraction, reasoning, timeout_s) applies here as in the score jobs:
a study scored with lenient extraction, or with the reasoning stripped, is trained on that reward.
"""

from __future__ import annotations

import json

import pandas as pd

from rlvr_support.scoring.score import score_samples, scoring_options


def _text(x) -> str:
    """TRL passes conversational prompts/completions as message lists; score the last message's text."""
    return x[-1]["content"] if isinstance(x, list) else x


def make_reward(task: str, scoring: dict | None = None):
    """The reward of `task`'s GRPO stage; `scoring` is the config's `scoring` section (None: score_samples'
    defaults, as for a stage run outside a study)."""
    if task not in ("math", "if", "joint"):
        raise ValueError(f"no verifiable reward for task {task!r} (expected math, if or joint)")
    options = scoring_options(scoring)

    def reward(prompts, completions, prompt_id, answer, instruction_id_list, kwargs_json, extra_json=None, **_):
        # extra_json carries per-prompt scorer fields (e.g. a Reasoning Gym entry); absent in older datasets.
        extras = extra_json if extra_json is not None else ["{}"] * len(prompt_id)
        records = {pid: {"id": pid, "task": task, "prompt": _text(p), "answer": a or None,
                         "instruction_id_list": list(ids), "kwargs": json.loads(kw), "split": "train",
                         **json.loads(ex)}
                   for pid, p, a, ids, kw, ex in zip(prompt_id, prompts, answer, instruction_id_list, kwargs_json,
                                                     extras)}
        samples = pd.DataFrame({"prompt_id": prompt_id, "sample_idx": range(len(completions)),
                                "text": [_text(c) for c in completions]})
        return score_samples(samples, records, **options)["reward"].astype(float).tolist()

    reward.__name__ = f"{task}_reward"
    return reward
