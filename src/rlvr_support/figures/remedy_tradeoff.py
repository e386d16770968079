"""Trade-off of the mitigations: current-task gain (y) against previous-task best@k loss (x).

One point per chain (variants included) and pair of benchmarks (current task / previous task,
named in the label), bootstrap CIs as error bars; up-and-left is better (more gain on the new
task, less support lost on the old one). Colour = variant, marker = the plain chain the variant
modifies and the benchmark pair.
"""

from __future__ import annotations

import itertools

import pandas as pd

from rlvr_support.analysis.remedy_comparison import tradeoff_pairs
from rlvr_support.figures import style


def plot_remedy_tradeoff(table: pd.DataFrame, out_png: str) -> None:
    style.setup()
    import matplotlib.pyplot as plt

    if table.empty:
        raise ValueError("remedy comparison table is empty")
    variants = sorted(table["variant"].unique(), key=lambda v: (v != "baseline", v))
    palette = style.palette(variants)
    points = sorted(tradeoff_pairs(table), key=lambda p: p[0])
    shapes = sorted({(g["base_chain"].iloc[0], bc, bp) for _, bc, bp, g in points})
    markers = dict(zip(shapes, itertools.cycle("osD^vP<>hX")))
    fig, ax = plt.subplots(figsize=(6, 4.5))
    for chain, bc, bp, g in points:
        x = g[g["metric"] == "previous_best@k_loss"].iloc[0]
        y = g[g["metric"] == "current_gain"].iloc[0]
        v, b = g["variant"].iloc[0], g["base_chain"].iloc[0]
        ax.errorbar(x["mean"], y["mean"], xerr=[[x["mean"] - x["ci_low"]], [x["ci_high"] - x["mean"]]],
                    yerr=[[y["mean"] - y["ci_low"]], [y["ci_high"] - y["mean"]]], fmt=markers[(b, bc, bp)], ms=7,
                    color=palette[v], capsize=2, lw=1, label=f"{b} · {v} ({bc} / {bp})")
    ax.axhline(0, color="grey", lw=0.8, ls=":")
    ax.axvline(0, color="grey", lw=0.8, ls=":")
    ax.set_xlabel("previous-task best@k loss vs parent (lower is better)")
    ax.set_ylabel("current-task pass@1 gain vs parent")
    ax.set_title(f"Mitigation trade-off ({int(table['n_seeds'].max())} RL seed(s))")
    style.legend_outside(ax, fontsize=7, title="chain · variant (current / previous benchmark)")
    style.save(fig, out_png)
