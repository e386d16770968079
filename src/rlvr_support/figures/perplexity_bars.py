"""Perplexity of the reference math solutions per style, under the base and each chain, one panel
per benchmark."""

from __future__ import annotations

import numpy as np
import pandas as pd

from rlvr_support.figures import style
from rlvr_support.analysis.benchmarks import split_benchmarks
from rlvr_support.analysis.runs import chain_sort_key


def plot_perplexity(table: pd.DataFrame, out_png: str) -> None:
    style.setup()
    import matplotlib.pyplot as plt

    if table.empty:
        raise ValueError("empty perplexity table")
    chains = sorted(set(table["chain"]), key=chain_sort_key)
    styles = list(dict.fromkeys(table["style"]))
    palette = style.palette(chains)
    width = 0.8 / len(chains)
    facets = split_benchmarks(table, "math")  # tables from before the column: the toy world's math
    fig, axes = plt.subplots(1, len(facets), figsize=(6 * len(facets), 3.8), sharey=True, squeeze=False)
    x = np.arange(len(styles))
    for ax, (bench, b) in zip(axes[0], facets.items()):
        for i, chain in enumerate(chains):
            g = b[b["chain"] == chain].set_index("style").reindex(styles)
            xs = x - 0.4 + width * (i + 0.5)
            ax.bar(xs, g["perplexity"], width=width, color=palette[chain], label=chain)
            ax.errorbar(xs, g["perplexity"],
                        yerr=[g["perplexity"] - g["perplexity_lo"], g["perplexity_hi"] - g["perplexity"]],
                        fmt="none", ecolor="black", lw=0.8, capsize=1.5)
        ax.set_yscale("log")
        ax.set_xticks(x, styles)
        ax.set_xlabel("reference solution style")
        ax.set_title(bench)
    axes[0, 0].set_ylabel("perplexity (per token, log scale)")
    axes[0, -1].legend(title="checkpoint", fontsize=7, bbox_to_anchor=(1.0, 1.0), loc="upper left")
    fig.suptitle("reference math solutions under each policy")
    style.save(fig, out_png)
