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
    fig, axes = plt.subplots(1, len(benchmarks), figsize=(1.5 + 4 * len(benchmarks), 3.8), sharey=True,
                             squeeze=False)
    for ax, bench in zip(axes[0], benchmarks):
        b = d[d["benchmark"] == bench]
        b = b.set_index("chain").loc[sorted(b["chain"], key=chain_sort_key)]
        bottom = pd.Series(0.0, index=b.index)
        for cat in ("P", "S", "E", "O"):
            share = b[cat] / b["n_prompts"]
            ax.bar(b.index, share, bottom=bottom, color=COLORS[cat], label=NAMES[cat], width=0.7)
            bottom += share
        for i, (chain, r) in enumerate(b.iterrows()):
            ax.text(i, 1.02, f"NSCR {r['NSCR']:+.2f}" if pd.notna(r["NSCR"]) else "NSCR n/a", ha="center", fontsize=7)
        ax.set_ylim(0, 1.1)
        ax.set_xlabel("checkpoint")
        k, eps = int(b["k"].iloc[0]), float(b["epsilon"].iloc[0])
        ax.set_title(f"{bench} (k={k}, eps={eps:.3g})")
    axes[0, 0].set_ylabel("share of eval prompts")
    axes[0, -1].legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.0, 1.0))
    fig.suptitle(f"support vs base on {eval_set} (same-task / cross-task: see the table)")
    style.save(fig, out_png)
