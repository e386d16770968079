"""Empirical support categories per chain on one eval set: stacked bars of P / S / E / O shares,
one facet per benchmark of the eval set (each at its own k)."""

from __future__ import annotations

import pandas as pd

from rlvr_support.figures import style
from rlvr_support.analysis.benchmarks import benchmark_column
from rlvr_support.analysis.runs import chain_sort_key

COLORS = {"P": "#4c72b0", "S": "#c44e52", "E": "#55a868", "O": "#bbbbbb"}
NAMES = {"P": "preservation", "S": "shrinkage", "E": "expansion", "O": "out of support"}


def plot_support_bars(summary: pd.DataFrame, eval_set: str, out_png: str) -> None:
    style.setup()
    import matplotlib.pyplot as plt

    d = summary[summary["eval_set"] == eval_set]
    if d.empty:
        raise ValueError(f"no support rows for eval set {eval_set!r}")
    d = d.assign(benchmark=benchmark_column(d, eval_set))
    benchmarks = list(dict.fromkeys(d["benchmark"]))
    # horizontal bars, one row per checkpoint, the figure growing with their number: checkpoint
    # names and NSCR labels each get a row of their own, however many checkpoints there are
    n_rows = d.groupby("benchmark")["chain"].nunique().max()
    fig, axes = plt.subplots(1, len(benchmarks), figsize=(2.5 + 4.5 * len(benchmarks), 1.6 + 0.32 * n_rows),
                             sharey=True, squeeze=False)
    for ax, bench in zip(axes[0], benchmarks):
        b = d[d["benchmark"] == bench]
        b = b.set_index("chain").loc[sorted(b["chain"], key=chain_sort_key)]
        y = range(len(b))
        left = pd.Series(0.0, index=b.index)
        for cat in ("P", "S", "E", "O"):
            share = b[cat] / b["n_prompts"]
            ax.barh(list(y), share.to_numpy(), left=left.to_numpy(), color=COLORS[cat], label=NAMES[cat], height=0.7)
            left += share
        for i, (chain, r) in zip(y, b.iterrows()):
            ax.text(1.02, i, f"NSCR {r['NSCR']:+.2f}" if pd.notna(r["NSCR"]) else "NSCR n/a", va="center", fontsize=7)
        ax.set_yticks(list(y), list(b.index), fontsize=8)
        ax.invert_yaxis()
        ax.set_xlim(0, 1.25)
        ax.set_xticks([0, 0.25, 0.5, 0.75, 1.0])
        ax.set_xlabel("share of eval prompts")
        k, eps = int(b["k"].iloc[0]), float(b["epsilon"].iloc[0])
        ax.set_title(f"{bench} (k={k}, eps={eps:.3g})", fontsize=9)
    axes[0, 0].set_ylabel("checkpoint")
    handles, labels = axes[0, 0].get_legend_handles_labels()
    # the legend below the axes, the title above: neither can cover the other or a bar
    fig.legend(handles, labels, fontsize=7, loc="upper center", ncol=4, bbox_to_anchor=(0.5, 0.0), frameon=False)
    fig.suptitle(f"support vs base on {eval_set} (same-task / cross-task: see the table)", fontsize=10)
    style.save(fig, out_png)
