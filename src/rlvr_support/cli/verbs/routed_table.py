"""`python -m rlvr_support routed-table`: routing prior at sampling time vs plain sampling (pass@1,
best@k).

Run by `routed_table` (workflow/rules/routed.smk); registered by cli/main.py.
"""

from __future__ import annotations

from rlvr_support.cli.args import json_arg as _json
from rlvr_support.cli.tables import write_table


def cmd_routed_table(a):
    import pandas as pd

    from rlvr_support.analysis.markdown import ci_markdown
    from rlvr_support.analysis.routed_table import routed_summary, routed_table
    from rlvr_support.analysis.scores import parse_score_path

    files = [parse_score_path(p, a.scores_root) for p in a.scores]
    table = routed_table(pd.read_csv(a.plain_table), files, n_boot=a.cfg["bootstrap"], ci=a.cfg["ci"],
                         seed=a.cfg["seed"])
    print(write_table(table, a.out, markdown=ci_markdown(routed_summary(table), ["pass@1", "best@kmax"])))


def register(verb) -> None:
    s = verb("routed-table", cmd_routed_table, "Routing prior at sampling time vs plain sampling (pass@1, best@k).")
    s.add_argument("--plain-table", required=True, help="the study's passk.csv")
    s.add_argument("--scores", nargs="+", required=True, help="score files of the routed samples")
    s.add_argument("--scores-root", required=True)
    s.add_argument("--cfg", type=_json, required=True, help="the config's `analysis` section as JSON")
    s.add_argument("--out", required=True, help="CSV; the Markdown summary is written beside it")
