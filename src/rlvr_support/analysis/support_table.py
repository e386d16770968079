"""Empirical support categories of each checkpoint against the base, per eval set.

Source: seeds/003 (The Invisible Leash), sec. 3-4.  Per eval prompt, a policy has the
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
from rlvr_support.analysis.runs import base_of, by_chain, relation
from rlvr_support.config.chains import stages
from rlvr_support.analysis.scores import ScoreFile, reward_matrices

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


def per_prompt_categories(base: ScoreFile, ckpt: ScoreFile) -> tuple[list[str], np.ndarray, int]:
    """(prompt ids, category per prompt, budget k) with k = the smaller sample count of the two."""
    ids_b, succ_b, _ = reward_matrices(base.path)
    ids_c, succ_c, _ = reward_matrices(ckpt.path)
    if ids_b != ids_c:
        raise ValueError(f"{ckpt.path} and {base.path} cover different prompts")
    k = min(succ_b.shape[1], succ_c.shape[1])
    return ids_b, support_categories(in_support(succ_b, k), in_support(succ_c, k)), k


def support_tables(files: list[ScoreFile], *, delta: float, n_boot: int, ci: float, seed: int
                   ) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(summary: one row per chain x eval set, per-prompt categories: one row per chain/seed/prompt)."""
    summary, per_prompt = [], []
    for (chain, eval_set), group in by_chain(files).items():
        if chain == "base":
            continue
        base = base_of(files, eval_set)
        onehots, counts, ks = [], [], set()
        for f in group:
            ids, cats, k = per_prompt_categories(base, f)
            ks.add(k)
            onehots.append(np.stack([cats == c for c in CATEGORIES], axis=1).astype(float))
            counts.append(support_summary(cats))
            per_prompt += [{"chain": chain, "seed": f.seed, "eval_set": eval_set, "prompt_id": i, "category": c}
                           for i, c in zip(ids, cats)]
        if len(ks) != 1:
            raise ValueError(f"{chain}/{eval_set}: seeds were sampled with different n {sorted(ks)}")
        k = ks.pop()
        point, low, high, spread = grouped_sum_bootstrap(onehots, _ratios_from_counts, n_boot=n_boot, ci=ci, seed=seed)
        row = {"chain": chain, "eval_set": eval_set, "relation": relation(chain, eval_set),
               "trained_on_eval_task": eval_set in stages(chain), "n_seeds": len(group),
               "n_prompts": int(onehots[0].shape[0]), "k": k, "delta": delta, "epsilon": support_epsilon(k, delta)}
        for key in ("P", "S", "E", "O"):
            row[key] = float(np.mean([c[key] for c in counts]))
        for j, name in enumerate(RATIOS):
            row[name], row[f"{name}_lo"], row[f"{name}_hi"], row[f"{name}_seed_std"] = (
                float(point[j]), float(low[j]), float(high[j]), float(spread[j]))
        summary.append(row)
    return pd.DataFrame(summary), pd.DataFrame(per_prompt)
