"""Top openings: empirical probability under the base (x) against under each checkpoint (y),
one panel per benchmark of the eval set."""

from __future__ import annotations

import pandas as pd

from rlvr_support.figures import style
from rlvr_support.analysis.benchmarks import split_benchmarks
from rlvr_support.analysis.runs import chain_sort_key


def plot_openings_scatter(shift: pd.DataFrame, eval_set: str, out_png: str) -> None:
    style.setup()
    import matplotlib.pyplot as plt

    d = shift[shift["eval_set"] == eval_set]
    if d.empty:
        raise ValueError(f"no opening rows for eval set {eval_set!r}")
    chains = sorted(set(d["chain"]), key=chain_sort_key)
    palette = style.palette(chains)
    facets = split_benchmarks(d, eval_set)
    fig, axes = plt.subplots(1, len(facets), figsize=(5.5 * len(facets), 4.5), squeeze=False)
    for ax, (bench, b) in zip(axes[0], facets.items()):
        for chain in chains:
            g = b[b["chain"] == chain]
            for seen, marker in ((True, "o"), (False, "X")):
                h = g[g["in_base_support"] == seen]
                ax.scatter(h["base_prob"], h["rl_prob"], color=palette[chain], marker=marker, s=28, alpha=0.8,
                           label=chain if seen else None)
        ax.plot([0, 1], [0, 1], color="grey", lw=0.8, ls="--")
        ax.set_xscale("symlog", linthresh=1e-2)
        ax.set_yscale("symlog", linthresh=1e-2)
        ax.set_xlim(-0.001, 1.05)
        ax.set_ylim(-0.001, 1.05)
        top = b.sort_values("rl_prob", ascending=False).drop_duplicates("opening").head(3)
        # the top openings often sit close together near (p, 1): each label on a line of its own
        for i, (_, r) in enumerate(top.iterrows()):
            ax.annotate(str(r["opening_text"])[:24], (r["base_prob"], r["rl_prob"]), fontsize=6,
                        xytext=(-60, -12 - 10 * i), textcoords="offset points",
                        arrowprops={"arrowstyle": "-", "lw": 0.4, "color": "grey"})
        ax.set_xlabel("P(opening) in base samples")
        ax.set_title(bench)
    axes[0, 0].set_ylabel("P(opening) in checkpoint samples")
    style.legend_outside(axes[0, -1], title="checkpoint", fontsize=7)
    fig.suptitle(f"{eval_set}: openings per benchmark (x = never sampled by the base)")
    style.save(fig, out_png)
