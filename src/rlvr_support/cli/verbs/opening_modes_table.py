"""`python -m rlvr_support opening-modes-table`: shares of deliberative-reasoning (DRI), direct-answer
(DAI) and other openings per checkpoint.

Run by `opening_modes_table` (workflow/rules/reshaping.smk); registered by cli/main.py.
"""

from __future__ import annotations

from rlvr_support.cli.args import json_arg as _json
from rlvr_support.cli.tables import write_table


def cmd_opening_modes_table(a):
    from rlvr_support.analysis.opening_modes import opening_modes_table
    from rlvr_support.analysis.runs import parse_files

    c = a.cfg
    t = opening_modes_table(parse_files(a.samples, a.samples_root), patterns=c["opening_modes"],
                            n_boot=c["bootstrap"], ci=c["ci"], seed=c["seed"])
    write_table(t, a.out)
    print(t[t["seed"] == "all"][["chain", "eval_set", "benchmark", "mode", "share", "diff"]].to_string())


def register(verb) -> None:
    s = verb("opening-modes-table", cmd_opening_modes_table,
             "Shares of deliberative-reasoning (DRI), direct-answer (DAI) and other openings per checkpoint.")
    s.add_argument("--samples", nargs="+", required=True)
    s.add_argument("--samples-root", required=True)
    s.add_argument("--cfg", type=_json, required=True,
                   help='JSON: {"opening_modes": {"dri": [regex...], "dai": [regex...]}, bootstrap, ci, seed}')
    s.add_argument("--out", required=True, help="CSV (a .md beside it)")
