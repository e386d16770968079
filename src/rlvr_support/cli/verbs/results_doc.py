"""`python -m rlvr_support results-doc`: the results page (docs/results.md) generated from a finished results tree
(lineage/results_page.py). Run by no rule: it reads a finished tree (make results-doc); registered by cli/main.py.
"""

from __future__ import annotations

import sys
from pathlib import Path


def cmd_results_doc(a):
    from rlvr_support.lineage import results_page
    from rlvr_support.storage.atomic import write_text

    part = results_page.generated(a.results)
    out = Path(a.out)
    page = out.read_text() if out.is_file() else ""
    new = results_page.splice(page, part)
    if a.check:
        diff = results_page.first_difference(page, new)
        if diff:
            print(f"error: {out} is not what {a.results} gives ({diff}); regenerate it with "
                  f"`python -m rlvr_support results-doc {a.results} --out {out}`", file=sys.stderr)
            return 1
        print(f"{out} matches {a.results}")
        return 0
    write_text(out, new)
    print(f"{out}: generated part from {a.results} ({len(part.splitlines())} lines)")
    if a.copy_inputs:
        copied = results_page.copy_inputs(a.results, a.copy_inputs)
        print(f"{len(copied)} files it was made from copied to {a.copy_inputs}")
    return 0


def register(verb) -> None:
    s = verb("results-doc", cmd_results_doc,
             "Write the results page (docs/results.md) from a finished results tree: its claims, seed-stability, "
             "remedies (and cross-world) tables as the pipeline wrote them, under a header naming the commit, config "
             "files, RL seeds and numerics from their sidecars; only the part between the page's markers changes.")
    s.add_argument("results", help="the results folder of a finished study (results/)")
    s.add_argument("--out", required=True, help="the page (docs/results.md); created if missing")
    s.add_argument("--check", action="store_true",
                   help="write nothing: exit 1 if the page's generated part differs from what the tree gives")
    s.add_argument("--copy-inputs", metavar="DIR",
                   help="also copy the tables and sidecars the page is made from to DIR (e.g. tests/data/results-doc)")
    s.set_defaults(prov=False)  # a page in the repository, not a result: its header cites the tables' sidecars
