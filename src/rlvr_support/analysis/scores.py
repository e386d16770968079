"""Load score files into per-prompt matrices: (prompts, n) rewards in sample order.

Score files live at `<root>/<checkpoint>/<eval_set>.parquet`, where the checkpoint is `base`,
`<chain>/seed<k>` or an external checkpoint's name (config/checkpoints.py); the path is the only
place the labels come from.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from rlvr_support.analysis.benchmarks import benchmark_column, split_benchmarks
from rlvr_support.metrics.majority import answer_classes
from rlvr_support.scoring.rewards import graded_reward, success as success_of
from rlvr_support.storage.atomic import read_scores


@dataclass(frozen=True)
class ScoreFile:
    path: Path
    chain: str        # "base", the chain name, e.g. "math-if", or an external checkpoint's name
    seed: int | None  # RL seed; None for the base policy and external checkpoints
    eval_set: str

    @property
    def checkpoint(self) -> str:
        return self.chain if self.seed is None else f"{self.chain}/seed{self.seed}"


def parse_score_path(path: str | Path, root: str | Path) -> ScoreFile:
    rel = Path(path).resolve().relative_to(Path(root).resolve())
    parts = rel.parts
    if len(parts) == 2:  # the base or an external checkpoint
        return ScoreFile(Path(path), parts[0], None, rel.stem)
    if len(parts) == 3 and parts[1].startswith("seed") and parts[1][4:].isdigit():
        return ScoreFile(Path(path), parts[0], int(parts[1][4:]), rel.stem)
    raise ValueError(f"{path}: expected <root>/base/<eval>.parquet, <root>/<chain>/seed<k>/<eval>.parquet "
                     "or <root>/<external checkpoint>/<eval>.parquet")


def label_parts(label: str) -> tuple[str, int | None]:
    """A checkpoint label's (chain, RL seed): `math-if/seed1` -> ("math-if", 1); the base or an
    external checkpoint's name -> (name, None). The label form of parse_score_path's paths."""
    chain, sep, s = label.rpartition("/seed")
    return (chain, int(s)) if sep and s.isdigit() else (label, None)


def benchmark_matrices(path: str | Path) -> dict[str, tuple[list[str], np.ndarray, np.ndarray]]:
    """{benchmark: (prompt ids, binary success (P, n), graded reward (P, n))}, benchmarks in the prompts'
    order: what the tables that need one n per benchmark read (trainability, polarisation, claims,
    remedies). Where a benchmark's prompts have different n (imported samples), each prompt's first n
    samples are read, n the smallest: a prompt's samples are exchangeable draws, so its first n are a
    sample of n."""
    out = {}
    for bench, blocks in benchmark_blocks(path, answers=False).items():
        n = blocks[0].n
        ids = [i for blk in blocks for i in blk.ids]
        order = np.argsort(np.array(ids, dtype=object), kind="stable")
        out[bench] = ([ids[j] for j in order], np.concatenate([blk.success[:, :n] for blk in blocks])[order],
                      np.concatenate([blk.graded[:, :n] for blk in blocks])[order])
    return out


@dataclass(frozen=True)
class PromptBlock:
    """The prompts of one benchmark that share n, in prompt-id order: their ids, binary success and
    graded reward (P, n), and for math prompts their answer classes (metrics.majority; else None)."""
    ids: list[str]
    success: np.ndarray
    graded: np.ndarray
    answers: np.ndarray | None

    @property
    def n(self) -> int:
        return self.success.shape[1]


def benchmark_blocks(path: str | Path, *, answers: bool = True) -> dict[str, list[PromptBlock]]:
    """{benchmark: its prompts grouped by n (ascending)}, benchmarks in the prompts' order: what the
    tables read where prompts may have different n (imported samples: each prompt's own n).
    `answers=False`: no answer classes (the tables that do not vote)."""
    df = read_scores(path)
    out = {}
    for bench, part in split_benchmarks(df, Path(path).stem).items():
        part = part.sort_values(["prompt_id", "sample_idx"], kind="stable")
        n_of = part.groupby("prompt_id", sort=True)["prompt_id"].transform("size").to_numpy()
        blocks = []
        for n in sorted(set(n_of.tolist())):
            rows = part[n_of == n]
            ids, success, graded = _matrices(rows, f"{path} [{bench}]")
            classes = None
            if answers and rows["task"].iloc[0] == "math" and "extracted_answer" in rows:
                classes = np.stack([answer_classes(list(a), list(ok)) for a, ok in zip(
                    np.reshape(rows["extracted_answer"].to_numpy(object), (-1, n)), success)])
            blocks.append(PromptBlock(ids, success, graded, classes))
        out[bench] = blocks
    return out


def _matrices(df, where: str) -> tuple[list[str], np.ndarray, np.ndarray]:
    df = df.sort_values(["prompt_id", "sample_idx"], kind="stable")
    if df.empty:
        raise ValueError(f"{where}: no scored samples")
    counts = df.groupby("prompt_id", sort=True).size()
    if counts.nunique() != 1:
        raise ValueError(f"{where}: prompts have different sample counts {sorted(counts.unique())}")
    n = int(counts.iloc[0])
    success = success_of(df).to_numpy(bool).reshape(-1, n)
    graded = graded_reward(df).to_numpy(float).reshape(-1, n)
    if np.isnan(graded).any():
        raise ValueError(f"{where}: graded rewards contain NaN")
    return list(counts.index), success, graded
