"""Shared figure setup: a non-interactive backend and reproducible files (no timestamps)."""

from __future__ import annotations

from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import seaborn as sns  # noqa: E402

from rlvr_support.storage.atomic import atomic_path  # noqa: E402


def setup() -> None:
    sns.set_theme(context="paper", style="whitegrid", font_scale=1.1)
    plt.rcParams.update({"figure.dpi": 100, "savefig.dpi": 150, "svg.hashsalt": "rlvr-support"})


def palette(keys) -> dict:
    """One distinct colour per key: tab10 up to ten keys, evenly spaced hues beyond (tab10 would repeat)."""
    keys = list(keys)
    return dict(zip(keys, sns.color_palette("tab10" if len(keys) <= 10 else "husl", len(keys))))


def legend_outside(ax, **kwargs) -> None:
    """The legend to the right of the axes, never over the data, however many entries it has
    (ten checkpoints or thirty seeds x chains); the saved file's tight box takes it in."""
    ax.legend(loc="upper left", bbox_to_anchor=(1.02, 1.0), borderaxespad=0.0, **kwargs)


def save(fig, png_path: str | Path) -> None:
    """Write `<name>.png` and `<name>.pdf` atomically, without creation dates, so reruns are byte-identical."""
    png_path = Path(png_path)
    with atomic_path(png_path) as tmp:
        fig.savefig(tmp, format="png", metadata={"Software": None}, bbox_inches="tight")
    with atomic_path(png_path.with_suffix(".pdf")) as tmp:
        fig.savefig(tmp, format="pdf", metadata={"CreationDate": None, "ModDate": None, "Producer": None,
                                                 "Creator": None}, bbox_inches="tight")
    plt.close(fig)
