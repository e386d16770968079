"""Every claim of the claims table, and the names of the input tables the claims job takes.

A claim is one declaration (claim.Claim) in the module of the table it reads; a new table gets a new
module, listed here. The claims job then takes that table as `name=path` (`--tables`), and a claim
whose table it is not given is not measured. Within each place (claim.py) the table keeps the order
of CLAIMS.
"""

from __future__ import annotations

import re

from rlvr_support.analysis.claims import (association, decomposition, entropy, js_share, opening_modes, passk,
                                          perplexity, reasoning_if, single_token, support, trainability)
from rlvr_support.analysis.claims.claim import SCORES

CLAIMS = [*passk.CLAIMS, *support.CLAIMS, *entropy.CLAIMS, *js_share.CLAIMS, *decomposition.CLAIMS,
          *perplexity.CLAIMS, *opening_modes.CLAIMS, *trainability.CLAIMS, *reasoning_if.CLAIMS,
          *single_token.CLAIMS, *association.CLAIMS]

# the tables with rows per RL seed, and how to take one seed's rows (table.seed_stability_table);
# the claims of the other tables, pooled over seeds, are `n/a` per seed
ONE_SEED = {**support.ONE_SEED, **opening_modes.ONE_SEED}


def table_names() -> list[str]:
    """Every table a claim reads or cites, in the order of CLAIMS; `{eval_set}` stands for an eval set."""
    return list(dict.fromkeys(n for c in CLAIMS for n in (c.reads, c.cites) if n and n != SCORES))


def _matches(template: str, name: str) -> bool:
    return re.fullmatch(re.sub(r"\\\{\w+\\\}", r"[\\w.-]+", re.escape(template)), name) is not None


def is_read(name: str) -> bool:
    """Whether a claim reads the table (the others are only named in `source` cells: no need to load them)."""
    return any(c.reads != SCORES and _matches(c.reads, name) for c in CLAIMS)


def parse_tables(items: list[str]) -> dict[str, str]:
    """`name=path` arguments (`passk=results/tables/passk.csv intervention_decomposition_math=...`) as {name: path}, in
    order; an error names a pair that is malformed, or a table no claim reads or cites, or one given twice."""
    names = table_names()
    out = {}
    for item in items:
        name, eq, path = item.partition("=")
        if not eq or not name or not path:
            raise ValueError(f"--tables: expected name=path, got {item!r}")
        if not any(_matches(n, name) for n in names):
            raise ValueError(f"--tables: unknown table {name!r}: no claim reads or cites it (the tables: "
                             f"{', '.join(names)})")
        if name in out:
            raise ValueError(f"--tables: table {name!r} given twice ({out[name]}, {path})")
        out[name] = path
    return out
