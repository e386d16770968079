"""Success after each forced opening, per model (seeds averaged), with bootstrap CIs over prompts;
one panel per benchmark of the eval set."""

from __future__ import annotations

import numpy as np
import pandas as pd

from rlvr_support.figures import style
from rlvr_support.analysis.benchmarks import split_benchmarks
from rlvr_support.analysis.runs import chain_sort_key


def plot_intervention(per_opening: pd.DataFrame, eval_set: str, out_png: str) -> None:
    style.setup()
    import matplotlib.pyplot as plt

    if per_opening.empty:
        raise ValueError(f"no intervention rows for eval set {eval_set!r}")
    per_opening = per_opening.copy()
    # an opening that decodes to nothing visible (e.g. only spacing tokens) is labelled by its token ids
    text = per_opening["opening_text"].fillna("").astype(str)
    ids = per_opening["opening"].fillna("").astype(str)
    per_opening["opening_text"] = [repr(t) if t.strip() else (f"[{o}]" if o else "[empty response]")
                                   for t, o in zip(text, ids)]
    chains = sorted(set(per_opening["chain"]), key=chain_sort_key)
    opens = list(dict.fromkeys(per_opening["opening_text"]))
    palette = style.palette(chains)
    width = 0.8 / len(chains)
    facets = split_benchmarks(per_opening, eval_set)
    fig, axes = plt.subplots(1, len(facets), figsize=(max(5.5, 1.3 * len(opens) + 2) * len(facets), 3.8),
                             sharey=True, squeeze=False)
    x = np.arange(len(opens))
    for ax, (bench, b) in zip(axes[0], facets.items()):
        d = (b.groupby(["chain", "opening_text"], sort=False)[["success", "success_lo", "success_hi", "p_model"]]
             .mean().reset_index())
        for i, chain in enumerate(chains):
            g = d[d["chain"] == chain].set_index("opening_text").reindex(opens)
            xs = x - 0.4 + width * (i + 0.5)
            ax.bar(xs, g["success"], width=width, color=palette[chain], label=chain)
            ax.errorbar(xs, g["success"], yerr=[g["success"] - g["success_lo"], g["success_hi"] - g["success"]],
                        fmt="none", ecolor="black", lw=0.8, capsize=1.5)
        ax.set_xticks(x, opens, rotation=20, ha="right", fontsize=7)
        ax.set_ylim(0, 1.05)
        ax.set_title(bench)
    axes[0, 0].set_ylabel("success after the forced opening")
    axes[0, -1].legend(title="model", fontsize=7, bbox_to_anchor=(1.0, 1.0), loc="upper left")
    fig.suptitle(f"{eval_set}: searchability of each forced opening")
    style.save(fig, out_png)
