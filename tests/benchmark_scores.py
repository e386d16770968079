"""Score files holding several benchmarks (the `benchmark` column of analysis.benchmarks), for the
tests of the per-benchmark tables; written with the pipeline's own Parquet writer."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from rlvr_support.storage.atomic import write_parquet


def write_benchmark_scores(root: Path, ckpt: str, eval_set: str, rewards: dict[str, dict[str, list[float]]],
                           task: str = "math", column: bool = True,
                           answers: dict[str, list[str | None]] | None = None) -> Path:
    """`<root>/<ckpt>/<eval_set>.parquet` from {benchmark: {prompt id: rewards of its samples}};
    `column=False` writes a file of before the `benchmark` column (one benchmark only); `answers`:
    {prompt id: the extracted answer of each sample} (default: none extracted)."""
    if not column and len(rewards) != 1:
        raise ValueError("a file without the benchmark column holds one benchmark")
    rows = [{"prompt_id": pid, "sample_idx": i, "task": task, "reward": float(r), "math_correct": bool(r >= 1),
             "if_frac_strict": float(r), "benchmark": bench,
             "extracted_answer": (answers or {}).get(pid, [None] * len(rs))[i]}
            for bench, prompts in rewards.items() for pid, rs in prompts.items() for i, r in enumerate(rs)]
    df = pd.DataFrame(rows)
    if not column:
        df = df.drop(columns="benchmark")
    path = root / ckpt / f"{eval_set}.parquet"
    path.parent.mkdir(parents=True, exist_ok=True)
    write_parquet(path, df)
    return path
