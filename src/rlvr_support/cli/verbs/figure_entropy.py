"""`python -m rlvr_support figure-entropy`: entropy bars per checkpoint and eval set.

Run by `figure_entropy` (workflow/rules/support.smk); registered by cli/main.py.
"""

from __future__ import annotations


def cmd_figure_entropy(a):
    import pandas as pd

    from rlvr_support.figures.entropy_bars import plot_entropy

    plot_entropy(pd.read_csv(a.table), a.out)


def register(verb) -> None:
    s = verb("figure-entropy", cmd_figure_entropy, "Entropy bars per checkpoint and eval set.")
    s.add_argument("--table", required=True)
    s.add_argument("--out", required=True)
