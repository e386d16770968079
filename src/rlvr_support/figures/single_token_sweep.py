"""Single-token interventions on one eval set (probes/single_token.py): the change in best@k that
one swapped token causes, against the position it is swapped at.

One panel per checkpoint and benchmark; one line per direction (the base's token into the
checkpoint, the checkpoint's token into the base), with the CI over prompts and seeds as a band,
and the top-2 control (the recipient's own second choice at position 1) as a marker beside t = 1.
Positions are on a log2 axis (the sweep doubles them)."""

from __future__ import annotations

import pandas as pd

from rlvr_support.analysis.runs import chain_sort_key
from rlvr_support.figures import style


def plot_single_token(table: pd.DataFrame, eval_set: str, out_png: str) -> None:
    style.setup()
    import matplotlib.pyplot as plt

    d = table[table["eval_set"] == eval_set]
    if d.empty:
        raise ValueError(f"no single-token rows for eval set {eval_set!r}")
    panels = sorted({(c, b) for c, b in zip(d["chain"], d["benchmark"])}, key=lambda cb: (chain_sort_key(cb[0]), cb[1]))
    fig, axes = plt.subplots(1, len(panels), figsize=(1.5 + 3.6 * len(panels), 3.2), squeeze=False, sharey=True)
    labels = {"checkpoint": "base token into the checkpoint", "base": "checkpoint token into the base"}
    colours = style.palette(list(labels.values()))
    for i, (ax, (chain, bench)) in enumerate(zip(axes[0], panels)):
        p = d[(d["chain"] == chain) & (d["benchmark"] == bench)]
        for who, recipient, x in (("checkpoint", chain, 0.75), ("base", "base", 0.85)):
            r = p[p["recipient"] == recipient]
            sw = r[r["condition"] == "swap"].sort_values("position")
            first = i == 0  # one legend entry per line kind, from the first panel
            ax.plot(sw["position"], sw["best@k_diff"], marker="o", color=colours[labels[who]],
                    label=labels[who] if first else None)
            ax.fill_between(sw["position"], sw["best@k_diff_lo"], sw["best@k_diff_hi"], color=colours[labels[who]],
                            alpha=0.2, linewidth=0)
            t2 = r[r["condition"] == "top2"]
            if len(t2):
                t2 = t2.iloc[0]
                ax.errorbar([x], [t2["best@k_diff"]], yerr=[[t2["best@k_diff"] - t2["best@k_diff_lo"]],
                                                            [t2["best@k_diff_hi"] - t2["best@k_diff"]]],
                            fmt="x", color=colours[labels[who]], capsize=3,
                            label=f"{who}: its own top 2 at t = 1" if first else None)
        ax.axhline(0, color="grey", linewidth=0.8)
        ax.set_xscale("log", base=2)
        ticks = sorted(set(int(t) for t in p.loc[p["condition"] == "swap", "position"]))
        ax.set_xticks(ticks, [str(t) for t in ticks])
        ax.set_xlabel("position of the swapped token")
        ax.set_title(f"{chain} and the base" + (f" [{bench}]" if bench != eval_set else ""), fontsize=9)
    n = int(d["n"].iloc[0])
    axes[0, 0].set_ylabel(f"best@{n} change vs own samples")
    handles, names = axes[0, 0].get_legend_handles_labels()
    axes[0, -1].legend(handles, names, loc="upper left", bbox_to_anchor=(1.02, 1.0), borderaxespad=0.0, fontsize=7)
    fig.suptitle(f"one swapped token on {eval_set}: change in best@{n}, CI over prompts and seeds", y=1.02,
                 fontsize=10)
    style.save(fig, out_png)
