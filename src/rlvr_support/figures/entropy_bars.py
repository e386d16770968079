"""Answer-level and token-level entropy (and length) per checkpoint, one column per eval set."""

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

    evals = list(dict.fromkeys(table["eval_set"]))
    chains = sorted(set(table["chain"]), key=chain_sort_key)
    fig, axes = plt.subplots(len(PANELS), len(evals), figsize=(3.2 * len(evals), 2.4 * len(PANELS)),
                             squeeze=False, sharex=True)
    x = np.arange(len(chains))
    for j, ev in enumerate(evals):
        for i, (metric, label) in enumerate(PANELS):
            ax = axes[i, j]
            d = table[(table["eval_set"] == ev) & (table["metric"] == metric)].set_index("chain").reindex(chains)
            colors = ["#888888" if c == "base" else "#4c72b0" for c in chains]
            ax.bar(x, d["mean"], color=colors, width=0.7)
            ax.errorbar(x, d["mean"], yerr=[d["mean"] - d["ci_low"], d["ci_high"] - d["mean"]],
                        fmt="none", ecolor="black", lw=1, capsize=2)
            if i == 0:
                ax.set_title(f"{ev} prompts")
            if j == 0:
                ax.set_ylabel(label)
            ax.set_xticks(x, chains, rotation=45, ha="right")
    style.save(fig, out_png)
