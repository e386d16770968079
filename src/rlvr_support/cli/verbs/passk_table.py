"""`python -m rlvr_support passk-table`: pass@k / best@k / coverage / maj@k with bootstrap CIs, the
headline table and the difficulty-bin table.

Run by `passk_table` (workflow/rules/analyse.smk), `large_k_table` (workflow/rules/large_k.smk);
registered by cli/main.py.
"""

from __future__ import annotations

from rlvr_support.cli.args import json_arg as _json
from rlvr_support.cli.tables import write_table


def cmd_passk_table(a):
    from rlvr_support.analysis.markdown import ci_markdown
    from rlvr_support.analysis.passk_table import headline_table, passk_table
    from rlvr_support.analysis.scores import parse_score_path

    files = [parse_score_path(p, a.scores_root) for p in a.scores]
    table = passk_table(files, n_boot=a.cfg["bootstrap"], ci=a.cfg["ci"], seed=a.cfg["seed"])
    write_table(table, a.out)
    if a.headline:
        head = headline_table(table)
        print(write_table(head, a.headline, markdown=ci_markdown(head, ["pass@1", "best@kmax", "coverage@kmax"])))
    if a.out_difficulty:
        from rlvr_support.analysis.difficulty_table import difficulty_table

        write_table(difficulty_table(files, n_boot=a.cfg["bootstrap"], ci=a.cfg["ci"], seed=a.cfg["seed"]),
                    a.out_difficulty)


def register(verb) -> None:
    s = verb("passk-table", cmd_passk_table, "pass@k / best@k / coverage with bootstrap CIs, and the headline table.")
    s.add_argument("--scores", nargs="+", required=True)
    s.add_argument("--scores-root", required=True)
    s.add_argument("--cfg", type=_json, required=True, help="the config's `analysis` section as JSON")
    s.add_argument("--out", required=True, help="CSV of pass@k / best@k / coverage at every k (a .md beside it)")
    s.add_argument("--headline", help="also write the headline table here (CSV, and .md beside it)")
    s.add_argument("--out-difficulty", help="also write pass@1 and pass@k per bin of the base's pass rate here "
                                        "(CSV, and .md beside it)")
