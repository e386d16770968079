"""The jobs a config plans, as `rule<TAB>output` lines (sorted), from `snakemake --summary` in an empty folder.

tests/test_workflow_plan.py compares them with the snapshots in tests/data/plans/: a refactor of the
workflow must plan the same jobs with the same outputs. A change that means to add, drop or move a job
rewrites the snapshot, so the diff shows what it changed:

    python scripts/plan_snapshot.py --out tests/data/plans/toy.tsv config.yaml
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
# the snapshots: name -> config files (relative to the repository)
SNAPSHOTS = {"toy": ["config.yaml"], "smoke": ["tests/config/smoke.yaml"], "paper": ["configs/paper.yaml"]}


def planned_outputs(configfiles: list[str], snakemake: str | None = None) -> list[str]:
    """`rule<TAB>output` of every output of every job `all` plans for the config files, sorted."""
    snakemake = snakemake or str(Path(sys.executable).parent / "snakemake")
    with tempfile.TemporaryDirectory() as work:
        cmd = [snakemake, "-s", str(REPO / "Snakefile"), "--directory", work, "--summary",
               "--configfile", *[str(REPO / c) for c in configfiles], "--", "all"]
        done = subprocess.run(cmd, capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed:\n{done.stderr[-3000:]}")
    rows = [line.split("\t") for line in done.stdout.splitlines()]
    header = rows[0]
    out, rule = header.index("output_file"), header.index("rule")
    return sorted(f"{r[rule]}\t{r[out]}" for r in rows[1:] if len(r) == len(header))


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--out", type=Path, help="write here (default: every snapshot of SNAPSHOTS)")
    p.add_argument("configfiles", nargs="*")
    a = p.parse_args()
    jobs = {a.out: a.configfiles} if a.out else {REPO / "tests/data/plans" / f"{n}.tsv": c for n, c in SNAPSHOTS.items()}
    for path, configfiles in jobs.items():
        path.write_text("".join(line + "\n" for line in planned_outputs(configfiles)))
        print(path)


if __name__ == "__main__":
    main()
