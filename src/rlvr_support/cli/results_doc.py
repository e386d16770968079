"""CLI verbs of the published results: the results page generated from a results tree (lineage/results_page.py)
and the table of which claim verdicts hold in several toy worlds (analysis/cross_world.py). Registered
into `python -m rlvr_support` by cli.build_parser; neither runs inside the study's DAG (both read
finished trees, and cross-world reads two)."""

from __future__ import annotations

import re
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


def cmd_cross_world(a):
    import pandas as pd

    from rlvr_support.analysis.cross_world import cross_world_markdown, cross_world_table
    from rlvr_support.storage.atomic import write_text

    claims = {}
    for pair in a.claims:
        label, _, path = pair.partition("=")
        if not path or not re.fullmatch(r"[a-z][a-z0-9_-]*", label):
            raise ValueError(f"--claims {pair!r}: expected label=claims.csv with a label like world1")
        if label in claims:
            raise ValueError(f"--claims: world {label!r} given twice")
        claims[label] = pd.read_csv(path)
    table = cross_world_table(claims)
    write_text(a.out, table.to_csv(index=False, float_format="%.6f"))
    md = cross_world_markdown(table, list(claims))
    write_text(Path(a.out).with_suffix(".md"), md)
    print(md)
    print(table["holds"].value_counts().to_string())


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

    s = verb("cross-world", cmd_cross_world,
             "Which claim verdicts hold in every toy world: the claims tables of studies that differ in world.seed, "
             "side by side (configs/toy-world2.yaml; make run-world2).")
    s.add_argument("--claims", nargs="+", required=True,
                   help="label=claims.csv per world, e.g. world1=results/tables/claims.csv "
                        "world2=world2/results/tables/claims.csv")
    s.add_argument("--out", required=True, help="CSV (the Markdown table is written beside it), e.g. "
                                                "results/tables/cross_world.csv")
