"""The test tiers (tests/tiers.py) and CI's no-silent-skip rule (tests/conftest.py optional_component), run on
a small throwaway test suite in its own pytest process, with stand-ins named `snakemake` and `.venv-vllm/bin/python`
(nothing real is started)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

from tiers import needs_mark

TESTS = Path(__file__).resolve().parent


def test_needs_mark_names_the_commands_of_each_tier():
    assert needs_mark(["/venv/bin/snakemake", "-n", "all"]) == "snakemake"
    assert needs_mark(["python", "-m", "snakemake", "--lint"]) == "snakemake"
    assert needs_mark(["/repo/.venv-vllm/bin/python", "/repo/src/rlvr_support/sampling/vllm_backend.py", "r", "o"]) \
        == "vllm"
    assert needs_mark(["/bin/sh", "-c", "cd /x && /venv/bin/snakemake -n all"]) == "snakemake"
    for cmd in (["snakefmt", "--check", "workflow"], ["python", "-m", "rlvr_support", "train"],
                ["git", "log", "--", "workflow/snakemake_utils.py"], ["python", "-m", "pytest", "-m", "not snakemake"],
                ["python", "-c", "print('snakemake')"]):
        assert needs_mark(cmd) is None, cmd


SUITE = '''
import subprocess, sys
import pytest

BIN = {bin!r}

def test_unmarked_snakemake():
    subprocess.run([BIN + "/snakemake", "-n"], check=True)

@pytest.mark.snakemake
def test_marked_snakemake():
    subprocess.run([BIN + "/snakemake", "-n"], check=True)

def test_unmarked_vllm():
    subprocess.run([BIN + "/.venv-vllm/bin/python"], check=True)

def test_unmarked_shell_snakemake():
    subprocess.run(BIN + "/snakemake -n", shell=True, check=True)

def test_reads_the_smoke_run(smoke_run):
    assert smoke_run == "ran"

def test_plain():
    subprocess.run([sys.executable, "-c", "pass"], check=True)

@pytest.fixture(scope="module")
def plan():
    subprocess.run([BIN + "/snakemake", "-n"], check=True)
    return "planned"

@pytest.mark.snakemake
def test_marked_plan(plan):
    assert plan == "planned"

def test_unmarked_plan_set_up_before(plan):
    assert plan == "planned"

def test_optional():
    from conftest import optional_component
    optional_component(False, "the widget is not installed")
'''

CONFTEST = '''
import sys
sys.path.insert(0, {tests!r})
import pytest
from tiers import (pytest_collection_modifyitems, pytest_fixture_setup, pytest_runtest_logreport,
                   pytest_runtest_makereport, pytest_runtest_protocol, pytest_terminal_summary)
import importlib.util
spec = importlib.util.spec_from_file_location("project_conftest", {tests!r} + "/conftest.py")
project = importlib.util.module_from_spec(spec)
spec.loader.exec_module(project)
optional_component = project.optional_component  # the project's, for the suite's test

@pytest.fixture(scope="session")
def smoke_run():
    return "ran"
'''


def _suite(tmp_path: Path) -> Path:
    bin_ = tmp_path / "bin"
    (bin_ / ".venv-vllm/bin").mkdir(parents=True)
    for exe in (bin_ / "snakemake", bin_ / ".venv-vllm/bin/python"):
        exe.write_text("#!/bin/sh\nexit 0\n")
        exe.chmod(0o755)
    suite = tmp_path / "suite"
    suite.mkdir()
    (suite / "test_suite.py").write_text(SUITE.format(bin=str(bin_)))
    (suite / "conftest.py").write_text(CONFTEST.format(tests=str(TESTS)))
    (suite / "pytest.ini").write_text("[pytest]\nmarkers =\n    snakemake: x\n    vllm: x\n    slow: x\n")
    return suite


def _pytest(suite: Path, *args: str, ci: bool = False) -> str:
    env = {k: v for k, v in os.environ.items() if k != "RLVR_CI"}
    if ci:
        env["RLVR_CI"] = "1"
    proc = subprocess.run([sys.executable, "-m", "pytest", "-q", "-rA", "-p", "no:cacheprovider", "--rootdir",
                           str(suite), str(suite), *args], capture_output=True, text=True, env=env, cwd=suite,
                          timeout=300)
    return proc.stdout + proc.stderr


def test_a_test_that_starts_snakemake_or_vllm_without_its_mark_fails(tmp_path):
    out = _pytest(_suite(tmp_path))
    for name in ("test_unmarked_snakemake", "test_unmarked_vllm", "test_unmarked_shell_snakemake",
                 "test_unmarked_plan_set_up_before"):  # its module fixture ran Snakemake for an earlier test
        assert f"FAILED test_suite.py::{name}" in out, out[-3000:]
    assert "starts snakemake without @pytest.mark.snakemake" in out and "/bin/snakemake -n" in out
    assert "starts vllm without @pytest.mark.vllm" in out
    assert "(in fixture plan)" in out
    for name in ("test_marked_snakemake", "test_reads_the_smoke_run", "test_plain", "test_marked_plan"):
        assert f"PASSED test_suite.py::{name}" in out, out[-3000:]


def test_the_fast_tier_deselects_every_snakemake_test_and_the_fixture_users(tmp_path):
    out = _pytest(_suite(tmp_path), "-m", "not snakemake and not vllm and not slow")
    assert "test_marked_snakemake" not in out and "test_reads_the_smoke_run" not in out
    assert "PASSED test_suite.py::test_plain" in out and "3 deselected" in out, out[-3000:]


def test_a_missing_optional_component_skips_locally_and_fails_under_ci(tmp_path):
    suite = _suite(tmp_path)
    local = _pytest(suite, "-k", "optional")
    assert "SKIPPED" in local and "the widget is not installed" in local and "1 skipped" in local, local[-2000:]
    ci = _pytest(suite, "-k", "optional", ci=True)
    assert "FAILED test_suite.py::test_optional" in ci and "RLVR_CI is set" in ci, ci[-2000:]


GROUPED = '''
import os
import pytest

@pytest.fixture(scope="session")
def smoke_run(tmp_path_factory):
    # one line per build of the session run: the test below counts them
    with open(os.environ["BUILDS"], "a") as f:
        f.write(os.environ["PYTEST_XDIST_WORKER"] + "\\n")
    return "ran"

@pytest.fixture(scope="module")
def through_a_module_fixture(smoke_run):
    return smoke_run

@pytest.mark.parametrize("i", range(6))
def test_reads_it(smoke_run, i):
    pass

def test_reads_it_through_a_fixture(through_a_module_fixture):
    pass

@pytest.mark.parametrize("i", range(6))
def test_other(i):
    pass
'''

ENGINE = '''
import os
import pytest

@pytest.fixture(scope="module")
def engine():
    # one line per build of the module's engine: the test below counts them
    with open(os.environ["ENGINE_BUILDS"], "a") as f:
        f.write(os.environ["PYTEST_XDIST_WORKER"] + "\\n")
    return "started"

@pytest.mark.slow
@pytest.mark.parametrize("i", range(6))
def test_uses_the_engine(engine, i):
    pass

def test_beside_it():
    pass
'''


def test_under_two_workers_the_tests_of_a_session_run_or_a_module_engine_share_one_worker_and_one_build(tmp_path):
    """`make test`'s `-n 2 --dist loadgroup`: tests/tiers.py puts every reader of a session run (directly
    or through another fixture) into that run's xdist group, so one worker builds it, once. (With pytest
    9.2 the group xdist 3.8 writes into item._nodeid was silently lost and both workers built it.)"""
    suite = tmp_path / "grouped"
    suite.mkdir()
    (suite / "test_grouped.py").write_text(GROUPED)
    (suite / "test_engine.py").write_text(ENGINE)
    (suite / "conftest.py").write_text(f"import sys\nsys.path.insert(0, {str(TESTS)!r})\n"
                                       "from tiers import pytest_collection_modifyitems\n")
    builds = tmp_path / "builds.txt"
    engine_builds = tmp_path / "engine_builds.txt"
    env = {**{k: v for k, v in os.environ.items() if k != "RLVR_CI"}, "BUILDS": str(builds),
           "ENGINE_BUILDS": str(engine_builds)}
    proc = subprocess.run([sys.executable, "-m", "pytest", "-v", "-p", "no:cacheprovider", "--rootdir", str(suite),
                           "-n", "2", "--dist", "loadgroup", str(suite)], capture_output=True, text=True, env=env,
                          cwd=suite, timeout=300)
    out = proc.stdout + proc.stderr
    assert proc.returncode == 0, out[-3000:]
    workers = {m.group(2): m.group(1) for m in re.finditer(r"\[(gw\d)\] \[ *\d+%\] PASSED (\S+)", out)}
    readers = {n: w for n, w in workers.items() if "test_reads_it" in n}
    assert len(readers) == 7 and all(n.endswith("@smoke_run") for n in readers), out[-3000:]
    assert len(set(readers.values())) == 1, f"the session run's readers ran on several workers: {readers}"
    assert builds.read_text().split() == [next(iter(readers.values()))], "the session run was built more than once"
    # a module whose slow tests share a module-scoped fixture (a vLLM engine) is one group: one build
    engine = {n: w for n, w in workers.items() if n.startswith("test_engine.py")}
    assert len(engine) == 7 and all(n.endswith("@test_engine") for n in engine), out[-3000:]
    assert len(set(engine.values())) == 1, f"the module's tests ran on several workers: {engine}"
    assert len(engine_builds.read_text().split()) == 1, "the module fixture was built more than once"
    assert not any("@" in n for n in workers if "test_other" in n)  # no fixture of its own: free to move
    assert len(workers) == 20
