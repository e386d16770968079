"""`python -m rlvr_support results-doc`: the results page (docs/results.md) generated from a finished results tree
(review/results_page.py). Run by no rule: it reads a finished tree (make results-doc); registered by cli/main.py.
"""

from __future__ import annotations

import sys
from pathlib import Path


def cmd_results_doc(a):
    from rlvr_support.review import results_page
    from rlvr_support.storage.atomic import write_text

    out = Path(a.out)
    page = out.read_text() if out.is_file() else ""
    pages = [(out, page, results_page.splice(page, results_page.generated(a.results)))]
    if a.summary:
        readme = Path(a.summary)
        text = readme.read_text()
        pages.append((readme, text, results_page.splice_summary(text, results_page.summary(a.results))))
    if a.check:
        for path, old, new in pages:
            diff = results_page.first_difference(old, new)
            if diff:
                print(f"error: {path} is not what {a.results} gives ({diff}); regenerate it with "
                      f"`python -m rlvr_support results-doc {a.results} --out {out}"
                      f"{f' --summary {a.summary}' if a.summary else ''}`", file=sys.stderr)
                return 1
            print(f"{path} matches {a.results}")
        return 0
    for path, _, new in pages:
        write_text(path, new)
        print(f"{path}: generated part from {a.results}")
    if a.copy_inputs:
        copied = results_page.copy_inputs(a.results, a.copy_inputs)
        print(f"{len(copied)} files it was made from copied to {a.copy_inputs}")
    return 0


def register(verb) -> None:
    s = verb("results-doc", cmd_results_doc,
             "Write the results page (docs/results.md) from a finished results tree: its claims, seed-stability, "
             "remedies (and cross-world) tables as the pipeline wrote them, under a header naming the commit, config "
             "files, RL seeds and numerics from their sidecars; only the part between the page's markers changes. "
             "A tree of fewer RL seeds than a verdict needs (make run's one) is refused and nothing is written.")
    s.add_argument("results", help="the results folder of a finished study (results/)")
    s.add_argument("--out", required=True, help="the page (docs/results.md); created if missing")
    s.add_argument("--summary", metavar="README",
                   help="also write the verdict counts between the summary markers of this page (README.md)")
    s.add_argument("--check", action="store_true",
                   help="write nothing: exit 1 if a page's generated part differs from what the tree gives")
    s.add_argument("--copy-inputs", metavar="DIR",
                   help="also copy the tables and sidecars the page is made from to DIR (e.g. tests/data/results-doc)")
    s.set_defaults(prov=False)  # a page in the repository, not a result: its header cites the tables' sidecars
