"""`python -m rlvr_support figure-openings`: opening probability under base vs checkpoint (scatter).

Run by `figure_openings` (workflow/rules/support.smk); registered by cli/main.py.
"""

from __future__ import annotations



def cmd_figure_openings(a):
    import pandas as pd

    from rlvr_support.figures.openings_scatter import plot_openings_scatter

    plot_openings_scatter(pd.read_csv(a.table), a.eval_set, a.out)


def register(verb) -> None:
    s = verb("figure-openings", cmd_figure_openings, "Opening probability under base vs checkpoint (scatter).")
    s.add_argument("--table", required=True)
    s.add_argument("--eval-set", required=True)
    s.add_argument("--out", required=True)
