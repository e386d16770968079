"""`python -m rlvr_support figure-remedies`: trade-off plot: current-task gain vs previous-task best@k
loss.

Run by `figure_remedies` (workflow/rules/remedies.smk); registered by cli/main.py.
"""

from __future__ import annotations



def cmd_figure_remedies(a):
    import pandas as pd

    from rlvr_support.figures.remedy_tradeoff import plot_remedy_tradeoff

    plot_remedy_tradeoff(pd.read_csv(a.table), a.out)


def register(verb) -> None:
    s = verb("figure-remedies", cmd_figure_remedies, "Trade-off plot: current-task gain vs previous-task best@k loss.")
    s.add_argument("--table", required=True, help="the remedy-table CSV")
    s.add_argument("--out", required=True, help="<name>.png; the PDF is written beside it")
