"""Empirical support categories per chain on one eval set: stacked bars of P / S / E / O shares."""

from __future__ import annotations

import pandas as pd

from rlvr_support.figures import style
from rlvr_support.analysis.runs import chain_sort_key

COLORS = {"P": "#4c72b0", "S": "#c44e52", "E": "#55a868", "O": "#bbbbbb"}
NAMES = {"P": "preservation", "S": "shrinkage", "E": "expansion", "O": "out of support"}


def plot_support_bars(summary: pd.DataFrame, eval_set: str, out_png: str) -> None:
    style.setup()
    import matplotlib.pyplot as plt

    d = summary[summary["eval_set"] == eval_set]
    if d.empty:
        raise ValueError(f"no support rows for eval set {eval_set!r}")
    d = d.set_index("chain").loc[sorted(d["chain"], key=chain_sort_key)]
    fig, ax = plt.subplots(figsize=(5.5, 3.8))
    bottom = pd.Series(0.0, index=d.index)
    for cat in ("P", "S", "E", "O"):
        share = d[cat] / d["n_prompts"]
        ax.bar(d.index, share, bottom=bottom, color=COLORS[cat], label=NAMES[cat], width=0.7)
        bottom += share
    for i, (chain, r) in enumerate(d.iterrows()):
        ax.text(i, 1.02, f"NSCR {r['NSCR']:+.2f}" if pd.notna(r["NSCR"]) else "NSCR n/a", ha="center", fontsize=7)
    ax.set_ylim(0, 1.1)
    ax.set_ylabel("share of eval prompts")
    ax.set_xlabel("checkpoint (label: same-task / cross-task in the table)")
    k, eps = int(d["k"].iloc[0]), float(d["epsilon"].iloc[0])
    ax.set_title(f"support vs base on {eval_set} (k={k}, eps={eps:.3g})")
    ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.0, 1.0))
    style.save(fig, out_png)
