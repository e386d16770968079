"""Recompute a table from the inputs its sidecar names, and compare it with the table cell by cell.

What `audit` does for every table it meets (unless `--quick`): a matching sha256 only says that
file and sidecar agree, and whoever edits one cell can write the new sha256 into the sidecar. So
the job that wrote the table is run again, as its sidecar records it (verb and arguments; the
config sections are among them), in its working directory, on the same inputs (whose own sha256
the audit has just checked against their sidecars), with the current code, its outputs written
to a scratch folder; then every cell of each table it wrote is compared with the file in the tree.

A table is an output in CSV, and the Markdown file the same job wrote beside it. Numbers match
within `ABS_TOL` + `REL_TOL` x |value|, and within one unit of the last decimal both cells show: a
recomputation on another machine may sum in another order and round a value that sits on a rounding
boundary the other way (the CSV tables' six decimals are inside ABS_TOL; a Markdown table's four are
not: 0.09375 written as 0.0938 by the job and 0.0937 by an audit whose numpy summed in wider vectors).
Text matches exactly.
A figure is not recomputed: the numbers it draws are its table's, checked here, and its sidecar
records which version of the table it was drawn from (the audit compares that sha256).

A table verb must therefore be a pure function of its input files and arguments (the bootstrap
is seeded from the config): every table verb of the workflow is. The rerun itself is given by the
caller (cli/main.py `rerun_verb`), since the verbs live above this layer.
"""

from __future__ import annotations

import csv
import math
import os
import re
import shutil
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

