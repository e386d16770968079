"""Where raw rows come from: a Hugging Face dataset by name, or a local JSONL/Parquet file.

`datasets.load_dataset` is called through this module (`load_hub_rows`), so tests can
monkeypatch `datasets.load_dataset` and still exercise the real code path.
"""

from __future__ import annotations

import re
from pathlib import Path

from rlvr_support.storage.atomic import read_jsonl


def load_hub_rows(name: str, config: str | None, split: str, revision: str | None = None,
                  data_files: str | None = None) -> tuple[list[dict], str | None]:
    """(rows, commit): the rows of `split` of the hub dataset `name` (optionally its `config`, pinned
    `revision`, or one of its files, `data_files`, for repos of plain JSONL files such as
    TingchenFu/MathIF), and the hub commit they were read from (`dataset_commit`)."""
    import datasets

    extra = {"data_files": data_files} if data_files else {}
    try:
        ds = datasets.load_dataset(name, config, split=split, revision=revision, **extra)
    except Exception as e:  # network, auth, unknown split: say which source failed
        raise ValueError(f"cannot load Hugging Face dataset {name!r} (config={config!r}, split={split!r}): "
                         f"{type(e).__name__}: {e}") from None
    return [dict(r) for r in ds], dataset_commit(ds)


def dataset_commit(ds) -> str | None:
    """The hub commit a loaded dataset was read from, whatever `revision` asked for (a branch, or
    nothing): `datasets` resolves the revision to a commit first and caches the prepared rows
    in a folder named by it (builder.hash), as huggingface_hub names a model snapshot. None for
    a dataset without cache files (in memory) or a cache path of another shape."""
    for f in getattr(ds, "cache_files", None) or []:
        folder = Path(f["filename"]).parent.name
        if re.fullmatch(r"[0-9a-f]{40}", folder):
            return folder
    return None


def load_file_rows(path: str | Path) -> list[dict]:
    """Rows of a local .jsonl/.json-lines or .parquet file."""
    path = Path(path)
    if not path.exists():
        raise FileNotFoundError(f"data source file {path} does not exist")
    if path.suffix == ".parquet":
        import pandas as pd

        df = pd.read_parquet(path)
        return [_plain(r) for r in df.to_dict(orient="records")]
    if path.suffix in (".jsonl", ".json"):
        return read_jsonl(path)
    raise ValueError(f"data source file {path}: expected .jsonl or .parquet")


def _plain(value):
    """Parquet gives numpy arrays for list columns; the record contract wants JSON types."""
    import numpy as np

    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple, np.ndarray)):
        return [_plain(v) for v in value]
    if isinstance(value, np.generic):
        return value.item()
    return value
