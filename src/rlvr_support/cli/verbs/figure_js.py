"""`python -m rlvr_support figure-js`: jS divergence against response position for one eval set.

Run by `figure_js` (workflow/rules/support.smk); registered by cli/main.py.
"""

from __future__ import annotations



def cmd_figure_js(a):
    import pandas as pd

    from rlvr_support.figures.js_curves import plot_js_curves

    plot_js_curves(pd.read_csv(a.table), a.eval_set, a.m, a.out)


def register(verb) -> None:
    s = verb("figure-js", cmd_figure_js, "JS divergence against response position for one eval set.")
    s.add_argument("--table", required=True)
    s.add_argument("--eval-set", required=True)
    s.add_argument("--m", type=int, required=True)
    s.add_argument("--out", required=True)
