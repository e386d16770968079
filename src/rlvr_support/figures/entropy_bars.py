"""Answer-level and token-level entropy (and length) per checkpoint, one column per eval set and
benchmark; a token entropy that is a lower bound (vLLM top-K) says so in its panel."""

from __future__ import annotations

import numpy as np
import pandas as pd

from rlvr_support.figures import style
from rlvr_support.analysis.runs import chain_sort_key

PANELS = (("answer_entropy", "answer entropy (nats)"), ("token_entropy", "token entropy (nats)"),
          ("length", "response length (tokens)"))


def plot_entropy(table: pd.DataFrame, out_png: str) -> None:
    style.setup()
    import matplotlib.pyplot as plt

    table = table.assign(benchmark=table["benchmark"] if "benchmark" in table.columns else table["eval_set"])
    facets = list(dict.fromkeys(zip(table["eval_set"], table["benchmark"])))
    chains = sorted(set(table["chain"]), key=chain_sort_key)
    # each bar gets width of its own, so the checkpoint names under it never run into each other
    width = max(3.2, 0.3 * len(chains) + 0.8)
    fig, axes = plt.subplots(len(PANELS), len(facets), figsize=(width * len(facets), 2.4 * len(PANELS)),
                             squeeze=False, sharex=True)
    x = np.arange(len(chains))
    for j, (ev, bench) in enumerate(facets):
        f = table[(table["eval_set"] == ev) & (table["benchmark"] == bench)]
        for i, (metric, label) in enumerate(PANELS):
            ax = axes[i, j]
            d = f[f["metric"] == metric].set_index("chain").reindex(chains)
            colors = ["#888888" if c == "base" else "#4c72b0" for c in chains]
            ax.bar(x, d["mean"], color=colors, width=0.7)
            ax.errorbar(x, d["mean"], yerr=[d["mean"] - d["ci_low"], d["ci_high"] - d["mean"]],
                        fmt="none", ecolor="black", lw=1, capsize=2)
            if i == 0:
                ax.set_title(f"{ev} prompts" if bench == ev else f"{ev}: {bench}")
            if metric == "token_entropy" and "token_entropy_method" in f.columns:
                method = ", ".join(dict.fromkeys(f["token_entropy_method"].dropna().astype(str)))
                if method and method != "exact":  # state an approximation where it is drawn
                    ax.text(0.02, 0.97, method, transform=ax.transAxes, fontsize=6, va="top")
            if j == 0:
                ax.set_ylabel(label)
            ax.set_xticks(x, chains, rotation=90, fontsize=7)
    style.save(fig, out_png)
