"""pass@k curves: one line per chain (base included), log2 k axis, bootstrap CI bands."""

from __future__ import annotations

import pandas as pd

from rlvr_support.figures import style
from rlvr_support.analysis.passk_table import chain_order


def plot_passk_curves(passk: pd.DataFrame, eval_set: str, out_png: str, metric: str = "pass@k") -> None:
    style.setup()
    import matplotlib.pyplot as plt

    d = passk[(passk["eval_set"] == eval_set) & (passk["metric"] == metric)]
    if d.empty:
        raise ValueError(f"no {metric} rows for eval set {eval_set!r}")
    chains = chain_order(d["chain"])
    palette = style.palette(chains)
    fig, ax = plt.subplots(figsize=(5.5, 4))
    for chain in chains:
        g = d[d["chain"] == chain].sort_values("k")
        ls = "--" if chain == "base" else "-"
        ax.plot(g["k"], g["mean"], ls, marker="o", ms=3, color=palette[chain], label=chain)
        ax.fill_between(g["k"], g["ci_low"], g["ci_high"], color=palette[chain], alpha=0.15, lw=0)
    ax.set_xscale("log", base=2)
    ax.set_xlabel("k (samples)")
    ax.set_ylabel(metric)
    ax.set_ylim(0, 1.02)
    n_seeds = int(d["n_seeds"].max())
    ax.set_title(f"{metric} on {eval_set} prompts ({int(d['n_prompts'].iloc[0])} prompts, {n_seeds} RL seed(s))")
    ax.legend(title="checkpoint", fontsize=8)
    style.save(fig, out_png)
