"""`python -m rlvr_support support-table`: empirical support categories (P/S/E/O, SRR, NDR, SDS, NSCR)
of every checkpoint vs the base.

Run by `support_table` (workflow/rules/support.smk); registered by cli/main.py.
"""

from __future__ import annotations

from rlvr_support.cli.args import json_arg as _json
from rlvr_support.cli.tables import write_table

CFG_HELP = "the config's `analysis` section as JSON"


def cmd_support_table(a):
    from rlvr_support.analysis.runs import parse_files
    from rlvr_support.analysis.support_table import support_tables

    c = a.cfg
    bases = dict(pair.split("=", 1) for pair in a.bases)
    summary, per_prompt = support_tables(parse_files(a.scores, a.scores_root), delta=c["support_delta"],
                                         n_boot=c["bootstrap"], ci=c["ci"], seed=c["seed"], bases=bases)
    write_table(summary, a.out)
    write_table(per_prompt, a.out_per_prompt)
    print(summary[["chain", "eval_set", "benchmark", "relation", "P", "S", "E", "O", "SRR", "NDR", "NSCR"]].to_string())


def register(verb) -> None:
    s = verb("support-table", cmd_support_table,
             "Empirical support categories (P/S/E/O, SRR, NDR, SDS, NSCR) of every checkpoint vs the base.")
    s.add_argument("--scores", nargs="+", required=True)
    s.add_argument("--scores-root", required=True)
    s.add_argument("--cfg", type=_json, required=True, help=CFG_HELP)
    s.add_argument("--out", required=True, help="summary CSV (a .md is written beside it)")
    s.add_argument("--bases", nargs="*", default=[], metavar="LABEL=BASE",
                   help="checkpoints compared with another checkpoint than the base (an imported label's `base:`)")
    s.add_argument("--out-per-prompt", required=True, help="CSV of the category of every prompt (a .md beside it)")
