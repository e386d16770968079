"""How table verbs write a table: CSV, with its Markdown twin beside it (cli/verbs/).

Every verb's tables go through here, so the CSV format of the results tree (no index, six decimals)
is decided once; a table that renders its own Markdown (CI cells, a summary, a note under it)
passes that text, and the twin still lands beside the CSV, where `audit` looks for it."""

from __future__ import annotations

from pathlib import Path


def write_csv(df, out, float_format: str | None = "%.6f") -> None:
    """The CSV alone: a table without a Markdown twin (agreement-table), or the rows beside a
    Markdown report (budget)."""
    from rlvr_support.storage.atomic import write_text

    write_text(out, df.to_csv(index=False, float_format=float_format))


def write_table(df, out, digits: int = 4, markdown: str | None = None) -> str:
    """`df` as CSV at `out` and as Markdown beside it (`.md`): every column at `digits` decimals,
    or `markdown` when the table has a rendering of its own. Returns the Markdown, which some
    verbs also print."""
    from rlvr_support.analysis.markdown import df_to_markdown
    from rlvr_support.storage.atomic import write_text

    write_csv(df, out)
    md = df_to_markdown(df, digits) if markdown is None else markdown
    write_text(Path(out).with_suffix(".md"), md)
    return md
