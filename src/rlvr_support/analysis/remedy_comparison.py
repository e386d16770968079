"""Mitigation comparison for the sequential chains (math-if, if-math, ...) and their variants.

For each chain of two or more stages, `current` is its last stage's task and `previous` the
stage before it; the parent checkpoint is the chain without its last stage (same seed). Per
chain (variants included, `math-if~kl`):

- current_pass@1, previous_pass@1, previous_best@k (k = n, graded reward);
- previous_SRR: support retention ratio of the previous task against the base policy,
  P / (P + S) with per-problem support = any success in n (metrics.support, Invisible Leash);
- current_gain = current pass@1 minus the parent's, previous_best@k_loss = the parent's
  previous-task best@k minus this chain's (paired over prompts): the two axes of the trade-off.

Each metric is reported per benchmark (analysis.benchmarks) of the eval set it is measured on
(`eval_set`: the current task for current_*, the previous one otherwise), each with its own n;
no pooled rows. A trade-off point pairs a current-task benchmark with a previous-task one.

CIs resample RL seeds and prompts (metrics.bootstrap.bootstrap_ci_grouped); SRR, a ratio of
sums, resamples the same way and takes the ratio of the resampled sums.
"""

from __future__ import annotations

from collections import defaultdict

import numpy as np
import pandas as pd

from rlvr_support.metrics.bootstrap import bootstrap_ci_grouped, bootstrap_distribution
from rlvr_support.metrics.passk import best_at_k
from rlvr_support.metrics.support import in_support
from rlvr_support.analysis.markdown import cell, ci_cell, markdown_table
from rlvr_support.analysis.runs import is_trained
from rlvr_support.config.chains import parse_chain
from rlvr_support.analysis.scores import ScoreFile, benchmark_matrices

METRICS = ["current_pass@1", "previous_pass@1", "previous_best@k", "previous_SRR", "current_gain",
           "previous_best@k_loss"]


def split_chain(chain: str) -> tuple[list[str], str]:
    """`math-if~kl` -> (["math", "if"], "kl"); plain chains get variant "baseline"."""
    stages, variant = parse_chain(chain)
    return stages, variant or "baseline"


def grouped_ratio_ci(num_by_seed, den_by_seed, *, n_boot: int, ci: float, seed: int):
    """``sum(num) / sum(den)`` (per seed, then averaged over seeds) with a seeds-and-prompts bootstrap CI."""
    rng = np.random.default_rng(seed)
    xs = [np.stack([np.asarray(n, float), np.asarray(d, float)], axis=1) for n, d in zip(num_by_seed, den_by_seed)]
    S = len(xs)
    reps = np.stack([bootstrap_distribution(x, n_boot=n_boot, seed=rng) for x in xs])  # (S, B, 2) means
    chosen = rng.integers(0, S, size=(n_boot, S))
    m = reps[chosen, np.arange(n_boot)[:, None]].mean(axis=1)  # (B, 2)
    with np.errstate(invalid="ignore", divide="ignore"):
        r = m[:, 0] / m[:, 1]
        point = np.mean([x[:, 0].mean() / x[:, 1].mean() if x[:, 1].sum() else np.nan for x in xs])
    r = r[~np.isnan(r)]
    if not len(r):
        return float(point), np.nan, np.nan
    lo, hi = np.quantile(r, [(1 - ci) / 2, (1 + ci) / 2])
    return float(point), float(lo), float(hi)


def _load(files: list[ScoreFile]) -> dict[tuple[str, int | None, str], dict[str, tuple]]:
    """{(chain, seed, eval_set): {benchmark: (ids, success, graded)}}."""
    return {(f.chain, f.seed, f.eval_set): benchmark_matrices(f.path) for f in files}


def _aligned(a: dict, b: dict, what: str) -> list[str]:
    """The benchmarks of two score files of one eval set, which must hold the same prompts."""
    if list(a) != list(b):
        raise ValueError(f"{what}: the two score files hold different benchmarks {list(a)} vs {list(b)}")
    for bench in a:
        if a[bench][0] != b[bench][0]:
            raise ValueError(f"{what} [{bench}]: the two score files cover different prompts")
    return list(a)


def _task_of(metric: str, cur: str, prev: str) -> str:
    return cur if metric.startswith("current") else prev


