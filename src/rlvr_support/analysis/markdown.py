"""The Markdown table writer, defined once (no tabulate dependency): every `.md` table of the
study goes through `markdown_table`; cells are formatted by `cell` (plain values) and
`ci_cell` (`value [lo, hi]`)."""

from __future__ import annotations

import numpy as np
import pandas as pd


def escape(v) -> str:
    """`str(v)` with `|` escaped, so a value cannot split its row."""
    return str(v).replace("|", "\\|")


def cell(v, digits: int = 3) -> str:
    """A value as a table cell: floats to fixed precision, `|` escaped so it cannot split the row."""
    if isinstance(v, (bool, np.bool_)):
        return str(bool(v))
    if isinstance(v, (float, np.floating)):
        return "nan" if np.isnan(v) else f"{v:.{digits}f}"
    return "" if v is None else escape(v)


def ci_cell(value: float, lo: float, hi: float, fmt: str = ".3f") -> str:
    """`value [lo, hi]`; fmt `+.3f` shows signed effects."""
    return f"{value:{fmt}} [{lo:{fmt}}, {hi:{fmt}}]"


def markdown_table(header: list[str], rows: list[list[str]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(r) + " |" for r in rows]
    return "\n".join(lines) + "\n"


def df_to_markdown(df: pd.DataFrame, digits: int = 3) -> str:
    """Every column of `df`, one row per row."""
    return markdown_table(list(df.columns), [[cell(v, digits) for v in row] for row in df.itertuples(index=False)])


def ci_markdown(df: pd.DataFrame, value_cols: list[str]) -> str:
    """Identifying columns as they are, then one `value [lo, hi]` cell per value column (`<col>_lo`, `<col>_hi`)."""
    id_cols = [c for c in df.columns if c not in value_cols and not c.endswith(("_lo", "_hi"))]
    rows = [[escape(r[c]) for c in id_cols] + [ci_cell(r[c], r[c + "_lo"], r[c + "_hi"]) for c in value_cols]
            for _, r in df.iterrows()]
    return markdown_table(id_cols + value_cols, rows)
