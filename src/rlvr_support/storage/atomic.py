"""Atomic writes: a reader never sees a half-written output, a failed job leaves none behind.

Shared clusters: a finished output has the mode an ordinary `open` would give it (0666 and
folders 0777, less the umask), not mkstemp's private 0600/0700, so colleagues can read
results; a published folder's files get it too, whatever wrote them (safetensors writes its
weights 0600: `shared_modes`). It is fsynced before the rename and its folder after, so a crash right after a job
"finished" cannot leave a renamed but empty file. A temp file is named
`.<name>.tmp-<pid>-<random><suffix>`; one whose process is gone (a SIGKILL mid-write) is
removed when a job next writes that output (`remove_stale_temps`).
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import tempfile
from pathlib import Path

_TEMP_MARK = ".tmp-"


def current_umask() -> int:
    """The process umask, read without changing it where /proc allows (os.umask can only be
    read by setting it, which races other threads creating files)."""
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError):
        pass
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def _temp_prefix(path: Path) -> str:
    return f".{path.name}{_TEMP_MARK}{os.getpid()}-"


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # someone else's live process
        return True
    return True


def remove_stale_temps(path: str | os.PathLike) -> list[Path]:
    """Remove the temp files (and folders) left beside `path` by writers that died, and inside
    `path` when it is an output folder; returns what was removed.

    A temp whose writer is another live process is kept, and so is anything that is not one of
    ours by name. Temps named before the pid was in the name (`.<name>.<8 random><suffix>`)
    have no writer to ask and are removed."""
    path = Path(path)
    name = re.escape(f".{path.name}")
    beside = re.compile(name + re.escape(_TEMP_MARK) + r"(\d+)-[a-z0-9_]+|" + name + r"\.[a-z0-9_]{8}(?:\.\w+)?$")
    inside = re.compile(r"\..+" + re.escape(_TEMP_MARK) + r"(\d+)-[a-z0-9_]+")
    removed = []
    for folder, pattern in ((path.parent, beside), (path, inside)):
        if not folder.is_dir():
            continue
        for entry in list(folder.iterdir()):
            m = pattern.match(entry.name)
            if not m:
                continue
            pid = m.group(1)  # None for a legacy name
            if pid and int(pid) != os.getpid() and _pid_alive(int(pid)):
                continue
            if entry.is_dir() and not entry.is_symlink():
                shutil.rmtree(entry, ignore_errors=True)
            else:
                entry.unlink(missing_ok=True)
            removed.append(entry)
    return removed


def _fsync_path(path: str | os.PathLike, directory: bool = False) -> None:
    fd = os.open(path, os.O_RDONLY | (getattr(os, "O_DIRECTORY", 0) if directory else 0))
    try:
        os.fsync(fd)
    except OSError:
        if not directory:  # some filesystems cannot fsync a folder; a file must be on disk
            raise
    finally:
        os.close(fd)


def _fsync_tree(root: Path) -> None:
    for folder, _, files in os.walk(root, topdown=False):
        for name in files:
            p = os.path.join(folder, name)
            if not os.path.islink(p):
                _fsync_path(p)
        _fsync_path(folder, directory=True)


@contextlib.contextmanager
def _naming(path: Path):
    """An error creating the temp file of `path` names `path` (the output), not the temp name."""
    try:
        yield
    except OSError as e:
        raise type(e)(e.errno, e.strerror, str(path)) from None


@contextlib.contextmanager
def atomic_path(path: str | os.PathLike, suffix: str = ""):
    """Yield a temporary path beside `path`; rename it onto `path` only if the block succeeds."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    remove_stale_temps(path)
    with _naming(path):
        fd, tmp = tempfile.mkstemp(prefix=_temp_prefix(path), suffix=suffix or path.suffix, dir=path.parent)
    os.close(fd)
    try:
        yield Path(tmp)
        os.chmod(tmp, 0o666 & ~current_umask())
        _fsync_path(tmp)
        os.replace(tmp, path)
        _fsync_path(path.parent, directory=True)
    finally:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)


@contextlib.contextmanager
def atomic_dir(path: str | os.PathLike):
    """Yield a temporary directory beside `path`; it replaces `path` only if the block succeeds."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    remove_stale_temps(path)
    with _naming(path):
        tmp = Path(tempfile.mkdtemp(prefix=_temp_prefix(path), dir=path.parent))
    try:
        os.chmod(tmp, 0o777 & ~current_umask())
        yield tmp
        publish_dir(tmp, path)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def shared_modes(root: str | os.PathLike) -> None:
    """Give `root` and every folder and file under it the mode the umask gives a new one (0777 / 0666
    less the umask). Some writers create private files whatever the umask says: safetensors writes
    model.safetensors 0600, and a cluster's collaborators could not read the checkpoints."""
    mask = current_umask()
    for folder, _, files in os.walk(root):
        os.chmod(folder, 0o777 & ~mask)
        for name in files:
            p = os.path.join(folder, name)
            if not os.path.islink(p):
                os.chmod(p, 0o666 & ~mask)


def publish_dir(staged: str | os.PathLike, path: str | os.PathLike) -> None:
    """Move a finished directory onto `path` (same filesystem), replacing what was there; its files
    get the umask's modes and are fsynced first, the parent folder after."""
    path = Path(path)
    shared_modes(staged)
    _fsync_tree(Path(staged))
    if path.exists():
        shutil.rmtree(path)
    os.replace(staged, path)
    _fsync_path(path.parent, directory=True)


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


def read_parquet(path, columns: list[str] | None = None):
    """Read a Parquet file (only `columns`, those of them it has, when given); a cut or corrupt
    file is an error naming it.

    With `columns`, row groups are decoded batch by batch, so the columns not asked for (a
    sample file's per-token arrays: 90% of its bytes) are never in memory."""
    import pandas as pd
    import pyarrow
    import pyarrow.parquet as pq

    try:
        if columns is None:
            return pd.read_parquet(path)
        f = pq.ParquetFile(path)
        schema = f.schema_arrow
        have = [c for c in columns if c in schema.names]
        schema = pyarrow.schema([schema.field(c) for c in have], metadata=schema.metadata)
        return pyarrow.Table.from_batches(list(f.iter_batches(columns=have)), schema).to_pandas()
    except (pyarrow.ArrowInvalid, OSError) as e:
        raise ValueError(f"{path}: unreadable Parquet file (truncated or corrupt?): {e}") from None


def _read_checked(path, schema, what: str, columns: list[str] | None):
    import pyarrow
    import pyarrow.parquet as pq

    from rlvr_support.storage.schemas import schema_problem

    try:
        have = pq.read_schema(path)
    except (pyarrow.ArrowInvalid, OSError) as e:
        raise ValueError(f"{path}: unreadable Parquet file (truncated or corrupt?): {e}") from None
    if problem := schema_problem(path, have, schema, what):
        raise ValueError(problem)
    return read_parquet(path, columns)


def read_samples(path, columns: list[str] | None = None):
    """A samples file (read_parquet), checked first against the samples schema (storage/schemas.py)."""
    from rlvr_support.storage.schemas import ROUTED_SAMPLE_SCHEMA

    return _read_checked(path, ROUTED_SAMPLE_SCHEMA, "samples", columns)


def read_scores(path, columns: list[str] | None = None):
    """A scores file (read_parquet), checked first against the scores schema (storage/schemas.py)."""
    from rlvr_support.storage.schemas import SCORE_SCHEMA

    return _read_checked(path, SCORE_SCHEMA, "scores", columns)


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
