"""Future trainability: the share of a checkpoint's prompts whose G-rollout GRPO group would be
all-fail, all-success or mixed, per eval set, benchmark and group size G.

Source: the support-reshaping paper (a later RLVR stage learns only from mixed groups; metrics.trainability has the
estimator, its formula and sources).  Per prompt the probabilities come from its n evaluation
samples with c successes (reward >= 1, scoring.rewards.success); a row is the mean over prompts,
its CI a bootstrap over prompts and RL seeds (metrics.bootstrap.bootstrap_ci_grouped).  Group
sizes are the RL `group_size` and `analysis.trainability.group_sizes`, each only where it is at
most the benchmark's n (a group cannot be larger than the samples it is drawn from).  Checkpoint
rows also give the mixed share minus the base's, paired per prompt (analysis.resample.paired_grouped_diff),
the quantity of the claim "IF-RLVR lowers the mixed-group share on math for a later Math-RLVR stage".
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from rlvr_support.metrics.bootstrap import bootstrap_ci_grouped
from rlvr_support.metrics.trainability import OUTCOMES, group_outcome_probs
from rlvr_support.analysis.resample import paired_grouped_diff
from rlvr_support.analysis.runs import by_chain, relation
from rlvr_support.analysis.scores import ScoreFile, benchmark_matrices


def success_counts(files: list[ScoreFile]) -> dict[str, tuple[list[str], np.ndarray, int]]:
    """{benchmark: (prompt ids, (S, P) success counts of the S files, n)} of files of one chain and
    eval set (RL seeds); every file must hold the same prompts at the same n."""
    out: dict[str, tuple[list[str], list[np.ndarray], int]] = {}
    for f in files:
        for bench, (ids, succ, _) in benchmark_matrices(f.path).items():
            if bench in out and (out[bench][0] != ids or out[bench][2] != succ.shape[1]):
                raise ValueError(f"{f.path} [{bench}]: prompts or n differ from the other seeds'")
            out.setdefault(bench, (ids, [], succ.shape[1]))[1].append(succ.sum(axis=1))
    return {b: (ids, np.stack(cs), n) for b, (ids, cs, n) in out.items()}


def group_sizes(rl_group_size: int | None, extra: list[int], n: int) -> list[int]:
    """The RL group size (None: a study that trains nothing) and the extra ones, ascending, each at most n."""
    return sorted({g for g in [rl_group_size, *extra] if g is not None and g <= n})


def mixed_share_effects(files: list[ScoreFile], G: int, *, n_boot: int, ci: float, seed: int
                        ) -> dict[tuple[str, str], dict[str, tuple[float, float, float, int]]]:
    """{(chain, eval_set): {benchmark: (mixed share checkpoint - base, low, high, n_seeds)}} at group
    size G, paired per prompt; benchmarks whose n is below G are left out."""
    groups = by_chain(files)
    out = {}
    for (chain, eval_set), group in groups.items():
        if chain == "base" or ("base", eval_set) not in groups:
            continue
        base = success_counts(groups[("base", eval_set)][:1])
        out[(chain, eval_set)] = {}
        for bench, (ids, counts, n) in success_counts(group).items():
            ids_b, counts_b, n_b = base[bench]
            if ids_b != ids or n_b != n:
                raise ValueError(f"{chain}/{eval_set} [{bench}]: prompts or n differ from the base's")
            if G > n:
                continue
            mixed = [group_outcome_probs(n, c, G)[:, 2] for c in counts]
            d = paired_grouped_diff(group_outcome_probs(n, counts_b[0], G)[:, 2], mixed, n_boot=n_boot, ci=ci,
                                    seed=seed)
            out[(chain, eval_set)][bench] = (*d[:3], len(group))
    return out


def trainability_table(files: list[ScoreFile], *, rl_group_size: int | None, extra_group_sizes: list[int], n_boot: int,
                       ci: float, seed: int) -> pd.DataFrame:
    """One row per checkpoint (chain, RL seeds pooled), eval set, benchmark and G: the shares of
    all-fail / all-success / mixed groups with CIs, and (checkpoints) the mixed share minus the base's."""
    groups = by_chain(files)
    rows = []
    for (chain, eval_set), group in groups.items():
        base = success_counts(groups[("base", eval_set)][:1]) if ("base", eval_set) in groups else None
        for bench, (ids, counts, n) in success_counts(group).items():
            for G in group_sizes(rl_group_size, extra_group_sizes, n):
                probs = [group_outcome_probs(n, c, G) for c in counts]
                point, low, high, spread = bootstrap_ci_grouped(probs, n_boot=n_boot, ci=ci, seed=seed)
                row = {"chain": chain, "eval_set": eval_set, "benchmark": bench,
                       "relation": relation(chain, eval_set) if chain != "base" else "", "G": G,
                       "rl_group_size": G == rl_group_size, "n": n, "n_seeds": len(group), "n_prompts": len(ids)}
                for j, name in enumerate(OUTCOMES):
                    row[name], row[f"{name}_lo"], row[f"{name}_hi"], row[f"{name}_seed_std"] = (
                        float(point[j]), float(low[j]), float(high[j]), float(spread[j]))
                if chain == "base" or base is None:
                    d = (0.0, 0.0, 0.0) if chain == "base" else (np.nan,) * 3
                else:
                    d = paired_grouped_diff(group_outcome_probs(n, base[bench][1][0], G)[:, 2],
                                            [p[:, 2] for p in probs], n_boot=n_boot, ci=ci, seed=seed)[:3]
                row["mixed_diff"], row["mixed_diff_lo"], row["mixed_diff_hi"] = (float(v) for v in d)
                rows.append(row)
    return pd.DataFrame(rows)


