"""Atomic writes: a reader never sees a half-written output, a failed job leaves none behind."""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import tempfile
from pathlib import Path


@contextlib.contextmanager
def atomic_path(path: str | os.PathLike, suffix: str = ""):
    """Yield a temporary path beside `path`; rename it onto `path` only if the block succeeds."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=suffix or path.suffix, dir=path.parent)
    os.close(fd)
    try:
        yield Path(tmp)
        os.replace(tmp, path)
    finally:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)


@contextlib.contextmanager
def atomic_dir(path: str | os.PathLike):
    """Yield a temporary directory beside `path`; it replaces `path` only if the block succeeds."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{path.name}.", dir=path.parent))
    try:
        yield tmp
        publish_dir(tmp, path)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def publish_dir(staged: str | os.PathLike, path: str | os.PathLike) -> None:
    """Move a finished directory onto `path` (same filesystem), replacing what was there."""
    path = Path(path)
    if path.exists():
        shutil.rmtree(path)
    os.replace(staged, path)


def write_text(path, text: str) -> None:
    with atomic_path(path) as tmp:
        tmp.write_text(text)


def write_json(path, obj) -> None:
    write_text(path, json.dumps(obj, indent=2, sort_keys=True, default=str) + "\n")


def write_jsonl(path, records) -> None:
    with atomic_path(path) as tmp, open(tmp, "w") as f:
        for r in records:
            f.write(json.dumps(r, sort_keys=True) + "\n")


def read_jsonl(path) -> list[dict]:
    """Read JSONL; a bad line is an error naming the file and line, never a silent skip."""
    out = []
    with open(path) as f:
        for i, line in enumerate(f, 1):
            if not line.strip():
                continue
            try:
                out.append(json.loads(line))
            except json.JSONDecodeError as e:
                raise ValueError(f"{path}:{i}: not valid JSON ({e.msg})") from None
    return out


def write_parquet(path, df) -> None:
    with atomic_path(path) as tmp:
        df.to_parquet(tmp, index=False)


def read_parquet(path):
    """Read a Parquet file; a cut or corrupt file is an error naming it."""
    import pandas as pd
    import pyarrow

    try:
        return pd.read_parquet(path)
    except (pyarrow.ArrowInvalid, OSError) as e:
        raise ValueError(f"{path}: unreadable Parquet file (truncated or corrupt?): {e}") from None


class MissingColumnError(KeyError):
    """A table lacks a column that is needed. Raised where the table is used, which knows the
    column but not the file it was read from; cli/main.py names the input file that lacks it."""

    def __init__(self, column: str, table: str):
        super().__init__(column)
        self.column, self.table = column, table

    def __str__(self) -> str:
        return f"{self.table}: missing column {self.column!r}"


def columns_of(path) -> list[str] | None:
    """The column names of a Parquet or CSV file (from its schema or header line); None for any
    other file or one that cannot be read."""
    import csv

    import pyarrow
    import pyarrow.parquet as pq

    path = Path(path)
    try:
        if path.suffix == ".parquet":
            return list(pq.read_schema(path).names)
        if path.suffix == ".csv":
            with open(path, newline="") as f:
                return next(csv.reader(f), [])
    except (pyarrow.ArrowInvalid, OSError, UnicodeDecodeError, csv.Error):
        return None
    return None
