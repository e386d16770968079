"""Position-wise JS divergence from the base, one line per chain; base and checkpoint prefixes side by side."""

from __future__ import annotations

import pandas as pd

from rlvr_support.figures import style
from rlvr_support.analysis.runs import chain_sort_key


def plot_js_curves(positions: pd.DataFrame, eval_set: str, m: int, out_png: str) -> None:
    style.setup()
    import matplotlib.pyplot as plt

    d = positions[positions["eval_set"] == eval_set]
    if d.empty:
        raise ValueError(f"no JS rows for eval set {eval_set!r}")
    chains = sorted(set(d["chain"]), key=chain_sort_key)
    palette = style.palette(chains)
    fig, axes = plt.subplots(1, 2, figsize=(9, 3.6), sharey=True)
    for ax, source, title in zip(axes, ("base", "ckpt"), ("prefixes from base samples", "prefixes from checkpoint samples")):
        for chain in chains:
            g = d[(d["chain"] == chain) & (d["source"] == source)].sort_values("position")
            ax.plot(g["position"], g["js"], color=palette[chain], label=chain, lw=1.3)
            ax.fill_between(g["position"], g["ci_low"], g["ci_high"], color=palette[chain], alpha=0.15, lw=0)
        ax.axvspan(-0.5, m - 0.5, color="#dddddd", alpha=0.5, lw=0)
        ax.set_title(title)
        ax.set_xlabel("response position t")
    axes[0].set_ylabel("JS(base || checkpoint), nats")
    axes[1].legend(title="checkpoint", fontsize=7)
    fig.suptitle(f"{eval_set} prompts: where the checkpoints' next-token distributions differ (shaded: first m={m})")
    style.save(fig, out_png)
