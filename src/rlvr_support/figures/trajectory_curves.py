"""Training trajectories of one eval set: one row per metric (pass@1, best@k, coverage@k, answer
entropy, then one row per solution style's share), one column per benchmark, training step on x,
one line per run with its bootstrap CI band. Colour = chain, line style = seed, so the seeds of a
chain read as one family and an external run as a colour of its own."""

from __future__ import annotations

import itertools

import pandas as pd

from rlvr_support.figures import style
from rlvr_support.analysis.runs import chain_sort_key
from rlvr_support.analysis.trajectory import METRICS

LINESTYLES = ("-", "--", ":", "-.")


def _runs(d: pd.DataFrame) -> list[tuple[str, str, object]]:
    """(run, chain, seed) in the table's order: chains, then seeds."""
    runs = d.drop_duplicates("run")[["run", "chain", "seed"]].itertuples(index=False)
    return sorted(((r.run, r.chain, r.seed) for r in runs),
                  key=lambda r: (chain_sort_key(r[1]), pd.isna(r[2]), 0 if pd.isna(r[2]) else r[2], r[0]))


def plot_trajectory_curves(table: pd.DataFrame, eval_set: str, out: str) -> None:
    style.setup()
    import matplotlib.pyplot as plt

    d = table[table["eval_set"] == eval_set]
    if d.empty:
        raise ValueError(f"no trajectory rows for eval set {eval_set!r}")
    benchmarks = list(dict.fromkeys(d["benchmark"]))
    metrics = [m for m in METRICS if m in set(d["metric"])]
    runs = _runs(d)
    palette = style.palette(sorted(set(d["chain"]), key=chain_sort_key))
    seed_style = {}
    for _, chain, seed in runs:  # the i-th seed of every chain gets the i-th line style
        lines = seed_style.setdefault(chain, {})
        lines.setdefault(seed, LINESTYLES[len(lines) % len(LINESTYLES)])
    fig, axes = plt.subplots(len(metrics), len(benchmarks), figsize=(1 + 4.5 * len(benchmarks), 2.0 * len(metrics)),
                             sharex=True, squeeze=False)
    for col, bench in enumerate(benchmarks):
        b = d[d["benchmark"] == bench]
        for row, metric in enumerate(metrics):
            ax = axes[row, col]
            m = b[b["metric"] == metric]
            for run, chain, seed in runs:
                g = m[m["run"] == run].sort_values("step")
                if g.empty:
                    continue
                colour = palette[chain]
                ax.plot(g["step"], g["value"], seed_style[chain][seed], marker="o", ms=3, color=colour, label=run)
                ax.fill_between(g["step"], g["ci_low"], g["ci_high"], color=colour, alpha=0.15, lw=0)
            if metric != "answer_entropy":
                ax.set_ylim(-0.02, 1.02)
            if col == 0:
                ax.set_ylabel(metric.replace("share:", "share ") if metric.startswith("share:") else metric)
            if row == 0:
                ax.set_title(f"{bench} ({int(b['n_prompts'].iloc[0])} prompts, k = {int(b['k'].iloc[0])})")
        axes[-1, col].set_xlabel("training step")
    handles, labels = axes[0, 0].get_legend_handles_labels()
    for ax in itertools.chain.from_iterable(axes):  # a run missing from the first panel still gets its entry
        for h, lab in zip(*ax.get_legend_handles_labels()):
            if lab not in labels:
                handles.append(h)
                labels.append(lab)
    # beside the panels, below the title (a long run list would cover it at the top)
    fig.legend(handles, labels, title="run", loc="upper left", bbox_to_anchor=(1.0, 0.9), fontsize=8)
    fig.suptitle(f"Training trajectories on {eval_set} prompts (mean over prompts, bootstrap CI)")
    fig.tight_layout(rect=(0, 0, 1, 1 - 0.5 / fig.get_figheight()))  # room for the suptitle
    style.save(fig, out)