def comparison_table(files: list[ScoreFile], *, n_boot: int, ci: float, seed: int) -> pd.DataFrame:
    """One row per chain, metric and benchmark of the task the metric is measured on (`eval_set`)."""
    data = _load(files)
    seeds_of: dict[str, list[int]] = defaultdict(list)
    for chain, s, _ in data:
        # only chains trained here have stages to compare (not an external checkpoint or an imported label)
        if chain != "base" and is_trained(chain) and s not in seeds_of[chain]:
            seeds_of[chain].append(s)
    rows = []
    for chain in sorted(seeds_of, key=lambda c: (split_chain(c)[0], split_chain(c)[1] != "baseline", c)):
        stages, variant = split_chain(chain)
        if len(stages) < 2:
            continue
        cur, prev, parent = stages[-1], stages[-2], "-".join(stages[:-1])
        per: dict[tuple[str, str], list] = defaultdict(list)  # (metric, benchmark) -> per-prompt values per seed
        srr: dict[str, tuple[list, list]] = defaultdict(lambda: ([], []))  # benchmark -> (numerators, denominators)
        benchmarks = {}
        for s in sorted(seeds_of[chain]):
            need = [(chain, s, cur), (chain, s, prev), (parent, s, cur), (parent, s, prev), ("base", None, prev)]
            missing = [k for k in need if k not in data]
            if missing:
                raise ValueError(f"{chain}/seed{s}: comparison needs score files for {missing}")
            c_cur, p_cur = data[(chain, s, cur)], data[(parent, s, cur)]
            c_prev, p_prev, base_prev = data[(chain, s, prev)], data[(parent, s, prev)], data[("base", None, prev)]
            benchmarks[cur] = _aligned(c_cur, p_cur, f"{chain} vs {parent} on {cur}")
            benchmarks[prev] = _aligned(c_prev, p_prev, f"{chain} vs {parent} on {prev}")
            _aligned(base_prev, c_prev, f"base vs {chain} on {prev}")
            for b in benchmarks[cur]:
                per[("current_pass@1", b)].append(c_cur[b][1].mean(1))
                per[("current_gain", b)].append(c_cur[b][1].mean(1) - p_cur[b][1].mean(1))
            for b in benchmarks[prev]:
                per[("previous_pass@1", b)].append(c_prev[b][1].mean(1))
                bk = best_at_k(c_prev[b][2], c_prev[b][2].shape[1])
                per[("previous_best@k", b)].append(bk)
                per[("previous_best@k_loss", b)].append(best_at_k(p_prev[b][2], p_prev[b][2].shape[1]) - bk)
                b_in, r_in = in_support(base_prev[b][1]), in_support(c_prev[b][1])
                srr[b][0].append((b_in & r_in).astype(float))
                srr[b][1].append(b_in.astype(float))
        common = {"chain": chain, "base_chain": "-".join(stages), "variant": variant, "current_task": cur,
                  "previous_task": prev, "parent": parent, "n_seeds": len(seeds_of[chain])}
        for metric in METRICS:
            task = _task_of(metric, cur, prev)
            for b in benchmarks[task]:
                if metric == "previous_SRR":
                    point, lo, hi = grouped_ratio_ci(*srr[b], n_boot=n_boot, ci=ci, seed=seed)
                    spread = np.nan
                else:
                    point, lo, hi, spread = bootstrap_ci_grouped(per[(metric, b)], n_boot=n_boot, ci=ci, seed=seed)
                rows.append({**common, "eval_set": task, "benchmark": b, "metric": metric, "mean": float(point),
                             "ci_low": float(lo), "ci_high": float(hi), "seed_std": float(spread)})
    if not rows:
        raise ValueError("no sequential chain (two or more stages) among the score files")
    return pd.DataFrame(rows)


def tradeoff_pairs(table: pd.DataFrame):
    """(chain, current-task benchmark, previous-task benchmark, its rows) for every pair of benchmarks
    of a chain: each pair is one trade-off point (current metrics of the one, previous of the other)."""
    if "benchmark" not in table:  # a table written before benchmarks: one per task
        table = table.assign(benchmark=[_task_of(m, c, p) for m, c, p in
                                        zip(table["metric"], table["current_task"], table["previous_task"])])
    for chain, g in table.groupby("chain", sort=False):
        current = g["metric"].str.startswith("current")
        for bc in dict.fromkeys(g.loc[current, "benchmark"]):
            for bp in dict.fromkeys(g.loc[~current, "benchmark"]):
                yield chain, bc, bp, g[(current & (g["benchmark"] == bc)) | (~current & (g["benchmark"] == bp))]


def comparison_markdown(table: pd.DataFrame) -> str:
    """One row per chain and pair of benchmarks (current task, previous task), one `mean [lo, hi]`
    cell per metric."""
    rows = []
    for chain, bc, bp, g in tradeoff_pairs(table):
        cells = [cell(chain), cell(g["variant"].iloc[0]), cell(bc), cell(bp)]
        for metric in METRICS:
            r = g[g["metric"] == metric].iloc[0]
            cells.append(ci_cell(r["mean"], r["ci_low"], r["ci_high"]))
        rows.append(cells)
    return markdown_table(["chain", "variant", "current benchmark", "previous benchmark", *METRICS], rows)


TEACHER_METRICS = ["current_pass@1", "previous_pass@1", "previous_best@k"]


def teacher_table(table: pd.DataFrame, teachers: dict[str, dict]) -> pd.DataFrame:
    """On-policy distillation against its teacher (the support-reshaping paper's "sweet spot"): the rows of the
    comparison `table` for the distilling chains in `teachers` ({chain: {teacher, teacher_step, teacher_fraction}},
    config/chains.distill_teacher) and their plain chains, with the teacher beside each; both tasks'
    mean@k (pass@1 = the mean reward over the n samples) and the previous task's best@k.
    Sorted by plain chain, then teacher step (the plain chain, no teacher, first)."""
    plain = {c.partition("~")[0] for c in teachers}
    keep = table["chain"].isin(set(teachers) | plain) & table["metric"].isin(TEACHER_METRICS)
    out = table[keep].copy()
    none = {"teacher": "none", "teacher_step": -1, "teacher_fraction": float("nan")}
    for key in none:
        out.insert(3, key, [teachers.get(c, none)[key] for c in out["chain"]])
    return out.sort_values(["base_chain", "teacher_step", "chain"], kind="stable").reset_index(drop=True)


def teacher_markdown(table: pd.DataFrame) -> str:
    rows = []
    for chain, bc, bp, g in tradeoff_pairs(table):
        r0 = g.iloc[0]
        cells = [cell(chain), cell(r0["teacher"]),
                 cell("" if r0["teacher_step"] < 0 else f"{int(r0['teacher_step'])} ({r0['teacher_fraction']:.0%})"),
                 cell(bc), cell(bp)]
        for metric in TEACHER_METRICS:
            r = g[g["metric"] == metric].iloc[0]
            cells.append(ci_cell(r["mean"], r["ci_low"], r["ci_high"]))
        rows.append(cells)
    return markdown_table(["chain", "teacher", "teacher step", "current benchmark", "previous benchmark",
                           *TEACHER_METRICS], rows)
