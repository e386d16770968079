"""`python -m rlvr_support intervention-table`: success per forced opening and the decomposition sum_o
P(o) success(o) per model.

Run by `intervention_table` (workflow/rules/support.smk); registered by cli/main.py.
"""

from __future__ import annotations

from rlvr_support.cli.args import json_arg as _json, label_pairs
from rlvr_support.cli.tables import write_table

CFG_HELP = "the config's `analysis` section as JSON"


def cmd_intervention_table(a):
    from rlvr_support.probes.opening_intervention import intervention_tables
    from rlvr_support.storage.atomic import read_parquet

    c = a.cfg
    per_opening, dec = intervention_tables(read_parquet(a.run), label_pairs(a.samples, "samples"), label_pairs(a.scores, "scores"),
                                           m=c["opening_tokens"], n_boot=c["bootstrap"], ci=c["ci"], seed=c["seed"])
    write_table(per_opening, a.out)
    write_table(dec, a.out_decomposition)
    print(dec.to_string())


def register(verb) -> None:
    s = verb("intervention-table", cmd_intervention_table,
             "Success per forced opening and the decomposition sum_o P(o) success(o) per model.")
    s.add_argument("--run", required=True)
    s.add_argument("--samples", nargs="+", required=True, help="label=samples.parquet pairs")
    s.add_argument("--scores", nargs="+", required=True, help="label=scores.parquet pairs")
    s.add_argument("--cfg", type=_json, required=True, help=CFG_HELP)
    s.add_argument("--out", required=True)
    s.add_argument("--out-decomposition", required=True)
