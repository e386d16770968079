"""Polarisation on one eval set: per checkpoint, the distribution of per-prompt success counts c of n,
one facet per benchmark (analysis/polarisation.py, the histogram table).

A heat map rather than overlaid histograms, so it stays readable at 10+ checkpoints: one row per
checkpoint (the base on top), one column per success count (for n > 32, 0 and n stay their own
columns and the counts between are pooled into 10 equal bins), the colour the share of prompts.
The 0/n and n/n columns, where polarisation shows, carry their shares as numbers.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from rlvr_support.figures import style
from rlvr_support.analysis.runs import chain_sort_key

MAX_EXACT = 32  # up to this n every success count is a column


def _columns(n: int) -> tuple[list[str], np.ndarray]:
    """(column labels, column index of each success count 0..n)."""
    if n <= MAX_EXACT:
        return [str(k) for k in range(n + 1)], np.arange(n + 1)
    edges = np.linspace(1, n, 11)  # interior counts 1..n-1 in 10 bins
    inner = np.clip(np.searchsorted(edges, np.arange(1, n), side="right"), 1, 10)
    labels = ["0"] + [f"{int(np.ceil(edges[i]))}-{int(np.ceil(edges[i + 1])) - 1}" for i in range(10)] + [str(n)]
    return labels, np.concatenate([[0], inner, [11]])


def plot_polarisation(hist: pd.DataFrame, eval_set: str, out_png: str) -> None:
    style.setup()
    import matplotlib.pyplot as plt

    d = hist[hist["eval_set"] == eval_set]
    if d.empty:
        raise ValueError(f"no polarisation rows for eval set {eval_set!r}")
    benchmarks = list(dict.fromkeys(d["benchmark"]))
    chains = sorted(set(d["chain"]), key=chain_sort_key)
    fig, axes = plt.subplots(1, len(benchmarks), figsize=(2.5 + 5.0 * len(benchmarks), 1.6 + 0.3 * len(chains)),
                             squeeze=False)
    for ax, bench in zip(axes[0], benchmarks):
        b = d[d["benchmark"] == bench]
        n = int(b["n"].iloc[0])
        labels, col = _columns(n)
        grid = np.zeros((len(chains), len(labels)))
        for i, chain in enumerate(chains):
            rows = b[b["chain"] == chain].sort_values("successes")
            np.add.at(grid[i], col[rows["successes"].to_numpy(int)], rows["share"].to_numpy(float))
        im = ax.imshow(grid, aspect="auto", cmap="viridis", vmin=0, vmax=max(grid.max(), 1e-9))
        for i in range(len(chains)):
            for j in (0, len(labels) - 1):
                ax.text(j, i, f"{grid[i, j]:.2f}", ha="center", va="center", fontsize=6,
                        color="white" if grid[i, j] < 0.6 * grid.max() else "black")
        step = max(1, len(labels) // 12)
        ticks = sorted(set(range(0, len(labels), step)) | {len(labels) - 1})
        ax.set_xticks(ticks, [labels[t] for t in ticks], fontsize=7, rotation=90 if len(labels) > 12 else 0)
        ax.set_yticks(range(len(chains)), chains, fontsize=8)
        ax.set_xlabel(f"successes of n={n}")
        ax.set_title(bench, fontsize=9)
        ax.grid(False)
        fig.colorbar(im, ax=ax, fraction=0.04, pad=0.02, label="share of prompts")
    axes[0, 0].set_ylabel("checkpoint")
    fig.suptitle(f"per-prompt success counts on {eval_set}: mass at 0 and n is polarisation", y=1.03, fontsize=10)
    style.save(fig, out_png)
