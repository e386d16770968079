"""`python -m rlvr_support reasoning-if-table`: instruction following inside reasoning: constraints on
the reasoning and on the answer apart, MathIF's HAcc / SAcc, and responses that met them by skipping
the reasoning.

Run by `reasoning_if_table` (workflow/rules/reshaping.smk); registered by cli/main.py.
"""

from __future__ import annotations

from rlvr_support.cli.args import json_arg as _json
from rlvr_support.cli.verifier_args import add_verifier_args
from rlvr_support.cli.tables import write_table


def cmd_reasoning_if_table(a):
    from rlvr_support.analysis.reasoning_if import reasoning_if_table
    from rlvr_support.analysis.runs import parse_files
    from rlvr_support.storage.atomic import read_jsonl

    c = a.cfg
    prompts = {str(r["id"]): r for p in a.prompts for r in read_jsonl(p)}
    t = reasoning_if_table(parse_files(a.samples, a.samples_root), prompts, rules=c["reasoning_if"],
                           n_boot=c["bootstrap"], ci=c["ci"], seed=c["seed"])
    write_table(t, a.out)
    print(t[["chain", "eval_set", "benchmark", "reasoning_rate", "HAcc_whole", "HAcc_answer", "HAcc_reasoning",
             "bypass"]].to_string())


def register(verb) -> None:
    s = verb("reasoning-if-table", cmd_reasoning_if_table,
             "Instruction following inside reasoning: constraints on the reasoning and on the answer apart, "
             "MathIF's HAcc / SAcc, and responses that met them by skipping the reasoning.")
    s.add_argument("--samples", nargs="+", required=True, help="samples of the if and joint eval sets")
    s.add_argument("--samples-root", required=True)
    s.add_argument("--prompts", nargs="+", required=True, help="their prompt files (constraints and kwargs)")
    s.add_argument("--cfg", type=_json, required=True,
                   help='JSON: {"reasoning_if": {"answer_markers": [...], "reasoning_prefixes": [...]}, bootstrap, ci, seed}')
    s.add_argument("--out", required=True, help="CSV (a .md beside it)")
    add_verifier_args(s)
