"""How table verbs write a table: CSV, with its Markdown twin beside it (cli/verbs/)."""

from __future__ import annotations

from pathlib import Path


def write_table(df, out: str, digits: int = 4) -> None:
    from rlvr_support.analysis.markdown import df_to_markdown
    from rlvr_support.storage.atomic import write_text

    write_text(out, df.to_csv(index=False, float_format="%.6f"))
    write_text(Path(out).with_suffix(".md"), df_to_markdown(df, digits))
