"""Idle OpenMP and OpenBLAS threads spin briefly, then sleep (idle_threads.py), in every job and in the suite's workers."""

from __future__ import annotations

import os
import subprocess
import sys

from rlvr_support.idle_threads import OPENBLAS_TIMEOUT, SPIN_TURNS, short_spin


def test_a_short_spin_unless_the_environment_says_how_threads_wait():
    env = {}
    short_spin(env)
    assert env == {"GOMP_SPINCOUNT": SPIN_TURNS, "OPENBLAS_THREAD_TIMEOUT": OPENBLAS_TIMEOUT}
    for own in ({"GOMP_SPINCOUNT": "30000000"}, {"OMP_WAIT_POLICY": "ACTIVE"}):
        env = dict(own)
        short_spin(env)
        assert env == {**own, "OPENBLAS_THREAD_TIMEOUT": OPENBLAS_TIMEOUT}
    env = {"OPENBLAS_THREAD_TIMEOUT": "28"}
    short_spin(env)
    assert env["OPENBLAS_THREAD_TIMEOUT"] == "28"


def test_a_job_process_starts_with_it_before_torch_loads():
    # what `python -m rlvr_support <verb>` sees when the verb runs, with the variable unset by the caller
    script = ("import os, runpy, sys; import rlvr_support.cli.main as m; "
              "m.main = lambda: print(os.environ.get('GOMP_SPINCOUNT'), 'torch' in sys.modules) or 0; "
              "sys.argv = ['rlvr_support', 'budget']; runpy.run_module('rlvr_support', run_name='__main__')")
    env = {k: v for k, v in os.environ.items() if k not in ("GOMP_SPINCOUNT", "OMP_WAIT_POLICY")}
    p = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    assert p.stdout.split() == [SPIN_TURNS, "False"]


def test_the_suite_runs_with_it():
    assert "GOMP_SPINCOUNT" in os.environ or "OMP_WAIT_POLICY" in os.environ  # tests/conftest.py
