"""`python -m rlvr_support route-entry-table`: jS at the first response position over the mean interior
JS, per checkpoint vs base, with CIs.

Run by `route_entry_table` (workflow/rules/reshaping.smk); registered by cli/main.py.
"""

from __future__ import annotations

from rlvr_support.cli.args import json_arg as _json
from rlvr_support.cli.tables import write_table

CFG_HELP = "the config's `analysis` keys the verb reads, as JSON"


def cmd_route_entry_table(a):
    from rlvr_support.analysis.route_entry import route_entry_table
    from rlvr_support.analysis.runs import parse_files

    c = a.cfg
    t = route_entry_table(parse_files(a.runs, a.runs_root), n_boot=c["bootstrap"], ci=c["ci"], seed=c["seed"])
    write_table(t, a.out)
    print(t[["chain", "eval_set", "benchmark", "source", "js_first", "js_interior", "ratio", "ratio_lo",
             "ratio_hi"]].to_string())


def register(verb) -> None:
    s = verb("route-entry-table", cmd_route_entry_table,
             "JS at the first response position over the mean interior JS, per checkpoint vs base, with CIs.")
    s.add_argument("--runs", nargs="+", required=True, help="positional-JS runs, <root>/<checkpoint>/<eval set>.parquet")
    s.add_argument("--runs-root", required=True)
    s.add_argument("--cfg", type=_json, required=True, help=CFG_HELP)
    s.add_argument("--out", required=True, help="CSV (a .md beside it)")
