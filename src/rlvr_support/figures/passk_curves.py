"""pass@k curves: one facet per benchmark of the eval set, one line per chain (base included),
log2 k axis, bootstrap CI bands. Pooled rows (benchmark `all`) are not drawn: each facet is one
benchmark at its own n."""

from __future__ import annotations

import pandas as pd

from rlvr_support.figures import style
from rlvr_support.analysis.benchmarks import POOLED, benchmark_column
from rlvr_support.analysis.passk_table import chain_order


def plot_passk_curves(passk: pd.DataFrame, eval_set: str, out_png: str, metric: str = "pass@k") -> None:
    style.setup()
    import matplotlib.pyplot as plt

    d = passk[(passk["eval_set"] == eval_set) & (passk["metric"] == metric)]
    d = d.assign(benchmark=benchmark_column(d, eval_set))
    d = d[d["benchmark"] != POOLED]
    if d.empty:
        raise ValueError(f"no {metric} rows for eval set {eval_set!r}")
    benchmarks = list(dict.fromkeys(d["benchmark"]))
    chains = chain_order(d["chain"])
    palette = style.palette(chains)
    fig, axes = plt.subplots(1, len(benchmarks), figsize=(1 + 4.5 * len(benchmarks), 4), sharey=True, squeeze=False)
    for ax, bench in zip(axes[0], benchmarks):
        b = d[d["benchmark"] == bench]
        for chain in chains:
            g = b[b["chain"] == chain].sort_values("k")
            ls = "--" if chain == "base" else "-"
            ax.plot(g["k"], g["mean"], ls, marker="o", ms=3, color=palette[chain], label=chain)
            ax.fill_between(g["k"], g["ci_low"], g["ci_high"], color=palette[chain], alpha=0.15, lw=0)
        ax.set_xscale("log", base=2)
        ax.set_xlabel("k (samples)")
        ax.set_ylim(0, 1.02)
        ax.set_title(f"{bench} ({int(b['n_prompts'].iloc[0])} prompts, n = {int(b['n_samples'].iloc[0])})")
    axes[0, 0].set_ylabel(metric)
    style.legend_outside(axes[0, -1], title="checkpoint", fontsize=8)
    fig.suptitle(f"{metric} on {eval_set} prompts ({int(d['n_seeds'].max())} RL seed(s))")
    style.save(fig, out_png)
