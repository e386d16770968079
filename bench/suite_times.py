"""The test suite's time per tier mark and its largest items, from a JUnit XML that pytest wrote.

    python -m pytest --junitxml=suite.xml ...      # make test PYTEST_ARGS=--junitxml=suite.xml
    python bench/suite_times.py suite.xml [--top 15]

The tiers are those of tests/tiers.py (snakemake, vllm, slow; the rest is the fast tier); which test
carries which mark comes from `pytest --collect-only -m <mark>` of this checkout, so the XML must come
from the same tests. Per-test seconds include the setup of the fixtures a test was the first to use
(the session runs are charged to the test that started them), and under pytest-xdist they are each
worker's own: their sum is CPU-ish work, not the wall time, which the run's last line gives.
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
# the tiers in the order a test is charged to: the first mark it has
TIERS = (("snakemake", "snakemake"), ("vllm", "vllm and not snakemake"),
         ("slow", "slow and not snakemake and not vllm"), ("fast", "not snakemake and not vllm and not slow"))


def junit_times(path: Path) -> dict[str, float]:
    """{node id: seconds} of every test case in the XML (pytest's classname is the dotted file path and class)."""
    times: dict[str, float] = {}
    for case in ET.parse(path).getroot().iter("testcase"):
        parts = case.get("classname", "").split(".")
        # tests.test_x.TestClass -> tests/test_x.py::TestClass
        i = next((k for k in range(len(parts), 0, -1) if (REPO / Path(*parts[:k])).with_suffix(".py").is_file()),
                 None)
        i = i or len(parts)  # a file this checkout no longer has: counted among the strays
        # an xdist group's suffix (tests/tiers.py) is not part of the test's id: "test@smoke_run", and
        # "test[p]@smoke_run]" for a parametrized one (pytest 9.2's NodeId puts it inside the brackets)
        name = re.sub(r"(\])?@\w+(?(1)\]|)$", r"\1", case.get("name", ""))
        node = "::".join(["/".join(parts[:i]) + ".py", *parts[i:], name])
        times[node] = times.get(node, 0.0) + float(case.get("time", 0.0))
    return times


def junit_wall(path: Path) -> tuple[float, int]:
    """(wall seconds, tests) of the whole suite, as pytest wrote them into the XML's testsuite."""
    suite = next(ET.parse(path).getroot().iter("testsuite"))
    return float(suite.get("time", 0.0)), int(suite.get("tests", 0))


def collected(expr: str) -> set[str]:
    """Node ids `pytest --collect-only -m expr` selects in this checkout."""
    done = subprocess.run([sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider",
                           "-m", expr], capture_output=True, text=True, cwd=REPO)
    return {line.strip() for line in done.stdout.splitlines() if "::" in line}


def tier_ids() -> list[tuple[str, set[str]]]:
    """Each tier and the node ids charged to it: a test goes to the first tier (TIERS' order) that selects it."""
    tiers, charged = [], set()
    for tier, expr in TIERS:
        ids = collected(expr) - charged
        charged |= ids
        tiers.append((tier, ids))
    return tiers


def table(times: dict[str, float], top: int) -> str:
    rows, charged = [], set()
    for tier, ids in tier_ids():
        charged |= ids
        ran = [times[n] for n in ids if n in times]
        rows.append(f"| {tier} | {len(ids):,} | {len(ran):,} | {sum(ran):,.0f} |")
    stray = sorted(set(times) - charged)
    out = ["| tier | tests collected | in the XML | seconds (sum) |", "|---|---:|---:|---:|", *rows,
           f"| all | {len(charged):,} | {len(times):,} | {sum(times.values()):,.0f} |", ""]
    if stray:
        out += [f"In the XML but not collected here: {len(stray)} (e.g. {stray[0]})", ""]
    out += [f"The {top} largest:", ""]
    out += [f"- {s:,.0f} s {n}" for n, s in sorted(times.items(), key=lambda x: -x[1])[:top]]
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("junit", type=Path)
    ap.add_argument("--top", type=int, default=15)
    a = ap.parse_args(argv)
    print(table(junit_times(a.junit), a.top))
    return 0


if __name__ == "__main__":
    sys.exit(main())