ABS_TOL, REL_TOL = 2e-6, 1e-6
TABLE_SUFFIXES = (".csv", ".md")
SHOWN = 3  # differing cells named per table
_NUMBER = re.compile(r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?|[-+]?(?:nan|inf)\b", re.IGNORECASE)

# rerun(argv, scratch folder) -> {recorded output path: the path the rerun wrote it to}
Rerun = Callable[[list[str], Path], dict[str, Path]]


def _number(text: str) -> float | None:
    try:
        return float(text)
    except ValueError:
        return None


def _last_decimal(text: str) -> float:
    """One unit of the last decimal a number is written with (0.0938 -> 1e-4); 0 for an integer or exponent."""
    text = text.strip()
    return 0.0 if "." not in text or "e" in text.lower() else 10.0 ** -len(text.split(".")[1])


def same_value(a: str, b: str) -> bool:
    """Two cells as written: numbers within the tolerance or one unit of the last decimal both show (NaN
    equals NaN), anything else exactly."""
    if a == b:
        return True
    x, y = _number(a), _number(b)
    if x is None or y is None:
        return False
    if math.isnan(x) or math.isnan(y):
        return math.isnan(x) and math.isnan(y)
    # 1.5 units: one unit between two roundings, as a float difference (0.0938 - 0.0937 is 1.0000000000000009e-4)
    rounding = 1.5 * min(_last_decimal(a), _last_decimal(b))
    return math.isclose(x, y, rel_tol=REL_TOL, abs_tol=max(ABS_TOL, rounding))


def _rows(path: Path) -> list[list[str]]:
    with open(path, newline="", encoding="utf-8") as f:
        return list(csv.reader(f))


KEY_COLUMNS = ("k", "seed", "step", "position", "m")  # numbers that say which row it is, not measurements


def _row_name(header: list[str], row: list[str], i: int) -> str:
    """A row by the cells that say what it is (chain=math, eval_set=if, metric=pass@k, k=1 ...)."""
    keys = [f"{c}={v}" for c, v in zip(header, row) if v and (_number(v) is None or c in KEY_COLUMNS)][:6]
    return f"row {i}" + (f" ({', '.join(keys)})" if keys else "")


def csv_differences(table: Path, again: Path) -> tuple[int, list[str]]:
    """(how many cells differ, the first SHOWN of them described) between two CSV tables."""
    a, b = _rows(table), _rows(again)
    if not a or not b or a[0] != b[0]:
        return 1, [f"columns {a[0] if a else []} in the table, {b[0] if b else []} recomputed"]
    header, n, shown = a[0], 0, []
    if len(a) != len(b):
        n, shown = 1, [f"{len(a) - 1} rows in the table, {len(b) - 1} recomputed"]
    for i, (ra, rb) in enumerate(zip(a[1:], b[1:]), 1):
        for col, x, y in zip(header, ra, rb):
            if not same_value(x, y):
                n += 1
                if len(shown) < SHOWN:
                    shown.append(f"{_row_name(header, ra, i)}, column {col}: the table says {x}, recomputed {y}")
        if len(ra) != len(rb):
            n += 1
    return n, shown


def text_differences(table: Path, again: Path) -> tuple[int, list[str]]:
    """Markdown (or any text): line by line, the numbers in it within the tolerance, the rest exactly."""
    a = table.read_text(encoding="utf-8").splitlines()
    b = again.read_text(encoding="utf-8").splitlines()
    n, shown = (1, [f"{len(a)} lines in the table, {len(b)} recomputed"]) if len(a) != len(b) else (0, [])
    for i, (x, y) in enumerate(zip(a, b), 1):
        nx, ny = _NUMBER.findall(x), _NUMBER.findall(y)
        same = (_NUMBER.sub("#", x) == _NUMBER.sub("#", y) and len(nx) == len(ny)
                and all(same_value(p, q) for p, q in zip(nx, ny)))
        if not same:
            n += 1
            if len(shown) < SHOWN:
                shown.append(f"line {i}: the table says {x.strip()!r}, recomputed {y.strip()!r}")
    return n, shown


def differences(table: Path, again: Path) -> tuple[int, list[str]]:
    return csv_differences(table, again) if table.suffix == ".csv" else text_differences(table, again)


def is_table_job(rec: dict) -> bool:
    """A job whose outputs include a CSV table: its tables are recomputed."""
    return any(Path(o["path"]).suffix == ".csv" for o in rec.get("outputs", []))


def _job_key(rec: dict) -> tuple:
    return rec.get("tree") or rec.get("cwd"), rec.get("started"), tuple(rec.get("command", []))


@dataclass
class Outcome:
    """One table against its recomputation: `problem` None when every cell matches."""
    cells: int
    problem: str | None
    seconds: float


@dataclass
class Recomputer:
    """Reruns each table job once (a job's tables share one rerun) and compares its tables."""
    rerun: Rerun
    jobs: dict = field(default_factory=dict)  # job key -> ({recorded output: rerun's file}, seconds) or error text
    scratch: Path | None = None
    seconds: float = 0.0

    def _run(self, rec: dict, root: Path):
        key = _job_key(rec)
        if key not in self.jobs:
            if self.scratch is None:
                self.scratch = Path(tempfile.mkdtemp(prefix="rlvr-audit-"))
            t0 = time.time()
            self.jobs[key] = _rerun_in(self.rerun, rec, root, self.scratch / str(len(self.jobs)))
            self.seconds += time.time() - t0
        return self.jobs[key]

    def prefetch(self, jobs: list[tuple[dict, Path]], workers: int) -> None:
        """Rerun these table jobs (sidecar record, working directory) `workers` at a time, each in a
        process of its own, before the audit walks the tree; `check` then finds them done."""
        todo = {}
        for rec, root in jobs:
            todo.setdefault(_job_key(rec), (rec, root))
        todo = {k: v for k, v in todo.items() if k not in self.jobs}
        if workers <= 1 or len(todo) <= 1:
            return  # one at a time: `check` runs each when the walk gets to it
        import multiprocessing
        from concurrent.futures import ProcessPoolExecutor

        if self.scratch is None:
            self.scratch = Path(tempfile.mkdtemp(prefix="rlvr-audit-"))
        t0 = time.time()
        # spawn: a fork of a process that has started torch's or BLAS's threads can hang
        with ProcessPoolExecutor(max_workers=workers, mp_context=multiprocessing.get_context("spawn")) as pool:
            futures = {key: pool.submit(_rerun_in, self.rerun, rec, root, self.scratch / f"p{i}")
                       for i, (key, (rec, root)) in enumerate(todo.items())}
            for key, fut in futures.items():
                self.jobs[key] = fut.result()
        self.seconds += time.time() - t0

    def check(self, path: Path, rec: dict, root: Path, entry: dict) -> Outcome:
        """`path`, the table the sidecar entry `entry` of job `rec` describes, against the job rerun."""
        ran = self._run(rec, root)
        if isinstance(ran, str):
            return Outcome(0, f"cannot be recomputed: rerunning {rec['verb']} as its sidecar records it "
                              f"failed ({ran[:300]})", 0.0)
        made, seconds = ran
        again = _rerun_file(made, os.path.normpath(entry["path"]))
        if again is None or not again.is_file():
            return Outcome(0, f"cannot be recomputed: rerunning {rec['verb']} as its sidecar records it wrote no "
                              f"{Path(entry['path']).name}", seconds)
        n, shown = differences(path, again)
        if n:
            return Outcome(n, f"recomputed from the inputs its sidecar names, {n} cell(s) differ beyond the "
                              f"tolerance ({ABS_TOL:g} + {REL_TOL:g} x |value|): " + "; ".join(shown), seconds)
        return Outcome(max(len(_rows(path)) - 1, 0) if path.suffix == ".csv" else 0, None, seconds)

    def close(self) -> None:
        if self.scratch is not None:
            shutil.rmtree(self.scratch, ignore_errors=True)
            self.scratch = None


def _rerun_in(rerun: Rerun, rec: dict, root: Path, out: Path):
    """Rerun the job of sidecar record `rec` in its working directory `root`, writing under `out`:
    ({recorded output: rerun's file}, seconds), or the error that stopped it (text)."""
    argv = list(rec.get("command", []))[3:]  # python -m rlvr_support <argv>
    here, t0 = Path.cwd(), time.time()
    try:
        os.chdir(root)  # the recorded paths are relative to the job's working directory
        return {os.path.normpath(k): v for k, v in rerun(argv, out).items()}, time.time() - t0
    except (Exception, SystemExit) as e:  # noqa: BLE001 - whatever stops the rerun is the finding
        return f"{type(e).__name__}: {e}"
    finally:
        os.chdir(here)


def _rerun_file(made: dict[str, Path], recorded: str) -> Path | None:
    """Where the rerun wrote the output recorded as `recorded`: a declared output, a file beside one
    with the same stem (headline.md beside headline.csv), or a file inside a declared folder."""
    if recorded in made:
        return made[recorded]
    rec = Path(recorded)
    for declared, new in made.items():
        d = Path(declared)
        if d.parent == rec.parent and d.stem == rec.stem:
            return new.with_name(rec.name)
        if rec.is_relative_to(d):
            return new / rec.relative_to(d)
    return None
