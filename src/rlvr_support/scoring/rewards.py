"""The rewards a scored sample carries, defined once for every reader.

`score` (scoring/score.py) writes per-sample verifier results; best@k (analysis), the support
monitor (training/support_monitor.py) and the remedy tables all read the graded reward through
`graded_reward`, and the binary success behind pass@k through `success`.
"""

from __future__ import annotations

import pandas as pd

SUCCESS = 1.0  # a sample (or GRPO rollout) succeeds when its verifiable reward reaches 1


def success(df: pd.DataFrame) -> pd.Series:
    """Binary success behind pass@k: the task's verifiable reward is 1 (math correct, every
    constraint met strictly, or both for joint prompts)."""
    return df["reward"].astype(float) >= SUCCESS


def graded_reward(df: pd.DataFrame) -> pd.Series:
    """The graded reward behind best@k: math correctness, the IF share of constraints met
    (strict), and for joint prompts the mean of the two."""
    task = df["task"].iloc[0]
    if task == "math":
        return df["reward"].astype(float)
    if task == "if":
        return df["if_frac_strict"].astype(float)
    return 0.5 * (df["math_correct"].astype(float) + df["if_frac_strict"].astype(float))
