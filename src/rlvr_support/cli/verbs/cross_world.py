"""`python -m rlvr_support cross-world`: which claim verdicts hold in several toy worlds (analysis/cross_world.py).
Run by no rule: it reads two finished trees (make cross-world); registered by cli/main.py.
"""

from __future__ import annotations

import re

from rlvr_support.cli.tables import write_table


def cmd_cross_world(a):
    import pandas as pd

    from rlvr_support.analysis.cross_world import cross_world_markdown, cross_world_table

    claims = {}
    for pair in a.claims:
        label, _, path = pair.partition("=")
        if not path or not re.fullmatch(r"[a-z][a-z0-9_-]*", label):
            raise ValueError(f"--claims {pair!r}: expected label=claims.csv with a label like world1")
        if label in claims:
            raise ValueError(f"--claims: world {label!r} given twice")
        claims[label] = pd.read_csv(path)
    table = cross_world_table(claims)
    print(write_table(table, a.out, markdown=cross_world_markdown(table, list(claims))))
    print(table["holds"].value_counts().to_string())


def register(verb) -> None:
    s = verb("cross-world", cmd_cross_world,
             "Which claim verdicts hold in every toy world: the claims tables of studies that differ in world.seed, "
             "side by side (configs/toy-world2.yaml; make run-world2).")
    s.add_argument("--claims", nargs="+", required=True,
                   help="label=claims.csv per world, e.g. world1=results/tables/claims.csv "
                        "world2=world2/results/tables/claims.csv")
    s.add_argument("--out", required=True, help="CSV (the Markdown table is written beside it), e.g. "
                                                "results/tables/cross_world.csv")
