"""Which claim verdicts hold in more than one toy world: the claims tables of studies that differ only
in `world.seed` (configs/toy-world2.yaml), side by side.

A toy world is one draw of problems, instruction templates and corpus; a verdict that holds in one
draw may belong to that draw. One row per claim row (claim, chain, eval set, benchmark) of any
world, with each world's effect, CI and verdict, and `holds`:

* `agree in all` / `disagree in all` / `inconclusive in all`: the same verdict in every world;
* `differs`: verdicts in every world, not all the same;
* `no verdict`: a world has the row with fewer than 3 RL seeds (`1 seed`, claims.claim_verdict);
* `only in <worlds>`: the row is missing from a world (its study lacks the chain or eval set).
"""

from __future__ import annotations

import pandas as pd

from rlvr_support.analysis.markdown import cell, ci_cell, markdown_table

KEY = ["claim", "chain", "eval_set", "benchmark"]
VERDICTS = ("agree", "disagree", "inconclusive")


def holds(verdicts: dict[str, str | None]) -> str:
    """`holds` of one claim row from its verdict per world (None: no such row in that world)."""
    present = [w for w, v in verdicts.items() if v is not None]
    if len(present) < len(verdicts):
        return f"only in {', '.join(present)}"
    if any(v not in VERDICTS for v in verdicts.values()):
        return "no verdict"
    first = next(iter(verdicts.values()))
    return f"{first} in all" if all(v == first for v in verdicts.values()) else "differs"


def cross_world_table(claims: dict[str, pd.DataFrame]) -> pd.DataFrame:
    """{world label: its claims table} -> one row per claim row, every world's effect, CI and verdict, `holds`."""
    if len(claims) < 2:
        raise ValueError(f"cross-world needs the claims tables of at least two worlds, got {len(claims)}")
    for world, t in claims.items():
        missing = [c for c in [*KEY, "expected_sign", "effect", "ci_low", "ci_high", "n_seeds", "verdict"]
                   if c not in t.columns]
        if missing:
            raise ValueError(f"claims table of world {world!r}: no column {missing[0]!r}")
        dup = t.duplicated(KEY)
        if dup.any():
            raise ValueError(f"claims table of world {world!r}: claim row {tuple(t.loc[dup, KEY].iloc[0])} twice")
    keys = list(dict.fromkeys(k for t in claims.values() for k in map(tuple, t[KEY].itertuples(index=False))))
    indexed = {w: t.set_index(KEY) for w, t in claims.items()}
    rows = []
    for key in keys:
        row = dict(zip(KEY, key))
        verdicts = {}
        for w, t in indexed.items():
            r = t.loc[key] if key in t.index else None
            row.setdefault("expected_sign", r["expected_sign"] if r is not None else None)
            for col in ("effect", "ci_low", "ci_high", "n_seeds"):
                row[f"{w}_{col}"] = r[col] if r is not None else float("nan")
            verdicts[w] = r["verdict"] if r is not None else None
            row[f"{w}_verdict"] = verdicts[w] if r is not None else "n/a"
        row["holds"] = holds(verdicts)
        rows.append(row)
    return pd.DataFrame(rows)


def cross_world_markdown(df: pd.DataFrame, worlds: list[str]) -> str:
    header = ["claim", "chain", "eval set", "benchmark", "expected", *worlds, "holds"]
    body = []
    for _, r in df.iterrows():
        cells = [(f"{ci_cell(r[f'{w}_effect'], r[f'{w}_ci_low'], r[f'{w}_ci_high'], '+.3f')} {r[f'{w}_verdict']}"
                  if r[f"{w}_verdict"] != "n/a" else "n/a") for w in worlds]
        body.append([cell(r["claim"]), cell(r["chain"]), cell(r["eval_set"]), cell(r["benchmark"]),
                     cell(r["expected_sign"]), *cells, cell(r["holds"])])
    return markdown_table(header, body)
