"""`python -m rlvr_support figure-perplexity`: perplexity bars per style and chain.

Run by `figure_perplexity` (workflow/rules/support.smk); registered by cli/main.py.
"""

from __future__ import annotations



def cmd_figure_perplexity(a):
    import pandas as pd

    from rlvr_support.figures.perplexity_bars import plot_perplexity

    plot_perplexity(pd.read_csv(a.table), a.out)


def register(verb) -> None:
    s = verb("figure-perplexity", cmd_figure_perplexity, "Perplexity bars per style and chain.")
    s.add_argument("--table", required=True)
    s.add_argument("--out", required=True)
