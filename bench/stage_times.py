"""Time per stage of a finished run, from Snakemake's benchmark files (results/benchmarks/**.tsv).

    python bench/stage_times.py [results/benchmarks] [--wall SECONDS]

Each rule with a `benchmark:` directive writes one TSV per job (s = wall seconds, max_rss in MB). A job
run warm (cli/warm_server.py) was a waiting client to Snakemake, so its peak RSS is read from its log
(results/logs/<the same path>.log), where the warm process wrote it.
The stage is the first folder below benchmarks/ (base, train, sample, score, analyse, routed, ...).
Rules without a benchmark file (the local table and figure rules) are not counted; --wall (the run's
elapsed time) adds the share of the run the table does not explain.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))
from rlvr_support.cli.warm_server import warm_peak_rss  # noqa: E402


def stage_times(root: Path) -> pd.DataFrame:
    rows = []
    for tsv in sorted(root.rglob("*.tsv")):
        t = pd.read_csv(tsv, sep="\t")
        if "s" not in t.columns or t.empty:
            raise ValueError(f"{tsv}: not a Snakemake benchmark file (no 's' column)")
        log = root.parent / "logs" / tsv.relative_to(root).with_suffix(".log")
        warm = warm_peak_rss(log.read_text(errors="replace")) if log.exists() else None
        rss = warm if warm is not None else float(t["max_rss"].iloc[-1])
        rows.append({"stage": tsv.relative_to(root).parts[0], "job": str(tsv.relative_to(root).with_suffix("")),
                     "s": float(t["s"].iloc[-1]), "max_rss": rss})
    if not rows:
        raise ValueError(f"{root}: no benchmark files")
    jobs = pd.DataFrame(rows)
    return (jobs.groupby("stage")
            .agg(jobs=("job", "size"), total_s=("s", "sum"), median_s=("s", "median"), max_s=("s", "max"),
                 max_rss_mb=("max_rss", "max"))
            .sort_values("total_s", ascending=False).reset_index())


def snakemake_wall(tree: Path) -> float | None:
    """Wall seconds of the last Snakemake run in `tree` that printed its elapsed time (.snakemake/log/), or None."""
    for log in sorted((tree / ".snakemake" / "log").glob("*.snakemake.log"), reverse=True):
        if found := re.search(r"^Elapsed time: (\d+):(\d\d):(\d\d(?:\.\d+)?)$", log.read_text(errors="replace"), re.M):
            h, m, sec = found.groups()
            return int(h) * 3600 + int(m) * 60 + float(sec)
    return None


def compare_rows(a: pd.DataFrame, b: pd.DataFrame, rss: bool = False) -> list[str]:
    """Markdown rows of two runs' stage_times (indexed by stage): jobs, job seconds of each, their ratio, and
    with `rss` each run's peak RSS; then the total row."""
    rows = []
    for stage in a.index:
        x, y = a.loc[stage], b.loc[stage]
        row = (f"| {stage} | {int(x['jobs'])} | {x['total_s']:,.0f} | {y['total_s']:,.0f} | "
               f"{y['total_s'] / max(x['total_s'], 1e-9):.2f} |")
        rows.append(row + (f" {x['max_rss_mb']:,.0f} | {y['max_rss_mb']:,.0f} |" if rss else ""))
    total = (f"| all benchmarked jobs | {a['jobs'].sum()} | {a['total_s'].sum():,.0f} | {b['total_s'].sum():,.0f} | "
             f"{b['total_s'].sum() / a['total_s'].sum():.2f} |")
    return rows + [total + (" | |" if rss else "")]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("root", nargs="?", default="results/benchmarks")
    ap.add_argument("--wall", type=float, help="the run's elapsed seconds")
    a = ap.parse_args(argv)
    try:
        table = stage_times(Path(a.root))
    except ValueError as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    lines = ["| stage | jobs | job seconds (sum) | median | max | peak RSS (MB) |", "|---|---:|---:|---:|---:|---:|"]
    for r in table.itertuples():
        lines.append(f"| {r.stage} | {r.jobs} | {r.total_s:,.0f} | {r.median_s:.1f} | {r.max_s:.1f} | {r.max_rss_mb:,.0f} |")
    total = table["total_s"].sum()
    lines.append(f"| all benchmarked jobs | {table['jobs'].sum()} | {total:,.0f} | | | |")
    print("\n".join(lines))
    if a.wall:
        print(f"\nwall {a.wall:,.0f} s; benchmarked job seconds / wall = {total / a.wall:.2f} "
              "(2 cores: at most about 2 without the unbenchmarked local rules)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
