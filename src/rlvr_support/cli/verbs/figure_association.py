"""`python -m rlvr_support figure-association`: a style share against best@k at every checkpoint of one
eval set, per benchmark, with Pearson r.

Run by `figure_association` (workflow/rules/trajectory.smk); registered by cli/main.py.
"""

from __future__ import annotations



def cmd_figure_association(a):
    import pandas as pd

    from rlvr_support.figures.association_scatter import plot_association_scatter

    plot_association_scatter(pd.read_csv(a.table), pd.read_csv(a.association), a.eval_set, a.out, x=a.x, y=a.y)


def register(verb) -> None:
    s = verb("figure-association", cmd_figure_association,
             "A style share against best@k at every checkpoint of one eval set, per benchmark, with Pearson r.")
    s.add_argument("--table", required=True, help="the trajectory-table CSV")
    s.add_argument("--association", required=True, help="the association CSV of the same table")
    s.add_argument("--eval-set", required=True)
    s.add_argument("--x", default="share:answer", help="the share on x (default: %(default)s)")
    s.add_argument("--y", default="best@k", help="the metric on y (default: %(default)s)")
    s.add_argument("--out", required=True, help="<name>.png; the PDF is written beside it")
