"""`python -m rlvr_support js-table`: jS curves with CIs and the share of divergence in the first m
tokens.

Run by `js_table` (workflow/rules/support.smk); registered by cli/main.py.
"""

from __future__ import annotations

from rlvr_support.cli.args import json_arg as _json
from rlvr_support.cli.tables import write_table

CFG_HELP = "the config's `analysis` section as JSON"


def cmd_js_table(a):
    from rlvr_support.probes.positional_js import js_tables
    from rlvr_support.analysis.runs import parse_files
    c = a.cfg
    pos, share = js_tables(parse_files(a.runs, a.runs_root), m=c["opening_tokens"], n_boot=c["bootstrap"],
                           ci=c["ci"], seed=c["seed"])
    write_table(pos, a.out_positions)
    write_table(share, a.out)
    print(share[["chain", "eval_set", "benchmark", "source", "share_first_m", "uniform_share",
                 "early_minus_late"]].to_string())


def register(verb) -> None:
    s = verb("js-table", cmd_js_table, "JS curves with CIs and the share of divergence in the first m tokens.")
    s.add_argument("--runs", nargs="+", required=True)
    s.add_argument("--runs-root", required=True)
    s.add_argument("--cfg", type=_json, required=True, help=CFG_HELP)
    s.add_argument("--out-positions", required=True, help="CSV of the curves (a .md beside it)")
    s.add_argument("--out", required=True, help="CSV of the share table (a .md beside it)")
