"""Instruction following inside reasoning (ReasonIF-style), scored with MathIF's names.

For each response to a prompt with constraints (eval sets `if` and `joint`) the constraints are
checked three times, strict, by the study's IFEval verifier: on the whole response (what the
scores hold), on its reasoning segment and on its answer segment (metrics.reasoning_segments).
Per checkpoint (RL seeds pooled), eval set and benchmark, with CIs over prompts and seeds
(analysis.resample.grouped_sum_bootstrap: sums per prompt, ratios formed per replicate):

- `reasoning_rate`: the share of responses with a reasoning segment;
- `HAcc_*`, `SAcc_*` (MathIF: hard accuracy = all constraints met, soft accuracy = the mean share
  of constraints met) on the whole response, on the answer, and on the reasoning (over responses
  that have one: ReasonIF's question, whether the trace itself keeps the constraints);
- `bypass`: of the responses that meet every constraint, the share that has no reasoning segment:
  the constraint was met by skipping the reasoning (Verifier-Induced Support Reshaping: IF-RLVR favours direct answers).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from rlvr_support.analysis.benchmarks import split_benchmarks
from rlvr_support.analysis.resample import grouped_sum_bootstrap
from rlvr_support.analysis.runs import by_chain, relation
from rlvr_support.analysis.scores import ScoreFile
from rlvr_support.metrics.reasoning_segments import compile_rules, split_reasoning
from rlvr_support.scoring.verifiers.instructions import score_if  # the families: the job's --verifiers
from rlvr_support.storage.atomic import read_samples

EVAL_SETS = ("if", "joint")  # the eval sets whose prompts carry constraints
# additive per-prompt columns, then the ratios formed from their sums
SUMS = ("n", "reasoning", "hard_whole", "soft_whole", "hard_answer", "soft_answer", "hard_reasoning",
        "soft_reasoning", "bypass")
METRICS = ("reasoning_rate", "HAcc_whole", "SAcc_whole", "HAcc_answer", "SAcc_answer", "HAcc_reasoning",
           "SAcc_reasoning", "bypass")


def _ratios(s: np.ndarray) -> np.ndarray:
    n, r, hw, sw, ha, sa, hr, sr, b = np.moveaxis(s, -1, 0)
    return np.stack([r / n, hw / n, sw / n, ha / n, sa / n, hr / r, sr / r, b / hw], axis=-1)


def response_sums(text: str, prompt: dict, markers, prefixes) -> np.ndarray:
    """One response's contribution to SUMS."""
    ids, kwargs, question = prompt["instruction_id_list"], prompt["kwargs"], prompt["prompt"]
    reasoning, answer = split_reasoning(text, markers, prefixes)
    whole, ans = score_if(text, ids, kwargs, question), score_if(answer, ids, kwargs, question)
    has = bool(reasoning.strip())
    rsn = score_if(reasoning, ids, kwargs, question) if has else None
    return np.array([1, has, whole.prompt_strict, whole.frac_strict, ans.prompt_strict, ans.frac_strict,
                     rsn.prompt_strict if has else 0, rsn.frac_strict if has else 0,
                     whole.prompt_strict and not has], dtype=np.float64)


def prompt_sums(samples: pd.DataFrame, prompts: dict[str, dict], markers, prefixes) -> tuple[list[str], np.ndarray]:
    """(prompt ids sorted, (P, len(SUMS)) per-prompt sums)."""
    ids = sorted(set(samples["prompt_id"].astype(str)))
    at = {p: i for i, p in enumerate(ids)}
    out = np.zeros((len(ids), len(SUMS)))
    memo: dict[tuple[str, str], np.ndarray] = {}  # n samples of a prompt repeat texts (short answers)
    for pid, text in zip(samples["prompt_id"].astype(str), samples["text"]):
        key = (pid, "" if text is None else str(text))
        if key not in memo:
            memo[key] = response_sums(key[1], prompts[pid], markers, prefixes)
        out[at[pid]] += memo[key]
    return ids, out


def reasoning_if_table(files: list[ScoreFile], prompts: dict[str, dict], *, rules: dict, n_boot: int, ci: float,
                       seed: int) -> pd.DataFrame:
    """One row per chain, eval set (if, joint) and benchmark; see the module docstring."""
    markers, prefixes = compile_rules(rules)
    runs: dict[tuple[str, str, str], list[tuple[list[str], np.ndarray]]] = {}
    for (chain, eval_set), group in by_chain([f for f in files if f.eval_set in EVAL_SETS]).items():
        for f in group:
            df = read_samples(f.path, columns=["prompt_id", "benchmark", "text"])
            for bench, part in split_benchmarks(df, eval_set).items():
                runs.setdefault((chain, eval_set, bench), []).append(prompt_sums(part, prompts, markers, prefixes))
    rows = []
    for (chain, eval_set, bench), by_seed in runs.items():
        per_seed = [x for _, x in by_seed]
        point, low, high, _ = grouped_sum_bootstrap(per_seed, _ratios, n_boot=n_boot, ci=ci, seed=seed)
        row = {"chain": chain, "eval_set": eval_set, "benchmark": bench,
               "relation": relation(chain, eval_set) if chain != "base" else "", "n_seeds": len(per_seed),
               "n_prompts": len(per_seed[0]), "n_bypass": int(sum(x[:, -1].sum() for x in per_seed))}
        for j, name in enumerate(METRICS):
            row[name], row[f"{name}_lo"], row[f"{name}_hi"] = float(point[j]), float(low[j]), float(high[j])
        row["bypass_diff"], row["bypass_diff_lo"], row["bypass_diff_hi"] = _bypass_diff(
            runs.get(("base", eval_set, bench)), by_seed, chain, n_boot=n_boot, ci=ci, seed=seed)
        rows.append(row)
    return pd.DataFrame(rows)


def _bypass_diff(base, by_seed, chain: str, *, n_boot: int, ci: float, seed: int) -> tuple[float, float, float]:
    """bypass(checkpoint) - bypass(base), paired per prompt: each seed's prompt sums sit beside the
    base's on the same prompts, so a replicate resamples the prompts of both together."""
    if chain == "base":
        return 0.0, 0.0, 0.0
    if base is None:
        return (float("nan"),) * 3
    base_ids, base_sums = base[0]
    if any(ids != base_ids for ids, _ in by_seed):
        raise ValueError(f"{chain}: its prompts differ from the base's")
    W = len(SUMS)
    point, low, high, _ = grouped_sum_bootstrap(
        [np.hstack([base_sums, x]) for _, x in by_seed],
        lambda s: _ratios(s[..., W:])[..., -1:] - _ratios(s[..., :W])[..., -1:], n_boot=n_boot, ci=ci, seed=seed)
    return float(point[0]), float(low[0]), float(high[0])
