"""`python -m rlvr_support figure-support`: stacked bars of support categories for one eval set.

Run by `figure_support` (workflow/rules/support.smk); registered by cli/main.py.
"""

from __future__ import annotations



def cmd_figure_support(a):
    import pandas as pd

    from rlvr_support.figures.support_bars import plot_support_bars

    plot_support_bars(pd.read_csv(a.table), a.eval_set, a.out)


def register(verb) -> None:
    s = verb("figure-support", cmd_figure_support, "Stacked bars of support categories for one eval set.")
    s.add_argument("--table", required=True)
    s.add_argument("--eval-set", required=True)
    s.add_argument("--out", required=True, help="<name>.png; the PDF is written beside it")
