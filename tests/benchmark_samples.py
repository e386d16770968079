"""Sample and score files holding several benchmarks, with the samples' `has_token_arrays` and
`entropy_topk` columns (analysis.benchmarks), for the tests of the token-level tables; written
with the pipeline's own Parquet writer."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from rlvr_support.storage.atomic import write_parquet


def sample(pid: str, bench: str, ids: list[int], *, text: str | None = None, entropies: list[float] | None = None,
           arrays: bool = True, lists_kept: bool = False, answer=None, reward: float = 0.0, topk: int = 0) -> dict:
    """One sample; `arrays=False` empties its token lists as `sampling.token_arrays` does, unless
    `lists_kept` (then only the flag says they are not to be read)."""
    ent = entropies if entropies is not None else [1.0] * (len(ids) + 1)
    keep = arrays or lists_kept
    return {"prompt_id": pid, "benchmark": bench, "text": text if text is not None else " ".join(f"w{t}" for t in ids),
            "n_tokens": len(ids) + 1, "finish_reason": "stop", "token_ids": list(ids) if keep else [],
            "token_logprobs": [0.0] * (len(ids) + 1) if keep else [], "token_entropies": ent if keep else [],
            "has_token_arrays": arrays, "entropy_topk": topk, "answer": answer, "reward": reward}


def write_benchmark_files(root: Path, ckpt: str, eval_set: str, samples: list[dict], *, task: str = "math",
                          columns: bool = True) -> tuple[Path, Path]:
    """(`<root>/samples/<ckpt>/<eval_set>.parquet`, `<root>/scores/...`); sample_idx counts per prompt.
    `columns=False` writes files of before the benchmark / token-array / entropy-method columns."""
    rows, seen = [], {}
    for s in samples:
        i = seen[s["prompt_id"]] = seen.get(s["prompt_id"], -1) + 1
        rows.append({**s, "sample_idx": i})
    df = pd.DataFrame(rows)
    new = ["benchmark", "has_token_arrays", "entropy_topk"]
    smp = df.drop(columns=["answer", "reward"] + ([] if columns else new))
    sc = pd.DataFrame({"prompt_id": df["prompt_id"], "sample_idx": df["sample_idx"], "task": task,
                       "reward": df["reward"].astype(float), "math_correct": df["reward"] >= 1,
                       "if_frac_strict": df["reward"].astype(float), "extracted_answer": df["answer"]})
    if columns:
        sc["benchmark"] = df["benchmark"]
    out = []
    for kind, frame in (("samples", smp), ("scores", sc)):
        path = root / kind / ckpt / f"{eval_set}.parquet"
        path.parent.mkdir(parents=True, exist_ok=True)
        write_parquet(path, frame)
        out.append(path)
    return out[0], out[1]
