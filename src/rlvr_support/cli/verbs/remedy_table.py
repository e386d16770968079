"""`python -m rlvr_support remedy-table`: mitigation comparison of the sequential chains and their
variants: current/previous-task pass@1, best@k, SRR, gain and loss vs the parent, with CIs.

Run by `remedy_table` (workflow/rules/remedies.smk); registered by cli/main.py.
"""

from __future__ import annotations

from rlvr_support.cli.args import json_arg as _json
from rlvr_support.cli.tables import write_table


def cmd_remedy_table(a):
    from rlvr_support.analysis.remedy_comparison import comparison_markdown, comparison_table
    from rlvr_support.analysis.scores import parse_score_path

    files = [parse_score_path(p, a.scores_root) for p in a.scores]
    table = comparison_table(files, n_boot=a.cfg["bootstrap"], ci=a.cfg["ci"], seed=a.cfg["seed"])
    print(write_table(table, a.out, markdown=comparison_markdown(table)))
    if a.out_teachers:
        from rlvr_support.analysis.remedy_comparison import teacher_markdown, teacher_table

        teachers = teacher_table(table, a.teachers or {})
        write_table(teachers, a.out_teachers, markdown=teacher_markdown(teachers))


def register(verb) -> None:
    s = verb("remedy-table", cmd_remedy_table, "Mitigation comparison of the sequential chains and their "
             "variants: current/previous-task pass@1, best@k, SRR, gain and loss vs the parent, with CIs.")
    s.add_argument("--scores", nargs="+", required=True)
    s.add_argument("--scores-root", required=True)
    s.add_argument("--cfg", type=_json, required=True, help="the config's `analysis` section as JSON")
    s.add_argument("--out", required=True, help="CSV; the Markdown table is written beside it (.md)")
    s.add_argument("--teachers", type=_json,
                   help='JSON {chain: {"teacher", "teacher_step", "teacher_fraction"}} of the distilling chains')
    s.add_argument("--out-teachers", help="CSV (.md beside it): the distilling chains by teacher step")
