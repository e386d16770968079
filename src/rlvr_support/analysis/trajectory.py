"""Training trajectories: metrics of every saved checkpoint of a stage, and their association
across checkpoints.

A *point* is one checkpoint (a run at a training step) evaluated on one eval set: its samples
and scores files. Points come from the stage's intermediate checkpoints (sampled at a small
budget k) and from its start and end checkpoints (the full-budget files), so every point is
read at the same k: its samples with ``sample_idx < k``. External runs (a released checkpoint
series) are points too, with their own run and chain name and no seed.

Per point, eval set and benchmark (analysis.benchmarks; no pooled rows), per-prompt values and
their mean with a percentile bootstrap CI over prompts (metrics.bootstrap.bootstrap_ci):

* ``pass@1`` (metrics.passk, Chen et al. 2021) and ``coverage@k``, the share of prompts with a
  success among the k samples (metrics.passk.coverage_at_k_per_prompt);
* ``best@k``: the expected maximum graded reward of k samples (metrics.passk.best_at_k_matrix);
* ``answer_entropy``: the entropy of the prompt's k answers, answers as in the entropy table
  (analysis.entropy_table: the extracted answer; for IF prompts the normalised text);
* ``share:<style>``: the share of the prompt's k samples in each solution style of
  analysis.openings_table (the response's first word).

The association table asks whether, across checkpoints, the style mix moves with best@k (the
verifier-induced support story of the support-reshaping paper: a checkpoint that answers directly more often
covers fewer prompts): Pearson r between a style share and best@k over all points of an eval
set and benchmark, with a bootstrap CI over points, and Spearman's rho.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from rlvr_support.storage.atomic import read_samples, read_scores
from rlvr_support.metrics.bootstrap import bootstrap_ci
from rlvr_support.metrics.entropy import mean_per_prompt, per_prompt_answer_entropy
from rlvr_support.metrics.passk import best_at_k_matrix, coverage_at_k_per_prompt, pass_at_k_matrix
from rlvr_support.scoring.rewards import graded_reward, success as success_of
from rlvr_support.analysis.benchmarks import split_benchmarks
from rlvr_support.analysis.entropy_table import sample_answers
from rlvr_support.analysis.markdown import ci_cell, cell, escape, markdown_table
from rlvr_support.analysis.openings_table import STYLE_LABELS, opening_style
from rlvr_support.analysis.runs import chain_sort_key

SHARES = tuple(f"share:{s}" for s in STYLE_LABELS)
METRICS = ("pass@1", "best@k", "coverage@k", "answer_entropy", *SHARES)
POINT_KEYS = ("run", "chain", "seed", "step", "samples", "scores")
COLUMNS = ["run", "chain", "seed", "step", "checkpoint", "eval_set", "benchmark", "k", "metric", "value", "ci_low", "ci_high",
           "n_prompts"]
ASSOCIATION_COLUMNS = ["eval_set", "benchmark", "x", "y", "n_points", "n_runs", "n_seeds", "pearson_r", "ci_low",
                       "ci_high", "n_boot_used", "spearman_rho"]


def first_k_samples(samples_path, scores_path, k: int) -> pd.DataFrame:
    """The scored samples with ``sample_idx < k``, sorted by prompt and sample; every prompt must
    have all k (a point read at a larger k than it was sampled with is an error, not a smaller k)."""
    samples = read_samples(samples_path)
    scores = read_scores(scores_path)
    cols = ["prompt_id", "sample_idx", "text"] + (["benchmark"] if "benchmark" in samples.columns else [])
    df = samples[cols].merge(scores.drop(columns=[c for c in ("text", "benchmark") if c in cols and c in scores]),
                             on=["prompt_id", "sample_idx"], how="inner", validate="one_to_one")
    if len(df) != len(samples):
        raise ValueError(f"{scores_path} does not score every sample of {samples_path}")
    df["prompt_id"] = df["prompt_id"].astype(str)
    kept = df[df["sample_idx"] < k]
    counts = kept.groupby("prompt_id").size().reindex(sorted(set(df["prompt_id"])), fill_value=0)
    short = counts[counts < k]
    if len(short):
        raise ValueError(f"{samples_path}: {len(short)} prompt(s) have fewer than k={k} samples "
                         f"(e.g. {short.index[0]!r} with {int(short.iloc[0])}); sample them at k or more")
    return kept.sort_values(["prompt_id", "sample_idx"], kind="stable").reset_index(drop=True)


def per_prompt_values(df: pd.DataFrame, k: int) -> tuple[np.ndarray, np.ndarray]:
    """(prompt ids, (P, len(METRICS)) per-prompt values) of one benchmark's first k samples
    (``first_k_samples``: sorted, exactly k per prompt)."""
    ids = df["prompt_id"].to_numpy(str)[::k]
    success = success_of(df).to_numpy(bool).reshape(-1, k)
    graded = graded_reward(df).to_numpy(float).reshape(-1, k)
    h_ids, h_ans = per_prompt_answer_entropy(df["prompt_id"].to_numpy(str), sample_answers(df))
    styles = np.array([opening_style(t) for t in df["text"]])
    shares = [mean_per_prompt(df["prompt_id"].to_numpy(str), (styles == s).astype(float)) for s in STYLE_LABELS]
    assert (h_ids == ids).all() and all((i == ids).all() for i, _ in shares)
    cols = [pass_at_k_matrix(k, success.sum(1), [1])[:, 0], best_at_k_matrix(graded, [k])[:, 0],
            coverage_at_k_per_prompt(success, k).astype(float), h_ans, *(v for _, v in shares)]
    return ids, np.stack(cols, axis=1)


def _check_points(points: list[dict]) -> None:
    seen = set()
    for p in points:
        missing = [key for key in POINT_KEYS if key not in p]
        if missing:
            raise ValueError(f"trajectory point {p}: missing {', '.join(missing)}")
        key = (p["run"], int(p["step"]), Path(p["samples"]).stem)
        if key in seen:
            raise ValueError(f"trajectory points: run {key[0]!r} at step {key[1]} on {key[2]!r} given twice")
        if Path(p["samples"]).stem != Path(p["scores"]).stem:
            raise ValueError(f"trajectory point {p['run']} step {p['step']}: samples {p['samples']} and scores "
                             f"{p['scores']} are of different eval sets")
        seen.add(key)


def trajectory_table(points: list[dict], *, k: int, n_boot: int, ci: float, seed: int) -> pd.DataFrame:
    """One row per point, eval set, benchmark and metric (METRICS): the mean over prompts of the
    point's first-k values, with its CI over prompts (every metric of a point from the same
    resampled prompts)."""
    _check_points(points)
    rows, bench_rank = [], {}
    for p in points:
        eval_set = Path(p["samples"]).stem
        df = first_k_samples(p["samples"], p["scores"], k)
        for bench, part in split_benchmarks(df, eval_set).items():
            bench_rank.setdefault((eval_set, bench), len(bench_rank))
            ids, values = per_prompt_values(part, k)
            point, low, high = bootstrap_ci(values, n_boot=n_boot, ci=ci, seed=seed)
            for j, metric in enumerate(METRICS):
                rows.append({"run": p["run"], "chain": p["chain"], "seed": p["seed"], "step": int(p["step"]),
                             "checkpoint": p.get("checkpoint", f"{p['run']}/step{int(p['step'])}"),
                             "eval_set": eval_set, "benchmark": bench, "k": k, "metric": metric,
                             "value": float(point[j]), "ci_low": float(low[j]), "ci_high": float(high[j]),
                             "n_prompts": len(ids)})
    metric_rank = {m: i for i, m in enumerate(METRICS)}
    rows.sort(key=lambda r: (r["eval_set"], bench_rank[(r["eval_set"], r["benchmark"])], chain_sort_key(r["chain"]),
                             r["seed"] is None, r["seed"] or 0, r["run"], r["step"], metric_rank[r["metric"]]))
    df = pd.DataFrame(rows, columns=COLUMNS)
    df["seed"] = df["seed"].astype("Int64")  # external runs have none; keeps seeds integers in the CSV
    return df


def _percentile(reps: np.ndarray, ci: float) -> tuple[float, float]:
    if reps.size == 0:
        return float("nan"), float("nan")
    alpha = (1.0 - ci) / 2.0
    low, high = np.quantile(reps, [alpha, 1.0 - alpha])
    return float(low), float(high)


def _degenerate(x: np.ndarray, y: np.ndarray) -> bool:
    return len(x) < 3 or np.ptp(x) == 0 or np.ptp(y) == 0


def pearson_replicates(x, y, *, n_boot: int, seed: int) -> np.ndarray:
    """Pearson r of each of ``n_boot`` resamples of the (x, y) points drawn with replacement
    (numpy ``default_rng(seed)``), leaving out the resamples in which x or y is constant (r is
    undefined there); the length of the result is the number of resamples used."""
    x, y = np.asarray(x, dtype=np.float64), np.asarray(y, dtype=np.float64)
    idx = np.random.default_rng(seed).integers(0, len(x), size=(int(n_boot), len(x)))
    xs, ys = x[idx], y[idx]
    ok = (np.ptp(xs, axis=1) > 0) & (np.ptp(ys, axis=1) > 0)
    xc = xs[ok] - xs[ok].mean(axis=1, keepdims=True)
    yc = ys[ok] - ys[ok].mean(axis=1, keepdims=True)
    r = (xc * yc).sum(1) / np.sqrt((xc ** 2).sum(1) * (yc ** 2).sum(1))
    return np.clip(r, -1.0, 1.0)


def _pearson_ci(x, y, *, n_boot: int, ci: float, seed: int) -> tuple[float, float, float, int]:
    """``pearson_bootstrap`` and the number of resamples its interval used."""
    x, y = np.asarray(x, dtype=np.float64), np.asarray(y, dtype=np.float64)
    if x.shape != y.shape or x.ndim != 1:
        raise ValueError(f"x and y must be 1-d of the same length, got shapes {x.shape} and {y.shape}")
    if _degenerate(x, y):
        return float("nan"), float("nan"), float("nan"), 0
    reps = pearson_replicates(x, y, n_boot=n_boot, seed=seed)
    return (float(np.corrcoef(x, y)[0, 1]), *_percentile(reps, ci), len(reps))


def pearson_bootstrap(x, y, *, n_boot: int, ci: float, seed: int) -> tuple[float, float, float]:
    """``(r, low, high)``: Pearson's r = cov(x, y) / (sd(x) sd(y)) of the points and the
    percentile interval (Efron & Tibshirani 1993, ch. 13) of ``pearson_replicates``. NaN for
    all three with fewer than 3 points or a constant x or y."""
    return _pearson_ci(x, y, n_boot=n_boot, ci=ci, seed=seed)[:3]


def spearman_rho(x, y) -> float:
    """Spearman's rho: Pearson's r of the ranks (ties get their average rank); NaN as pearson_bootstrap."""
    x, y = np.asarray(x, dtype=np.float64), np.asarray(y, dtype=np.float64)
    if _degenerate(x, y):
        return float("nan")
    rx, ry = pd.Series(x).rank().to_numpy(), pd.Series(y).rank().to_numpy()
    return float(np.corrcoef(rx, ry)[0, 1])


def association_table(traj: pd.DataFrame, *, y: str = "best@k", n_boot: int, ci: float, seed: int) -> pd.DataFrame:
    """Per eval set, benchmark and style share x: the association of x with ``y`` across every
    point (all runs, seeds and steps) of that benchmark.

    A checkpoint that is a point of several runs (the base, where two chains start) counts once
    (the ``checkpoint`` column). The CI resamples points as if they were independent; the points of
    one run are steps of one trajectory, so it is narrower than a CI over runs would be (``n_runs``
    says how many there are; ``n_seeds`` how many RL seeds they span, external runs having none).
    """
    if y not in METRICS:
        raise ValueError(f"association y must be one of {', '.join(METRICS)}, got {y!r}")
    rows = []
    for (eval_set, bench), g in traj.groupby(["eval_set", "benchmark"], sort=False):
        key = g["checkpoint"] if "checkpoint" in g else g["run"] + "/step" + g["step"].astype(str)
        wide = g.assign(checkpoint=key).pivot_table(index="checkpoint", columns="metric", values="value",
                                                    aggfunc="first")
        for x in SHARES:
            pair = wide[[x, y]].dropna()
            xv, yv = pair[x].to_numpy(float), pair[y].to_numpy(float)
            r, low, high, used = _pearson_ci(xv, yv, n_boot=n_boot, ci=ci, seed=seed)
            rows.append({"eval_set": eval_set, "benchmark": bench, "x": x, "y": y, "n_points": len(pair),
                         "n_runs": g["run"].nunique(), "n_seeds": g["seed"].dropna().nunique(), "pearson_r": r,
                         "ci_low": low, "ci_high": high, "n_boot_used": used, "spearman_rho": spearman_rho(xv, yv)})
    return pd.DataFrame(rows, columns=ASSOCIATION_COLUMNS)


def trajectory_markdown(df: pd.DataFrame) -> str:
    """One row per point, eval set and benchmark, one `value [lo, hi]` cell per metric."""
    metrics = [m for m in METRICS if m in set(df["metric"])]
    rows = []
    for (eval_set, bench, run, step), g in df.groupby(["eval_set", "benchmark", "run", "step"], sort=False):
        by = g.set_index("metric")
        rows.append([escape(eval_set), escape(bench), escape(run), str(step), str(int(g["k"].iloc[0])),
                     str(int(g["n_prompts"].iloc[0]))]
                    + [ci_cell(by.at[m, "value"], by.at[m, "ci_low"], by.at[m, "ci_high"]) for m in metrics])
    return markdown_table(["eval_set", "benchmark", "run", "step", "k", "n_prompts", *metrics], rows)


def association_markdown(df: pd.DataFrame) -> str:
    """One row per eval set, benchmark and x: Pearson r with its CI over points, Spearman's rho."""
    rows = [[escape(r.eval_set), escape(r.benchmark), escape(r.x), escape(r.y), str(r.n_points), str(r.n_runs),
             "nan" if np.isnan(r.pearson_r) else ci_cell(r.pearson_r, r.ci_low, r.ci_high, "+.3f"),
             str(r.n_boot_used), cell(r.spearman_rho)]
            for r in df.itertuples(index=False)]
    return markdown_table(["eval_set", "benchmark", "x", "y", "n_points", "n_runs", "pearson r [CI]",
                           "resamples used", "spearman rho"], rows)
