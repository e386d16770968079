"""What a one-line edit of a package file reruns in a finished study (issue 27's table, redone).

For each file, in a temporary copy of the workflow and package (the checkout and the results are
never touched), append one line and dry-run `all` against the finished results:

* `comment`: a comment line, which changes no behaviour (the issue's table: it should plan nothing);
* `constant`: a new module-level constant, which changes the syntax tree, so every job whose code
  covers the file reruns: this shows each file's reach;

and a new CLI verb module (cli/verbs/), which should rerun nothing existing. Prints a Markdown
table of jobs planned and their rules, after the plan of the unedited copy (the baseline; not 0
when the results were made by other code or config: then the rows count on top of it).

    python bench/rerun_plan_table.py --workdir /tmp/smoke-run --configfile tests/config/smoke.yaml
    python bench/rerun_plan_table.py --workdir . --configfile config.yaml    # a finished default run

Each dry run builds the DAG once (a few seconds for the smoke study; machine in the output).
"""

from __future__ import annotations

import argparse
import os
import platform
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
PARTS = ("Snakefile", "config.yaml", "workflow", "src", "envs", "configs", "scripts", "slurm")
# the table
FILES = ("analysis/support_table.py", "metrics/entropy.py", "scoring/verifiers/ifbench_checks.py", "cli/main.py")
EDITS = {"comment": "\n# a comment appended by bench/rerun_plan_table.py\n",
         "constant": "\n_RERUN_PLAN_PROBE = 1  # appended by bench/rerun_plan_table.py\n"}
NEW_VERB = '''"""`python -m rlvr_support rerun-plan-probe`: a verb added by bench/rerun_plan_table.py."""


def cmd_probe(a):
    print("probe")


def register(verb) -> None:
    verb("rerun-plan-probe", cmd_probe, "A verb no rule runs.")
'''


def copy_checkout(dest: Path) -> Path:
    dest.mkdir(parents=True)
    for part in PARTS:
        src = REPO / part
        if src.is_dir():
            shutil.copytree(src, dest / part, ignore=shutil.ignore_patterns("__pycache__", "*.egg-info"))
        elif src.exists():
            shutil.copy2(src, dest / part)
    return dest / "Snakefile"


def plan(snakefile: Path, workdir: Path, configfiles: list[Path], snakemake: str) -> dict[str, int]:
    """{rule: jobs} of a dry run of `all` ({} when nothing is to be done)."""
    env = {**os.environ, "PYTHONPATH": str(snakefile.parent / "src")}
    cmd = [snakemake, "-s", str(snakefile), "-d", str(workdir), "--cores", "1", "-n", "--quiet", "rules",
           "--configfile", *map(str, configfiles), "--", "all"]
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env)
    text = proc.stdout + proc.stderr
    if proc.returncode != 0:
        raise SystemExit(f"dry run failed ({proc.returncode}): {' '.join(cmd)}\n{text[-3000:]}")
    if "Nothing to be done" in text:
        return {}
    stats = text.split("Job stats:", 1)[1]
    counts = {}
    for line in stats.splitlines()[3:]:
        m = re.match(r"^(\w+)\s+(\d+)$", line.strip())
        if not m:
            break
        if m.group(1) == "total":
            break
        counts[m.group(1)] = int(m.group(2))
    return counts


def describe(counts: dict[str, int], baseline: dict[str, int]) -> tuple[int, str]:
    """(jobs beyond the baseline, "rule xN, ..." of them)."""
    extra = {r: n - baseline.get(r, 0) for r, n in counts.items() if r != "all" and n > baseline.get(r, 0)}
    ranked = sorted(extra.items(), key=lambda kv: (-kv[1], kv[0]))
    text = ", ".join(f"{r} x{n}" for r, n in ranked[:8])
    return sum(extra.values()), text + (f" and {len(ranked) - 8} more rules" if len(ranked) > 8 else "")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--workdir", required=True, type=Path, help="the working directory of a finished run")
    ap.add_argument("--configfile", required=True, nargs="+", type=Path, help="the config(s) that run used")
    ap.add_argument("--files", nargs="+", default=list(FILES), help="package files (below src/rlvr_support) to edit")
    ap.add_argument("--edits", nargs="+", default=list(EDITS), choices=list(EDITS))
    ap.add_argument("--snakemake", default=str(Path(sys.executable).parent / "snakemake"))
    a = ap.parse_args(argv)
    workdir, configs = a.workdir.resolve(), [c.resolve() for c in a.configfile]
    rows = []
    t0 = time.time()
    with tempfile.TemporaryDirectory(prefix="rerun-plan-") as tmp:
        clean = copy_checkout(Path(tmp) / "clean")
        baseline = plan(clean, workdir, configs, a.snakemake)
        for rel in a.files:
            for edit in a.edits:
                root = Path(tmp) / f"{edit}-{rel.replace('/', '_')}"
                snakefile = copy_checkout(root)
                path = root / "src" / "rlvr_support" / rel
                path.write_text(path.read_text() + EDITS[edit])
                rows.append((f"src/rlvr_support/{rel}", f"{edit} appended", *describe(
                    plan(snakefile, workdir, configs, a.snakemake), baseline)))
        root = Path(tmp) / "new-verb"
        snakefile = copy_checkout(root)
        (root / "src/rlvr_support/cli/verbs/rerun_plan_probe.py").write_text(NEW_VERB)
        rows.append(("src/rlvr_support/cli/verbs/rerun_plan_probe.py", "a new verb", *describe(
            plan(snakefile, workdir, configs, a.snakemake), baseline)))
    n_base = sum(n for r, n in baseline.items() if r != "all")
    print(f"workdir {workdir}, config {' '.join(map(str, configs))}")
    print(f"baseline (unedited copy): {n_base} jobs planned" + (f" ({describe(baseline, {})[1]})" if n_base else ""))
    print(f"{len(rows) + 1} dry runs in {time.time() - t0:.0f} s on {platform.node()} "
          f"({platform.processor() or platform.machine()}, {os.cpu_count()} cores)\n")
    print("| file edited | edit | jobs planned | of which |")
    print("|---|---|---:|---|")
    for file, edit, n, which in rows:
        print(f"| {file} | {edit} | {n} | {which or '-'} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
