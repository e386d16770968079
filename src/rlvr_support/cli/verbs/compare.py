"""`python -m rlvr_support compare A B`: which files two results trees share byte for byte, by their
sidecars (review/compare_trees.py). Run by hand after a rerun elsewhere; no rule runs it.
"""

from __future__ import annotations


def cmd_compare(a):
    from rlvr_support.review.compare_trees import compare_trees

    c = compare_trees(a.a, a.b)
    print("\n".join(c.lines(a.a, a.b, a.show)))
    if not c.same and not c.differ:
        raise ValueError(f"{a.a} and {a.b} share no file: not two runs of one study")
    return 1 if c.differ else 0


def register(verb) -> None:
    s = verb("compare", cmd_compare,
             "Whether two results trees (two runs of a study: another machine, another kernel capability) hold the "
             "same bytes: every output and artifact both trees' sidecars record, compared by sha256; a checkpoint "
             "manifest, which records its job's wall-clock seconds, is compared without those (read from both trees' "
             "copies). Exit 1 if any differ. Checks sidecars only: run `audit` on each tree for its files.")
    s.add_argument("a", metavar="RESULTS_A", help="a results folder, e.g. results")
    s.add_argument("b", metavar="RESULTS_B", help="another, e.g. world1/results or a stored copy")
    s.add_argument("--show", type=int, default=20, help="how many differing files to name (default 20)")
    s.set_defaults(prov=False)
