"""`python -m rlvr_support figure-intervention`: success per forced opening per model.

Run by `figure_intervention` (workflow/rules/support.smk); registered by cli/main.py.
"""

from __future__ import annotations



def cmd_figure_intervention(a):
    import pandas as pd

    from rlvr_support.figures.intervention_bars import plot_intervention

    plot_intervention(pd.read_csv(a.table, dtype={"opening": str, "opening_text": str}), a.eval_set, a.out)


def register(verb) -> None:
    s = verb("figure-intervention", cmd_figure_intervention, "Success per forced opening per model.")
    s.add_argument("--table", required=True)
    s.add_argument("--eval-set", required=True)
    s.add_argument("--out", required=True)
