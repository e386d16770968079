"""How long `audit results/` takes, recomputing every table, on a finished run and on the same run
with 10x the rows: the baseline, measured in the same run, is `audit results/ --quick` (sha256 only).

Each 10x tree is built from the finished run, not by running the study again, along one axis:
`samples`, every samples and scores file gets each prompt's samples `--scale` times (sample_idx
renumbered: k x n samples per prompt where the run had n); `prompts`, every prompt `--scale` times
(copies `<id>~j`, in the prompt files too), which is what the bootstraps over prompts see grow. A
copied sample scores as its original, so the scores file is what scoring the scaled samples gives.
(Copies compress away in Parquet's dictionaries, so bytes, and the sha256 time, grow much less
than 10x: hashing runs at 580-770 MiB/s per core, lineage/integrity.py.) Their sidecars, and
those of the jobs that read them, get the new sha256 (the model jobs that read samples, JS
divergence and the opening intervention, are not rerun: their outputs stand for what they would
be), and then every other job downstream of them is rerun through the CLI, in order, as its
sidecar records it: tables, figures, claims. The result is a tree that audits clean, with 10x the
samples and scores rows, and tables computed from them.

    python bench/bench_audit.py --run /path/to/finished/run [--scale 10] [--repeat 2] [--axes samples prompts]

Each audit runs as `python -m rlvr_support audit results/ [--quick]` in its own process (the
interpreter's start-up included, as a user sees it); the median wall time of `--repeat` runs.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "src"))

from rlvr_support.config.numerics import ENV_VAR as NUMERICS_ENV  # noqa: E402
from rlvr_support.lineage.sidecar import SUFFIX, sha256_file  # noqa: E402

ROWS = ("samples", "scores")  # the folders whose files get `scale` times the rows, wherever they are
# Jobs that sample or train (or read in the world): never rerun here; a job downstream of the scaled
# files that is one of these keeps its outputs, its sidecar gets the new sha256 of its inputs.
NOT_RERUN = {"data", "corpus", "pretrain", "train", "sample", "sample-merge", "score", "base-metrics",
             "positional-js", "opening-intervention", "perplexity", "single-token", "checkpoint",
             "trajectory-point", "base-model", "data-sources"}


def _copy_id(pid: str, j: int) -> str:
    return pid if j == 0 else f"{pid}~{j}"


def _scaled(table: pa.Table, scale: int, axis: str) -> pa.Table:
    """The rows `scale` times. axis `samples`: copy j of a sample has sample_idx + j x (its prompt's
    n); axis `prompts`: copy j is the same sample of prompt `<id>~j` (the prompt files get the copies)."""
    if axis == "prompts":
        col = table.schema.get_field_index("prompt_id")
        ids = table["prompt_id"].to_pylist()
        copies = [table.set_column(col, table.schema.field(col), pa.array([_copy_id(p, j) for p in ids],
                                                                        table.schema.field(col).type))
                  for j in range(scale)]
        return pa.concat_tables(copies).sort_by([("prompt_id", "ascending"), ("sample_idx", "ascending")])
    n = table.group_by("prompt_id").aggregate([("sample_idx", "max")])
    width = dict(zip(n["prompt_id"].to_pylist(), (m + 1 for m in n["sample_idx_max"].to_pylist())))
    per_row = pa.array([width[p] for p in table["prompt_id"].to_pylist()], pa.int64())
    copies = []
    for j in range(scale):
        idx = pa.compute.add(table["sample_idx"].cast(pa.int64()), pa.compute.multiply(per_row, j))
        copies.append(table.set_column(table.schema.get_field_index("sample_idx"), "sample_idx",
                                       idx.cast(table.schema.field("sample_idx").type)))
    return pa.concat_tables(copies).sort_by([("prompt_id", "ascending"), ("sample_idx", "ascending")])


def _sidecars(results: Path) -> dict[Path, dict]:
    return {p: json.loads(p.read_text()) for p in results.rglob(f"*{SUFFIX}")}


def _jobs(sides: dict[Path, dict]) -> dict[tuple, dict]:
    """One entry per job (sidecars of one job share `started` and `command`)."""
    jobs = {}
    for p, rec in sides.items():
        key = (rec.get("started"), tuple(rec.get("command", [])))
        jobs.setdefault(key, {"rec": rec, "sidecars": []})["sidecars"].append(p)
    return jobs


def build_scaled(run: Path, dest: Path, scale: int, axis: str) -> dict:
    """Copy run/results to dest/results with `scale` x the samples and scores rows (module doc)."""
    shutil.copytree(run / "results", dest / "results", symlinks=True,
                    ignore=shutil.ignore_patterns("logs", "benchmarks", "_partial"))
    os.chdir(dest)
    results = Path("results")
    changed: dict[str, tuple[str, int]] = {}
    rows = 0
    for f in sorted(results.rglob("*.parquet")):
        if not any(part in ROWS for part in f.parts) or not Path(f"{f}{SUFFIX}").is_file():
            continue
        table = pq.read_table(f)
        if "prompt_id" not in table.schema.names or "sample_idx" not in table.schema.names:
            continue
        big = _scaled(table, scale, axis)
        pq.write_table(big.replace_schema_metadata(table.schema.metadata), f, row_group_size=1024)
        rows += big.num_rows
        changed[f.as_posix()] = (sha256_file(f), f.stat().st_size)
    if axis == "prompts":  # every prompt file (and subset) gets the copies' records, after the originals
        for f in sorted(results.glob("data/**/*.jsonl")):
            recs = [json.loads(line) for line in f.read_text().splitlines() if line.strip()]
            if not recs or "id" not in recs[0]:  # the corpus: no prompt ids
                continue
            f.write_text("".join(json.dumps({**r, "id": _copy_id(r["id"], j)}, sort_keys=True) + "\n"
                                 for j in range(scale) for r in recs))
            changed[f.as_posix()] = (sha256_file(f), f.stat().st_size)
    sides = _sidecars(results)
    # the scaled files' own sidecars, and every input entry that names them
    for p, rec in sides.items():
        for entry in rec.get("outputs", []) + rec.get("inputs", []):
            if entry["path"] in changed:
                entry["sha256"], entry["bytes"] = changed[entry["path"]]
        p.write_text(json.dumps(rec, indent=2, sort_keys=True) + "\n")
    # every job downstream, in order: rerun (tables, figures, claims) or, for a model job, re-recorded
    jobs, done, reran = _jobs(_sidecars(results)), set(changed), 0
    while True:
        ready = [j for j in jobs.values() if j.get("state") is None
                 and any(i["path"] in done for i in j["rec"].get("inputs", []))]
        ready = [j for j in ready if not any(i["path"] in _pending(jobs, done) for i in j["rec"]["inputs"])]
        if not ready:
            break
        for job in ready:
            rec = job["rec"]
            outputs = [o["path"] for o in rec.get("outputs", [])]
            if rec["verb"] in NOT_RERUN:
                for side in job["sidecars"]:
                    r = json.loads(side.read_text())
                    for i in r["inputs"]:
                        if Path(i["path"]).is_file():
                            i["sha256"], i["bytes"] = sha256_file(i["path"]), Path(i["path"]).stat().st_size
                    side.write_text(json.dumps(r, indent=2, sort_keys=True) + "\n")
            else:
                proc = subprocess.run([sys.executable, "-m", "rlvr_support", *rec["command"][3:]],
                                      capture_output=True, text=True, env=numerics_env(rec))
                if proc.returncode:
                    raise RuntimeError(f"rerunning {rec['verb']} failed:\n{proc.stderr[-3000:]}")
                reran += 1
            job["state"] = "done"
            done |= set(outputs)
    return {"rows": rows, "files": len(changed), "reran": reran}


def numerics_env(rec: dict) -> dict[str, str]:
    """Our environment with the numerics the job of sidecar record `rec` ran under (config/numerics.py:
    Snakemake hands them to every job in RLVR_NUMERICS), so that its rerun records the same and the
    audit finds no mixed numerics in the tree."""
    env = {k: v for k, v in os.environ.items() if k != NUMERICS_ENV}
    spec = (rec.get("numerics") or {}).get("spec")
    return {**env, NUMERICS_ENV: json.dumps(spec)} if spec else env


def _pending(jobs: dict, done: set) -> set:
    """Outputs of jobs still to be redone: a job waits for all of its changed inputs."""
    out = set()
    for j in jobs.values():
        if j.get("state") is None and any(i["path"] in done for i in j["rec"].get("inputs", [])):
            out |= {o["path"] for o in j["rec"].get("outputs", [])}
    return out


def time_audit(root: Path, quick: bool, repeat: int) -> tuple[float, str]:
    walls, last = [], ""
    for _ in range(repeat):
        t0 = time.perf_counter()
        cmd = [sys.executable, "-m", "rlvr_support", "audit", "results/", *(["--quick"] if quick else [])]
        proc = subprocess.run(cmd, cwd=root, capture_output=True, text=True)
        walls.append(time.perf_counter() - t0)
        if proc.returncode:
            raise RuntimeError(f"audit of {root} failed:\n{proc.stdout[-3000:]}{proc.stderr[-2000:]}")
        last = proc.stdout.strip().splitlines()[-1]
    return statistics.median(walls), last


def tree_size(root: Path) -> tuple[int, int]:
    files = [p for p in (root / "results").rglob("*") if p.is_file()]
    return len(files), sum(p.stat().st_size for p in files)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--run", type=Path, required=True, help="a finished run's working directory (holds results/)")
    ap.add_argument("--scale", type=int, default=10)
    ap.add_argument("--repeat", type=int, default=2)
    ap.add_argument("--axes", nargs="*", default=["samples", "prompts"], choices=["samples", "prompts"],
                    help="scale the samples per prompt, the prompts, or each in a tree of its own; none: "
                    "the finished run alone (each scaled tree reruns every table and figure job once)")
    a = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-audit-") as tmp:
        one = Path(tmp) / "1x"
        shutil.copytree(a.run / "results", one / "results", symlinks=True)
        here = Path.cwd()
        trees = [("finished run", one)]
        rows_1x = sum(pq.read_metadata(f).num_rows for f in (one / "results").rglob("*.parquet")
                      if any(part in ROWS for part in f.parts) and Path(f"{f}{SUFFIX}").is_file())
        print(f"machine: {platform.processor() or platform.machine()}, {os.cpu_count()} logical cores; "
              f"python {platform.python_version()}")
        for axis in a.axes:
            t0 = time.perf_counter()
            root = Path(tmp) / f"{a.scale}x-{axis}"
            built = build_scaled(a.run, root, a.scale, axis)
            os.chdir(here)
            print(f"{a.scale}x the {axis}: {built['files']} files, samples and scores rows {rows_1x} -> "
                  f"{built['rows']}; {built['reran']} jobs rerun to build it ({time.perf_counter() - t0:.0f} s)")
            trees.append((f"{a.scale}x the {axis} (per prompt)" if axis == "samples" else f"{a.scale}x the prompts",
                          root))
        print("\n| tree | files | MiB | audit --quick (s) | audit, tables recomputed (s) | ratio |")
        print("|---|---:|---:|---:|---:|---:|")
        for name, root in trees:
            n, size = tree_size(root)
            quick, _ = time_audit(root, True, a.repeat)
            full, said = time_audit(root, False, a.repeat)
            print(f"| {name} | {n} | {size / 2**20:.1f} | {quick:.1f} | {full:.1f} | {full / quick:.1f} |")
            print(f"|  | | | | {said} | |")


if __name__ == "__main__":
    main()
