"""`python -m rlvr_support entropy-table`: answer-level / token-level entropy and length per
checkpoint.

Run by `entropy_table` (workflow/rules/support.smk); registered by cli/main.py.
"""

from __future__ import annotations

from rlvr_support.cli.args import json_arg as _json
from rlvr_support.cli.tables import write_table

CFG_HELP = "the config's `analysis` section as JSON"


def cmd_entropy_table(a):
    from rlvr_support.analysis.entropy_table import entropy_markdown, entropy_table
    from rlvr_support.analysis.runs import parse_files

    c = a.cfg
    t = entropy_table(parse_files(a.samples, a.samples_root), parse_files(a.scores, a.scores_root),
                      n_boot=c["bootstrap"], ci=c["ci"], seed=c["seed"])
    md = write_table(t, a.out, markdown=entropy_markdown(t))
    print(t[["chain", "eval_set", "benchmark", "metric", "mean", "diff", "diff_lo", "diff_hi"]].to_string())
    print(md.rstrip().splitlines()[-1])


def register(verb) -> None:
    s = verb("entropy-table", cmd_entropy_table, "Answer-level / token-level entropy and length per checkpoint.")
    s.add_argument("--samples", nargs="+", required=True)
    s.add_argument("--samples-root", required=True)
    s.add_argument("--scores", nargs="+", required=True)
    s.add_argument("--scores-root", required=True)
    s.add_argument("--cfg", type=_json, required=True, help=CFG_HELP)
    s.add_argument("--out", required=True)
