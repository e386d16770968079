"""`python -m rlvr_support claims`: one row per claim of the papers (by short title): effect, CI, verdict, source.

Run by `claims_table` (workflow/rules/support.smk); registered by cli/main.py.
"""

from __future__ import annotations

from rlvr_support.cli.args import json_arg as _json
from rlvr_support.cli.tables import write_table

CFG_HELP = "the config's `analysis` section as JSON"


def cmd_claims(a):
    import pandas as pd

    from rlvr_support.analysis.claims.registry import is_read, parse_tables
    from rlvr_support.analysis.claims.table import (claims_markdown, claims_table, seed_stability_markdown,
                                                    seed_stability_table)
    from rlvr_support.analysis.runs import parse_files

    paths = parse_tables(a.tables)
    tables = {name: pd.read_csv(path) for name, path in paths.items() if is_read(name)}
    c = a.cfg
    scores = parse_files(a.scores, a.scores_root)
    opts = dict(m=c["opening_tokens"], n_boot=c["bootstrap"], ci=c["ci"], seed=c["seed"],
                group_size=c.get("group_size"))
    t = claims_table(scores, tables, paths, **opts)
    print(write_table(t, a.out, markdown=claims_markdown(t)))
    if a.out_seed_stability:
        st = seed_stability_table(scores, t, tables, paths, **opts)
        write_table(st, a.out_seed_stability, markdown=seed_stability_markdown(st))


def register(verb) -> None:
    s = verb("claims", cmd_claims, "One row per claim of the papers (named by short title, analysis/papers.py): "
             "effect, CI, verdict, source file.")
    s.add_argument("--scores", nargs="+", required=True)
    s.add_argument("--scores-root", required=True)
    s.add_argument("--tables", nargs="*", default=[], metavar="NAME=PATH",
                   help="the tables the claims read or cite, by the names of analysis/claims/registry.py "
                        "(e.g. passk=results/tables/passk.csv, intervention_decomposition_math=results/tables/"
                        "intervention_decomposition_math.csv); a claim whose table is not given is not measured; "
                        "an unknown name is an error that lists the names")
    s.add_argument("--cfg", type=_json, required=True, help=CFG_HELP)
    s.add_argument("--out", required=True)
    s.add_argument("--out-seed-stability", help="CSV of each claim's verdict per RL seed and pooled (.md beside it)")
