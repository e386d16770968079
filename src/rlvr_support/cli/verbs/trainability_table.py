"""`python -m rlvr_support trainability-table`: share of prompts whose G-rollout GRPO group would be
all-fail / all-success / mixed, per checkpoint and G (hypergeometric, from each prompt's n samples).

Run by `trainability_table` (workflow/rules/reshaping.smk); registered by cli/main.py.
"""

from __future__ import annotations

from rlvr_support.cli.args import json_arg as _json
from rlvr_support.cli.tables import write_table


def cmd_trainability_table(a):
    from rlvr_support.analysis.runs import parse_files
    from rlvr_support.analysis.trainability import trainability_table

    c = a.cfg
    t = trainability_table(parse_files(a.scores, a.scores_root), rl_group_size=c["group_size"],
                           extra_group_sizes=c["trainability"]["group_sizes"], n_boot=c["bootstrap"], ci=c["ci"],
                           seed=c["seed"])
    write_table(t, a.out)
    print(t[["chain", "eval_set", "benchmark", "G", "all_fail", "all_success", "mixed", "mixed_diff"]].to_string())
    if a.out_observed:
        import pandas as pd

        from rlvr_support.analysis.trainability import observed_zero_variance

        curves = []
        for spec in a.curves or []:
            label, _, path = spec.partition("=")
            chain, _, seed = label.rpartition("/seed")
            curves.append((chain, int(seed), pd.read_csv(path)))
        obs = observed_zero_variance(t, curves, c["group_size"])
        write_table(obs, a.out_observed)
        print(obs.to_string())


def register(verb) -> None:
    s = verb("trainability-table", cmd_trainability_table,
             "Share of prompts whose G-rollout GRPO group would be all-fail / all-success / mixed, per checkpoint "
             "and G (hypergeometric, from each prompt's n samples).")
    s.add_argument("--scores", nargs="+", required=True)
    s.add_argument("--scores-root", required=True)
    s.add_argument("--cfg", type=_json, required=True,
                   help='JSON: {"group_size": rl.group_size, "trainability": {"group_sizes": [...]}, bootstrap, ci, seed}')
    s.add_argument("--out", required=True, help="CSV (a .md is written beside it)")
    s.add_argument("--curves", nargs="*", metavar="CHAIN/seedS=PATH",
                   help="the trained stages' reward_curve.csv (TRL's frac_reward_zero_std per log window)")
    s.add_argument("--out-observed", help="CSV: each stage's observed zero-variance share beside the predicted one")
