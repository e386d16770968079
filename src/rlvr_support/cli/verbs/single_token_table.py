"""`python -m rlvr_support single-token-table`: best@k, pass@1 and opening modes per single-token
condition, and their changes against the recipient's own samples, RL seeds pooled.

Run by `single_token_table` (workflow/rules/single_token.smk); registered by cli/main.py.
"""

from __future__ import annotations

from rlvr_support.cli.args import json_arg as _json
from rlvr_support.cli.tables import write_table


def cmd_single_token_table(a):
    from rlvr_support.probes.single_token import single_token_summary, single_token_table
    from rlvr_support.analysis.markdown import df_to_markdown
    from rlvr_support.storage.atomic import read_parquet

    c = a.cfg
    runs = {}
    for spec in a.runs:
        label, _, path = spec.partition("=")
        runs.setdefault(label, []).append(read_parquet(path))
    import pandas as pd

    t = single_token_table({k: pd.concat(v, ignore_index=True) for k, v in runs.items()},
                           patterns=c["opening_modes"], n_boot=c["bootstrap"], ci=c["ci"], seed=c["seed"])
    summary = single_token_summary(t)
    write_table(t, a.out, markdown=df_to_markdown(summary, 3))  # the .md shows the summary, not every row
    print(summary.to_string())


def register(verb) -> None:
    s = verb("single-token-table", cmd_single_token_table,
             "best@k, pass@1 and opening modes per single-token condition, and their changes against the "
             "recipient's own samples, RL seeds pooled.")
    s.add_argument("--runs", nargs="+", required=True, metavar="LABEL=PATH", help="checkpoint label=run Parquet")
    s.add_argument("--cfg", type=_json, required=True,
                   help='JSON: {"opening_modes": {...}, bootstrap, ci, seed}')
    s.add_argument("--out", required=True, help="CSV (a .md summary beside it)")
