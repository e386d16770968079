"""Support-monitor curves of one chain: pass@1, best@k, coverage and opening entropy per
probe task against the training step of the chain's last stage (one line style per seed)."""

from __future__ import annotations

import pandas as pd

from rlvr_support.figures import style

PANELS = ["pass@1", "best@k", "coverage", "opening_entropy"]


def plot_monitor(frames: dict[int, pd.DataFrame], chain: str, out_png: str) -> None:
    """frames: RL seed -> that seed's monitor.csv; an all-empty set gives a figure that says so."""
    style.setup()
    import matplotlib.pyplot as plt
    import seaborn as sns

    fig, axes = plt.subplots(1, len(PANELS), figsize=(3.2 * len(PANELS), 3.2))
    data = pd.concat([f.assign(seed=s) for s, f in sorted(frames.items())], ignore_index=True) if frames else None
    if data is None or data.empty:
        for ax in axes:
            ax.set_axis_off()
        axes[0].text(0, 0.5, f"{chain}: support monitor off (rl.monitor absent)", fontsize=10)
        style.save(fig, out_png)
        return
    tasks = sorted(data["task"].unique())
    palette = dict(zip(tasks, sns.color_palette("Set1", len(tasks))))
    dashes = ["-", "--", ":", "-."]
    for ax, metric in zip(axes, PANELS):
        for (task, seed), g in data.groupby(["task", "seed"], sort=True):
            role = g["role"].iloc[0]
            ax.plot(g["step"], g[metric], dashes[seed % len(dashes)], marker="o", ms=3, color=palette[task],
                    label=f"{task} ({role}), seed {seed}")
        ax.set_title(metric)
        ax.set_xlabel("step")
        if metric != "opening_entropy":
            ax.set_ylim(-0.02, 1.02)
    style.legend_outside(axes[-1], fontsize=7)
    fig.suptitle(f"Support monitor: {chain}")
    style.save(fig, out_png)
