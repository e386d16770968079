"""`python -m rlvr_support figure-single-token`: change in best@k against the position of the swapped
token, both directions, per checkpoint.

Run by `figure_single_token` (workflow/rules/single_token.smk); registered by cli/main.py.
"""

from __future__ import annotations

from rlvr_support.cli.args import add_figure_args


def cmd_figure_single_token(a):
    import pandas as pd

    from rlvr_support.figures.single_token_sweep import plot_single_token

    plot_single_token(pd.read_csv(a.table), a.eval_set, a.out)


def register(verb) -> None:
    s = verb("figure-single-token", cmd_figure_single_token,
             "Change in best@k against the position of the swapped token, both directions, per checkpoint.")
    add_figure_args(s, "tables/single_token.csv")
