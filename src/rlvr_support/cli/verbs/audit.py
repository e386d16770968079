"""`python -m rlvr_support audit`: lineage of a result down to data, config and code, re-checking every
sha256 and recomputing every table from its inputs (exit 1 names the first file that no longer matches);
with --row, explain one number.

Run by no rule (run by hand); registered by cli/main.py.
"""

from __future__ import annotations


def cmd_audit(a):
    from rlvr_support.cli.main import rerun_verb
    from rlvr_support.review.audit import run

    return run(a.file, row=a.row, column=a.column, quick=a.quick, rerun=rerun_verb, jobs=a.jobs)


def register(verb) -> None:
    s = verb("audit", cmd_audit, "Lineage of a result down to data, config and code, re-checking every "
             "sha256 and recomputing every table from its inputs (exit 1 names the first file that no longer "
             "matches); with --row, explain one number.")
    s.add_argument("file", help="a table, figure or any file with a .prov.json sidecar; or a folder (results/): "
                   "every file under it")
    s.add_argument("--row", help="select one table row: col=value,col=value (e.g. chain=math,eval_set=if,metric=pass@k,k=1)")
    s.add_argument("--column", default="mean", help="the column of that row to explain (default: mean)")
    s.add_argument("--quick", action="store_true",
                   help="check sha256 only; by default every table met is also recomputed from the inputs its "
                        "sidecar names (its verb rerun) and compared cell by cell")
    s.add_argument("--jobs", type=int, default=1,
                   help="recompute this many tables' jobs at once, each in a process of its own (default: 1)")
    s.set_defaults(prov=False)
