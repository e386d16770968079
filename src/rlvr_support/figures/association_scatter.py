"""Checkpoint-level association of one eval set: per benchmark, a style share (x; by default the
direct-answer share) against best@k (y) at every point of every run, one colour per chain, each
run's points joined in step order, and the Pearson r with its bootstrap CI over points in the
panel's title (analysis.trajectory.association_table)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from rlvr_support.figures import style
from rlvr_support.analysis.runs import chain_sort_key


def _r_label(assoc: pd.DataFrame, eval_set: str, bench: str, x: str, y: str) -> str:
    a = assoc[(assoc["eval_set"] == eval_set) & (assoc["benchmark"] == bench) & (assoc["x"] == x) & (assoc["y"] == y)]
    if a.empty:
        raise ValueError(f"no association row for {eval_set}/{bench}, x = {x!r}, y = {y!r}")
    r = a.iloc[0]
    if np.isnan(r["pearson_r"]):
        return f"r undefined (n = {int(r['n_points'])})"
    return f"r = {r['pearson_r']:+.2f} [{r['ci_low']:+.2f}, {r['ci_high']:+.2f}], n = {int(r['n_points'])}"


def plot_association_scatter(traj: pd.DataFrame, assoc: pd.DataFrame, eval_set: str, out: str,
                             x: str = "share:answer", y: str = "best@k") -> None:
    style.setup()
    import matplotlib.pyplot as plt

    d = traj[(traj["eval_set"] == eval_set) & traj["metric"].isin([x, y])]
    if d.empty:
        raise ValueError(f"no {x} / {y} rows for eval set {eval_set!r}")
    benchmarks = list(dict.fromkeys(d["benchmark"]))
    chains = sorted(set(d["chain"]), key=chain_sort_key)
    palette = style.palette(chains)
    fig, axes = plt.subplots(1, len(benchmarks), figsize=(1 + 4.5 * len(benchmarks), 4.2), squeeze=False)
    for ax, bench in zip(axes[0], benchmarks):
        wide = (d[d["benchmark"] == bench]
                .pivot_table(index=["chain", "run", "step"], columns="metric", values="value", aggfunc="first")
                .reset_index())
        for chain in chains:
            c = wide[wide["chain"] == chain]
            for i, (_, g) in enumerate(c.groupby("run", sort=True)):
                g = g.sort_values("step")
                ax.plot(g[x], g[y], "-", color=palette[chain], lw=0.6, alpha=0.5)
                ax.scatter(g[x], g[y], color=palette[chain], s=22, alpha=0.85, label=chain if i == 0 else None)
        ax.set_xlabel(x.replace("share:", "share of '") + "'" if x.startswith("share:") else x)
        if x != "answer_entropy":  # every other metric is a share or a mean reward in [0, 1]
            ax.set_xlim(-0.02, 1.02)
        if y != "answer_entropy":
            ax.set_ylim(-0.02, 1.02)
        ax.set_title(f"{bench}: {_r_label(assoc, eval_set, bench, x, y)}", fontsize=9)
    axes[0, 0].set_ylabel(y)
    style.legend_outside(axes[0, -1], title="chain", fontsize=8)
    fig.suptitle(f"{eval_set}: {y} against {x} across checkpoints (lines: one run in step order)")
    style.save(fig, out)
