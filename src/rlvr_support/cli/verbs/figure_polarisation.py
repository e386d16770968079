"""`python -m rlvr_support figure-polarisation`: heat map of per-prompt success counts per checkpoint
for one eval set, a facet per benchmark.

Run by `figure_polarisation` (workflow/rules/reshaping.smk); registered by cli/main.py.
"""

from __future__ import annotations

from rlvr_support.cli.args import add_figure_args


def cmd_figure_polarisation(a):
    import pandas as pd

    from rlvr_support.figures.polarisation_hist import plot_polarisation

    plot_polarisation(pd.read_csv(a.table), a.eval_set, a.out)


def register(verb) -> None:
    s = verb("figure-polarisation", cmd_figure_polarisation,
             "Heat map of per-prompt success counts per checkpoint for one eval set, a facet per benchmark.")
    add_figure_args(s, "the polarisation histogram CSV")
