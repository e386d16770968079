"""Reading a source file as a stream: JSONL line by line, Parquet batch by batch.

Every error names the file and the line (JSONL) or row (Parquet). A JSONL file's last line
without its newline that does not parse is reported as a truncated file (a writer killed
mid-line), not as malformed JSON, since the fix differs: rerun the tool, not edit a line.
`.gz` files are read through gzip (lm-eval's pushed samples are sometimes stored so).
"""

from __future__ import annotations

import gzip
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from rlvr_support.imports.records import ImportFormatError

PARQUET_BATCH_ROWS = 256  # rows decoded at once: a TRL or lighteval row holds a few KB to a few MB of text


def check_not_empty(path: Path) -> None:
    if not path.exists():
        raise ImportFormatError(str(path), None, "no such file")
    if path.stat().st_size == 0:
        raise ImportFormatError(str(path), None, "empty file (0 bytes): the tool wrote nothing, or the copy failed")


def json_lines(path: str | Path) -> Iterator[tuple[str, dict[str, Any]]]:
    """("path:line", object) for every non-blank line; errors name the line (module doc)."""
    path = Path(path)
    check_not_empty(path)
    opener = gzip.open if path.suffix == ".gz" else open
    seen = False
    with opener(path, "rb") as f:
        for lineno, line in enumerate(f, 1):
            if not line.strip():
                continue
            where = f"{path}:{lineno}"
            try:
                obj = json.loads(line)
            except (json.JSONDecodeError, UnicodeDecodeError) as e:
                if not line.endswith(b"\n"):
                    raise ImportFormatError(where, None, "truncated last line (it does not end in a newline and is not "
                                                         "complete JSON): the file was cut off while being written") from None
                raise ImportFormatError(where, None, f"not valid JSON ({getattr(e, 'msg', e)})") from None
            if not isinstance(obj, dict):
                raise ImportFormatError(where, None, f"expected a JSON object per line, got {type(obj).__name__}")
            seen = True
            yield where, obj
    if not seen:
        raise ImportFormatError(str(path), None, "empty file (only blank lines)")


def parquet_rows(path: str | Path, columns: list[str] | None = None) -> Iterator[tuple[str, dict[str, Any]]]:
    """("path:row N", row as a dict) for every row, decoded PARQUET_BATCH_ROWS at a time."""
    import pyarrow
    import pyarrow.parquet as pq

    path = Path(path)
    check_not_empty(path)
    try:
        f = pq.ParquetFile(path)
    except (pyarrow.ArrowInvalid, OSError) as e:
        raise ImportFormatError(str(path), None, f"not a readable Parquet file ({e})") from None
    if f.metadata.num_rows == 0:
        raise ImportFormatError(str(path), None, "empty file (a Parquet file with no rows)")
    have = f.schema_arrow.names
    if columns is not None:
        missing = [c for c in columns if c not in have]
        if missing:
            raise ImportFormatError(f"{path}:row 0", missing[0], f"missing column (the file's columns: {', '.join(have)})")
    row = 0
    for batch in f.iter_batches(batch_size=PARQUET_BATCH_ROWS):
        for obj in batch.to_pylist():
            yield f"{path}:row {row}", obj
            row += 1


def parquet_columns(path: str | Path) -> list[str]:
    import pyarrow
    import pyarrow.parquet as pq

    try:
        return pq.read_schema(path).names
    except (pyarrow.ArrowInvalid, OSError) as e:
        raise ImportFormatError(str(path), None, f"not a readable Parquet file ({e})") from None