def observed_zero_variance(table: pd.DataFrame, curves: list[tuple[str, int, pd.DataFrame]],
                           rl_group_size: int) -> pd.DataFrame:
    """What each trained stage saw beside what its start predicted: one row per (chain, RL seed,
    benchmark of the stage's task) with

    - `predicted`: the share of zero-variance groups (all-fail + all-success = 1 - mixed, with the
      mixed CI mirrored) of the stage's starting checkpoint (its parent chain, else the base) on the
      stage task's eval prompts at G = rl.group_size, from `table` (trainability_table, seeds pooled);
    - `observed_first`, `observed_mean`: TRL's `frac_reward_zero_std` in the reward curve, the first
      log window and the mean over the stage.

    The prediction reads eval prompts and the stage trains on train prompts of the same task, so the
    two agree only as far as the splits are alike; a curve without the column (older runs) gives NaN."""
    from rlvr_support.config.chains import parent_chain, stage_task

    rows = []
    at_g = table[table["G"] == rl_group_size]
    for chain, seed, curve in curves:
        start, task = parent_chain(chain) or "base", stage_task(chain)
        pred = at_g[(at_g["chain"] == start) & (at_g["eval_set"] == task)]
        zero = curve["frac_reward_zero_std"] if "frac_reward_zero_std" in curve else pd.Series(dtype=float)
        for _, p in (pred.iterrows() if len(pred) else [(None, None)]):
            rows.append({"chain": chain, "seed": seed, "start": start, "task": task,
                         "benchmark": p["benchmark"] if p is not None else task, "G": rl_group_size,
                         "predicted": 1 - p["mixed"] if p is not None else np.nan,
                         "predicted_lo": 1 - p["mixed_hi"] if p is not None else np.nan,
                         "predicted_hi": 1 - p["mixed_lo"] if p is not None else np.nan,
                         "observed_first": float(zero.iloc[0]) if len(zero) else np.nan,
                         "observed_mean": float(zero.mean()) if len(zero) else np.nan,
                         "first_step": int(curve["step"].iloc[0]) if len(curve) else np.nan})
    return pd.DataFrame(rows)
