"""`python -m rlvr_support polarisation-table`: prompts moved to 0/n and n/n successes vs the base,
bucket transitions and success-count histograms.

Run by `polarisation_table` (workflow/rules/reshaping.smk); registered by cli/main.py.
"""

from __future__ import annotations

from rlvr_support.cli.args import json_arg as _json
from rlvr_support.cli.tables import write_table

CFG_HELP = "the config's `analysis` keys the verb reads, as JSON"


def cmd_polarisation_table(a):
    from rlvr_support.analysis.polarisation import polarisation_tables
    from rlvr_support.analysis.runs import parse_files

    c = a.cfg
    summary, transitions, hist = polarisation_tables(parse_files(a.scores, a.scores_root), n_boot=c["bootstrap"],
                                                     ci=c["ci"], seed=c["seed"])
    write_table(summary, a.out)
    write_table(transitions, a.out_transitions)
    write_table(hist, a.out_histogram)
    print(summary[["chain", "eval_set", "benchmark", "n", "delta_zero", "delta_all", "to_zero", "to_all"]].to_string())


def register(verb) -> None:
    s = verb("polarisation-table", cmd_polarisation_table,
             "Prompts moved to 0/n and n/n successes vs the base, bucket transitions and success-count histograms.")
    s.add_argument("--scores", nargs="+", required=True)
    s.add_argument("--scores-root", required=True)
    s.add_argument("--cfg", type=_json, required=True, help=CFG_HELP)
    s.add_argument("--out", required=True, help="summary CSV (a .md beside it)")
    s.add_argument("--out-transitions", required=True, help="base bucket x checkpoint bucket CSV")
    s.add_argument("--out-histogram", required=True, help="prompts per success count CSV (the figure's data)")
