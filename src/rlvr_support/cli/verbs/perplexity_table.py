"""`python -m rlvr_support perplexity-table`: perplexity of reference solutions per chain and style.

Run by `perplexity_table` (workflow/rules/support.smk); registered by cli/main.py.
"""

from __future__ import annotations

from rlvr_support.cli.args import json_arg as _json
from rlvr_support.cli.tables import write_table

CFG_HELP = "the config's `analysis` section as JSON"


def cmd_perplexity_table(a):
    from rlvr_support.probes.perplexity import perplexity_table
    from rlvr_support.analysis.runs import parse_files
    from rlvr_support.storage.atomic import read_parquet

    c = a.cfg
    files = parse_files(a.runs, a.runs_root)
    eval_sets = {f.eval_set for f in files}
    if len(eval_sets) != 1:
        raise ValueError(f"perplexity-table: runs of one eval set expected, got {sorted(eval_sets)}")
    runs = {f.checkpoint: read_parquet(f.path) for f in files}
    t = perplexity_table(runs, n_boot=c["bootstrap"], ci=c["ci"], seed=c["seed"], eval_set=eval_sets.pop())
    write_table(t, a.out)
    print(t.to_string())


def register(verb) -> None:
    s = verb("perplexity-table", cmd_perplexity_table, "Perplexity of reference solutions per chain and style.")
    s.add_argument("--runs", nargs="+", required=True)
    s.add_argument("--runs-root", required=True)
    s.add_argument("--cfg", type=_json, required=True, help=CFG_HELP)
    s.add_argument("--out", required=True)
