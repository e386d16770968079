"""verifiers.math's worker processes die with the scorer, however it dies."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from rlvr_support.scoring.verifiers import math as mv

# A sample math-verify works on for minutes: the worker is busy and reads no EOF from its pipe.
BUSY = r"\boxed{9^{9^{9^9}}}"


def _math_workers(parent: int | None = None) -> dict[int, int]:
    """{pid: ppid} of the running `_math_worker` processes (children of `parent` when given)."""
    found = {}
    for d in Path("/proc").iterdir():
        if not d.name.isdigit():
            continue
        try:
            cmd = (d / "cmdline").read_bytes()
            stat = (d / "stat").read_text()
        except OSError:
            continue
        fields = stat.rsplit(")", 1)[1].split()
        if b"_math_worker" in cmd and fields[0] != "Z" and (parent is None or int(fields[1]) == parent):
            found[int(d.name)] = int(fields[1])
    return found


def _state_and_ticks(pid: int) -> tuple[str, int]:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return fields[0], int(fields[11]) + int(fields[12])  # state, utime + stime


def _wait_until_one_is_busy(workers: list[int], deadline: float) -> bool:
    """True once the spare sleeps (imports done, waiting on its pipe) while the other worker has
    been computing for two seconds: it holds the sample. Not a CPU-rate test, so a loaded machine
    only makes it slower."""
    running_since = None
    last = {p: _state_and_ticks(p) for p in workers}
    while time.monotonic() < deadline:
        time.sleep(0.5)
        now = {p: _state_and_ticks(p) for p in workers}
        idle = [p for p in workers if now[p][0] == "S" and now[p][1] == last[p][1]]
        working = [p for p in workers if now[p][1] > last[p][1]]
        last = now
        if len(idle) == 1 and len(working) == 1:
            running_since = running_since or time.monotonic()
            if time.monotonic() - running_since >= 2.0:
                return True
        else:
            running_since = None
    return False


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads /proc")
@pytest.mark.parametrize("sig", [signal.SIGKILL, signal.SIGTERM])
def test_killing_the_scorer_kills_its_busy_workers(sig):
    code = ("from rlvr_support.scoring.verifiers.math import score_math_batch\n"
            f"score_math_batch([{BUSY!r}], ['1'], timeout_s=600, workers=1)\n")
    scorer = subprocess.Popen([sys.executable, "-c", code], env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)})
    workers: list[int] = []
    try:
        deadline = time.monotonic() + 90
        while len(workers) < 2 and time.monotonic() < deadline:  # the worker and its warm spare
            time.sleep(0.2)
            workers = sorted(_math_workers(scorer.pid))
        assert len(workers) == 2, "the scorer did not start its workers"
        assert _wait_until_one_is_busy(workers, deadline), "no worker got busy on the sample"
        scorer.send_signal(sig)
        scorer.wait(timeout=10)
        time.sleep(1.0)
        left = [p for p in workers if p in _math_workers()]
        assert not left, f"workers {left} outlived the scorer killed by {sig.name}"
    finally:
        scorer.kill()
        scorer.wait()
        for pid in workers:  # this test's own strays, on a failure
            if pid in _math_workers():
                os.kill(pid, signal.SIGKILL)


def test_workers_outlive_the_short_lived_thread_that_started_them():
    """Linux's parent-death signal follows the thread that forked: the pool must not lose its
    workers when the thread that first scored ends."""
    mv.shutdown_workers()
    done = []
    t = threading.Thread(target=lambda: done.append(mv.score_math_batch(["answer: x^2"], ["x^2"])))
    t.start()
    t.join()
    assert done[0][0].correct
    pids = {w.proc.pid for w in mv._POOL.workers}
    time.sleep(0.5)
    res = mv.score_math_batch(["answer: 2x"], ["x+x"])
    assert res[0].correct and res[0].error is None
    assert {w.proc.pid for w in mv._POOL.workers} == pids  # the same workers, none replaced
    mv.shutdown_workers()
