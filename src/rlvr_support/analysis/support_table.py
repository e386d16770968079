"""Empirical support categories of each checkpoint against the base, per eval set and benchmark.

Each benchmark of an eval set (analysis.benchmarks) is its own row, at its own budget k; there
are no pooled rows (benchmarks with different n have different eps). Prompts of one benchmark may
have different n (imported samples): each prompt is judged at its own budget, the smaller of its
two sample counts, and the row's k and eps are those of the smallest budget (the weakest guarantee).

Source: The Invisible Leash, sec. 3-4.  Per eval prompt, a policy has the
prompt in its empirical support when any of its k = n samples succeeds (reward >= 1:
math correct, IFEval prompt-level strict, joint hard accuracy); sampling n times reaches,
with probability >= 1 - delta, every success of probability >= eps = 1 - delta**(1/n)
(metrics.support.support_epsilon).  Categories base vs checkpoint: preservation P,
shrinkage S, expansion E, out-of-support O; SRR, NDR, SDS, NSCR as in metrics.support.

CIs resample prompts (and RL seeds) and recompute the ratios from resampled category
counts (analysis.resample.grouped_sum_bootstrap).  Rows are labelled same-task /
cross-task relative to the chain's last stage, so "IF support after Math-RLVR" is the
row (chain math, eval set if, cross-task).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from rlvr_support.metrics.support import CATEGORIES, in_support, support_categories, support_epsilon, support_summary
from rlvr_support.analysis.resample import grouped_sum_bootstrap
from rlvr_support.analysis.runs import base_of, by_chain, is_trained, relation
from rlvr_support.config.chains import stages
from rlvr_support.analysis.scores import PromptBlock, ScoreFile, benchmark_blocks

RATIOS = ("SRR", "NDR", "SDS", "NSCR")


def _ratios_from_counts(c: np.ndarray) -> np.ndarray:
    """(..., 4) category counts (P, S, E, O) -> (..., 4) SRR, NDR, SDS, NSCR (NaN on 0/0)."""
    P, S, E = c[..., 0], c[..., 1], c[..., 2]
    with np.errstate(invalid="ignore", divide="ignore"):
        srr = np.where(P + S > 0, P / (P + S), np.nan)
        ndr = np.where(P + E > 0, E / (P + E), np.nan)
        sds = np.where(srr + ndr > 0, 2 * srr * ndr / (srr + ndr), np.nan)
        nscr = np.where(P + E + S > 0, (E - S) / (P + E + S), np.nan)
    return np.stack([srr, ndr, sds, nscr], axis=-1)


def _success_rows(blocks: list[PromptBlock]) -> dict[str, np.ndarray]:
    """{prompt id: its samples' success}, each prompt at its own n."""
    return {i: row for blk in blocks for i, row in zip(blk.ids, blk.success)}


def per_prompt_categories(base: ScoreFile, ckpt: ScoreFile) -> dict[str, tuple[list[str], np.ndarray, int]]:
    """{benchmark: (prompt ids, category per prompt, budget k)}: a prompt's budget is the smaller of its
    sample counts in the two files (each prompt's own n: imported samples may differ), k the smallest."""
    blocks_b, blocks_c = benchmark_blocks(base.path, answers=False), benchmark_blocks(ckpt.path, answers=False)
    if list(blocks_b) != list(blocks_c):
        raise ValueError(f"{ckpt.path} and {base.path} hold different benchmarks {list(blocks_c)} vs {list(blocks_b)}")
    out = {}
    for bench in blocks_b:
        rows_b, rows_c = _success_rows(blocks_b[bench]), _success_rows(blocks_c[bench])
        if set(rows_b) != set(rows_c):
            raise ValueError(f"{ckpt.path} and {base.path} cover different prompts of {bench}")
        ids = sorted(rows_b)
        budget = [min(rows_b[i].size, rows_c[i].size) for i in ids]
        cats = support_categories(np.array([rows_b[i][:k].any() for i, k in zip(ids, budget)]),
                                  np.array([rows_c[i][:k].any() for i, k in zip(ids, budget)]))
        out[bench] = ids, cats, min(budget)
    return out


def support_tables(files: list[ScoreFile], *, delta: float, n_boot: int, ci: float, seed: int,
                   bases: dict[str, str] | None = None) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(summary: one row per chain x eval set x benchmark, per-prompt categories: one row per
    chain/seed/prompt). `bases`: {checkpoint: the checkpoint it is compared with instead of the base}
    (an imported label's `base:`), named in the summary's `base` column."""
    bases = bases or {}
    summary, per_prompt = [], []
    groups = by_chain(files)
    for (chain, eval_set), group in groups.items():
        if chain == "base":
            continue
        if chain in bases and (bases[chain], eval_set) not in groups:
            raise ValueError(f"{chain} is compared with {bases[chain]!r}, which has no scores of {eval_set}")
        base = groups[(bases[chain], eval_set)][0] if chain in bases else base_of(files, eval_set)
        per_seed = [per_prompt_categories(base, f) for f in group]
        for f, cats_of in zip(group, per_seed):
            per_prompt += [{"chain": chain, "seed": f.seed, "eval_set": eval_set, "benchmark": bench,
                            "prompt_id": i, "category": c}
                           for bench, (ids, cats, _) in cats_of.items() for i, c in zip(ids, cats)]
        for bench in per_seed[0]:
            summary.append({**_summary_row(chain, eval_set, bench, [s[bench] for s in per_seed], delta=delta,
                                           n_boot=n_boot, ci=ci, seed=seed), "base": bases.get(chain, "base")})
    return pd.DataFrame(summary), pd.DataFrame(per_prompt)


def _summary_row(chain: str, eval_set: str, bench: str, per_seed: list[tuple[list[str], np.ndarray, int]], *,
                 delta: float, n_boot: int, ci: float, seed: int) -> dict:
    """Category counts (mean over seeds) and ratios with CIs of one benchmark."""
    ks = {k for _, _, k in per_seed}
    if len(ks) != 1:
        raise ValueError(f"{chain}/{eval_set} [{bench}]: seeds were sampled with different n {sorted(ks)}")
    k = ks.pop()
    onehots = [np.stack([cats == c for c in CATEGORIES], axis=1).astype(float) for _, cats, _ in per_seed]
    counts = [support_summary(cats) for _, cats, _ in per_seed]
    point, low, high, spread = grouped_sum_bootstrap(onehots, _ratios_from_counts, n_boot=n_boot, ci=ci, seed=seed)
    row = {"chain": chain, "eval_set": eval_set, "benchmark": bench, "relation": relation(chain, eval_set),
           "trained_on_eval_task": is_trained(chain) and eval_set in stages(chain), "n_seeds": len(per_seed),
           "n_prompts": int(onehots[0].shape[0]), "k": k, "delta": delta, "epsilon": support_epsilon(k, delta)}
    for key in ("P", "S", "E", "O"):
        row[key] = float(np.mean([c[key] for c in counts]))
    for j, name in enumerate(RATIOS):
        row[name], row[f"{name}_lo"], row[f"{name}_hi"], row[f"{name}_seed_std"] = (
            float(point[j]), float(low[j]), float(high[j]), float(spread[j]))
    return row
