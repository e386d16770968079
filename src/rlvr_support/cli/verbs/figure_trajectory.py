"""`python -m rlvr_support figure-trajectory`: metrics against training step for one eval set: a row
per metric, a column per benchmark, a line per run.

Run by `figure_trajectory` (workflow/rules/trajectory.smk); registered by cli/main.py.
"""

from __future__ import annotations



def cmd_figure_trajectory(a):
    import pandas as pd

    from rlvr_support.figures.trajectory_curves import plot_trajectory_curves

    plot_trajectory_curves(pd.read_csv(a.table), a.eval_set, a.out)


def register(verb) -> None:
    s = verb("figure-trajectory", cmd_figure_trajectory,
             "Metrics against training step for one eval set: a row per metric, a column per benchmark, "
             "a line per run.")
    s.add_argument("--table", required=True, help="the trajectory-table CSV")
    s.add_argument("--eval-set", required=True)
    s.add_argument("--out", required=True, help="<name>.png; the PDF is written beside it")
