"""`python -m rlvr_support figure-passk`: pass@k curves for one eval set (PNG and PDF).

Run by `figure_passk` (workflow/rules/analyse.smk), `figure_bestk` (workflow/rules/analyse.smk),
`figure_bestk_large_k` (workflow/rules/large_k.smk); registered by cli/main.py.
"""

from __future__ import annotations



def cmd_figure_passk(a):
    import pandas as pd

    from rlvr_support.figures.passk_curves import plot_passk_curves

    plot_passk_curves(pd.read_csv(a.table), a.eval_set, a.out, metric=a.metric)


def register(verb) -> None:
    s = verb("figure-passk", cmd_figure_passk, "pass@k curves for one eval set (PNG and PDF).")
    s.add_argument("--table", required=True)
    s.add_argument("--eval-set", required=True)
    s.add_argument("--metric", default="pass@k", choices=["pass@k", "best@k", "coverage"])
    s.add_argument("--out", required=True, help="<name>.png; the PDF is written beside it")
    s.set_defaults(prov_rule=lambda a: "figure_bestk" if a.metric == "best@k" else "figure_passk")
