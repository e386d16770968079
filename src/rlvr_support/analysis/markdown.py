"""A DataFrame as a Markdown table (numbers to fixed precision; no tabulate dependency)."""

from __future__ import annotations

import numpy as np
import pandas as pd


def _cell(v, digits: int) -> str:
    if isinstance(v, (bool, np.bool_)):
        return str(bool(v))
    if isinstance(v, (float, np.floating)):
        return "nan" if np.isnan(v) else f"{v:.{digits}f}"
    return "" if v is None else str(v).replace("|", "\\|")


def df_to_markdown(df: pd.DataFrame, digits: int = 3) -> str:
    cols = list(df.columns)
    lines = ["| " + " | ".join(cols) + " |", "|" + "---|" * len(cols)]
    for row in df.itertuples(index=False):
        lines.append("| " + " | ".join(_cell(v, digits) for v in row) + " |")
    return "\n".join(lines) + "\n"
