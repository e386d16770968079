"""Position-wise JS divergence from the base, one line per chain: one column per benchmark of the
eval set, base prefixes above and checkpoint prefixes below."""

from __future__ import annotations

import pandas as pd

from rlvr_support.figures import style
from rlvr_support.analysis.benchmarks import split_benchmarks
from rlvr_support.analysis.runs import chain_sort_key


def plot_js_curves(positions: pd.DataFrame, eval_set: str, m: int, out_png: str) -> None:
    style.setup()
    import matplotlib.pyplot as plt

    d = positions[positions["eval_set"] == eval_set]
    if d.empty:
        raise ValueError(f"no JS rows for eval set {eval_set!r}")
    chains = sorted(set(d["chain"]), key=chain_sort_key)
    palette = style.palette(chains)
    facets = split_benchmarks(d, eval_set)
    fig, axes = plt.subplots(2, len(facets), figsize=(4.5 * len(facets), 6.4), sharey=True, squeeze=False)
    for j, (bench, b) in enumerate(facets.items()):
        for i, (source, title) in enumerate((("base", "prefixes from base samples"),
                                             ("ckpt", "prefixes from checkpoint samples"))):
            ax = axes[i, j]
            for chain in chains:
                g = b[(b["chain"] == chain) & (b["source"] == source)].sort_values("position")
                ax.plot(g["position"], g["js"], color=palette[chain], label=chain, lw=1.3)
                ax.fill_between(g["position"], g["ci_low"], g["ci_high"], color=palette[chain], alpha=0.15, lw=0)
            ax.axvspan(-0.5, m - 0.5, color="#dddddd", alpha=0.5, lw=0)
            ax.set_title(f"{bench}: {title}")
            if i == 1:
                ax.set_xlabel("response position t")
            if j == 0:
                ax.set_ylabel("JS(base || checkpoint), nats")
    style.legend_outside(axes[0, -1], title="checkpoint", fontsize=7)
    fig.suptitle(f"{eval_set} prompts: where the checkpoints' next-token distributions differ (shaded: first m={m})")
    style.save(fig, out_png)
