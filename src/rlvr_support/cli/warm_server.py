"""Warm job processes for a local Snakemake run: a job forks from a process that has imported torch,
transformers and the package already, instead of importing them again.

Why: most jobs of a CPU study are small (a score, a table, a figure, a sample of the smoke config),
and a fresh process spends most of such a job importing: a smoke `sample` job took 4.7 s, of which
2.4 s were imports and 0.3 s sampling (2-core AMD EPYC, 2026-12-06), and `make run` starts ~150
job processes.

How (only where the Snakefile names a directory in RLVR_WARM_JOBS: a local run of a study whose jobs
ask for no GPU, pinned or not, workflow/rules/common.smk; cluster jobs never see it):
* `python -m rlvr_support <verb>` pins its numerics first where the study does (they decide what torch
  reads when it loads), then connects to the server of that directory and its exact environment (a
  Linux abstract socket named by a hash of both: pinned jobs differ in their thread counts). None: it
  starts one, detached, and runs the verb itself. One: it hands the server its arguments, working directory and standard
  streams, and waits. Elsewhere than on Linux every job starts cold.
* The server imported what jobs import, then forks one child per job; the child takes the job's
  streams and directory and runs the verb as `python -m rlvr_support` would, then sends the exit
  status. The server never runs a torch operator, so the child inherits no thread pool and no
  library state, only imported modules; every verb seeds its own random numbers.
  tests/test_warm_server.py checks that jobs run warm write the same bytes as jobs run cold.
* A signal to the job process (Snakemake stopping a job) goes on to the child; a child whose job
  process is gone kills itself. A server exits after IDLE_S seconds without a job or when its
  directory is removed (the run's onsuccess / onerror).

What a warm job's process is not: Snakemake's benchmark file measures the job process, which is the
waiting client, so its wall time `s` is the job's and its memory and CPU columns are the client's.
The child of a job that succeeds writes its own peak resident memory as the last line of the job's log
("warm job: peak RSS ... MB"), where bench/stage_times.py reads it; a failed job's log ends with its
error, as a cold job's does. The server's own log (<directory>/<environment>.log) lists the jobs it forked.

This module is imported by __main__ only, never by a verb: it is not part of any job's code hash (it
computes nothing a job writes), so changing it reruns nothing.
"""

from __future__ import annotations

import hashlib
import json
import os
import select
import signal
import socket
import struct
import subprocess
import sys
import time

ENV = "RLVR_WARM_JOBS"  # the directory of this run's servers; unset or "off": every job starts cold
IDLE_S = 60.0  # a server with no job for this long exits
# what the server imports before it listens: what the verbs import, heaviest first; a missing
# optional package (trl, math_verify outside a study that scores math) is skipped
PRELOAD = ("torch", "numpy", "pandas", "pyarrow.parquet", "transformers", "rlvr_support.models.loading",
           "rlvr_support.cli.main", "rlvr_support.lineage.provenance", "rlvr_support.sampling.jobs",
           "rlvr_support.scoring.score", "math_verify", "matplotlib.pyplot", "trl", "rlvr_support.training.stage")
RSS_LINE = "warm job: peak RSS {mb:.0f} MB"  # the last line a warm job that succeeded writes to its stderr (its log)


def warm_peak_rss(log: str) -> float | None:
    """The peak RSS (MB) a warm job wrote into its log; None for a job that ran cold."""
    import re

    found = re.findall("^" + re.escape(RSS_LINE).replace(re.escape("{mb:.0f}"), r"(\d+)") + "$", log, re.M)
    return float(found[-1]) if found else None


def environment_key(environ=os.environ) -> str:
    """The name of the server a process with this environment may fork from: the same environment,
    byte for byte (torch, MKL, OpenMP, numpy and OpenBLAS read theirs when they load)."""
    return hashlib.sha256(json.dumps(sorted(environ.items())).encode()).hexdigest()[:20]


def _address(root: str, key: str) -> str:
    """The server's socket: in Linux's abstract namespace (no file, no 108-byte path limit, gone with the
    server), named after the run's directory and the environment."""
    return "\0rlvr-warm-" + hashlib.sha256(f"{root}\0{key}".encode()).hexdigest()[:24]


# ------------------------------------------------------------------------------------ the run's side


def open_for_run(local: bool, cpu_study: bool, environ=os.environ) -> str | None:
    """A fresh directory for this run's servers, named in the environment the jobs inherit; None (every
    job cold) for a run that is not local (cluster jobs start on other machines), a study with GPU jobs
    (they start their own CUDA) or an environment that names its own (`off`)."""
    if not (local and cpu_study) or ENV in environ:
        return None
    import tempfile

    root = tempfile.mkdtemp(prefix="rlvr-warm-")
    environ[ENV] = root
    return root


def close_for_run(environ=os.environ) -> None:
    """Remove this run's directory: its servers exit within a second."""
    import shutil

    root = environ.get(ENV)
    if root and root != "off" and os.path.basename(root).startswith("rlvr-warm-"):
        shutil.rmtree(root, ignore_errors=True)


# ---------------------------------------------------------------------------------------- the job side


def run_warm(argv: list[str]) -> int | None:
    """Run this job in a warm child and return its exit status; None when there is no server for this
    environment (one is started for the jobs after this one) and the caller runs the verb itself."""
    root = os.environ.get(ENV)
    if not root or root == "off" or not os.path.isdir(root) or not sys.platform.startswith("linux"):
        return None
    from rlvr_support.cli.main import DOWNLOAD_VERBS

    if "LOCAL_RANK" in os.environ or (argv and argv[0] in DOWNLOAD_VERBS):
        # a rank of `accelerate launch` (each has its own environment), or a verb that may use the network
        # (the servers' libraries were imported offline, as every other verb runs): cold
        return None
    key = environment_key()
    conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        conn.connect(_address(root, key))
    except OSError:
        conn.close()
        _start_server(root, key)
        return None
    payload = json.dumps({"argv": argv, "cwd": os.getcwd()}).encode()
    try:
        socket.send_fds(conn, [struct.pack("!I", len(payload))], [0, 1, 2])
        conn.sendall(payload)
        replies = conn.makefile("r")
        started = replies.readline()
    except OSError:
        started = ""
    if not started.startswith("pid "):  # the server went away before it forked: nothing ran
        conn.close()
        return None
    child = int(started.split()[1])
    received: list[int] = []

    def forward(signum, _frame):
        received.append(signum)
        try:
            os.kill(child, signum)
        except ProcessLookupError:
            pass

    for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP, signal.SIGQUIT):
        signal.signal(sig, forward)
    ended = replies.readline()
    if ended.startswith("exit "):
        return int(ended.split()[1])
    if received:  # the child died of the signal it was passed: so does the job process
        signal.signal(received[-1], signal.SIG_DFL)
        os.kill(os.getpid(), received[-1])
    print(f"error: the job's warm process (pid {child}) ended without an exit status (killed?)", file=sys.stderr)
    return 1


def _start_server(root: str, key: str) -> None:
    """Start this environment's server, detached, unless another job is starting it."""
    try:
        fd = os.open(os.path.join(root, f"{key}.starting"), os.O_CREAT | os.O_EXCL | os.O_WRONLY)
    except OSError:
        return
    os.close(fd)
    # started by a go-between that exits at once, so that the server's parent is init, not this job: Snakemake's
    # benchmark measures a job's whole process tree, and counted the server and every job it forked in the memory
    # of the job that started it (a cold GRPO stage of `make run`: 2,868 MB against 778 MB)
    if pid := os.fork():
        os.waitpid(pid, 0)
        return
    try:
        with open(os.path.join(root, f"{key}.log"), "ab") as log:
            subprocess.Popen([sys.executable, "-m", "rlvr_support.cli.warm_server", root, key],
                             stdin=subprocess.DEVNULL, stdout=log, stderr=log, start_new_session=True, close_fds=True)
    finally:
        os._exit(0)


# ------------------------------------------------------------------------------------- the server side


def serve(root: str, key: str) -> None:
    if environment_key() != key:
        raise SystemExit(f"warm server: started with another environment than {key}'s")
    import importlib

    from rlvr_support.cli.main import OFFLINE_ENV

    # what the jobs' main() sets before any verb imports (cli/main.py stay_offline): the hub libraries read it
    # when they load, so it must be set before they load here
    for var in OFFLINE_ENV:
        os.environ.setdefault(var, "1")

    for name in PRELOAD:
        try:
            importlib.import_module(name)
        except ImportError:
            pass
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        listener.bind(_address(root, key))
    except OSError:  # another server of this environment listens already
        return
    listener.listen(64)
    listening = os.path.join(root, f"{key}.listening")  # for people and tests: which servers run
    open(listening, "w").close()
    signal.signal(signal.SIGCHLD, signal.SIG_IGN)  # children are reaped by the kernel
    last = time.monotonic()
    try:
        while os.path.isdir(root) and time.monotonic() - last < IDLE_S:
            ready, _, _ = select.select([listener], [], [], 1.0)
            if ready:
                conn, _ = listener.accept()
                _fork_job(conn, listener)
                last = time.monotonic()
    finally:
        for leftover in (listening, os.path.join(root, f"{key}.starting")):
            try:
                os.unlink(leftover)
            except OSError:
                pass


def _fork_job(conn: socket.socket, listener: socket.socket) -> None:
    try:
        header, fds, _, _ = socket.recv_fds(conn, 4, 3)
        size = struct.unpack("!I", header)[0]
        payload = b""
        while len(payload) < size:
            chunk = conn.recv(size - len(payload))
            if not chunk:
                raise OSError("the job process went away")
            payload += chunk
        request = json.loads(payload)
    except (OSError, ValueError, struct.error):
        conn.close()
        return
    pid = os.fork()
    if pid == 0:
        listener.close()
        _run_child(conn, fds, request)  # never returns
    # the server's log: which jobs it forked
    print(f"job {pid}: {' '.join(request['argv'][:1])} in {request['cwd']}", file=sys.stderr, flush=True)
    conn.close()
    for fd in fds:
        os.close(fd)


def _run_child(conn: socket.socket, fds: list[int], request: dict) -> None:
    import atexit
    import resource
    import threading
    import traceback

    signal.signal(signal.SIGCHLD, signal.SIG_DFL)  # the job's own subprocesses are waited for
    os.setsid()
    for target, fd in enumerate(fds):
        os.dup2(fd, target)
        os.close(fd)
    os.chdir(request["cwd"])
    sys.argv = ["rlvr_support", *request["argv"]]
    conn.sendall(f"pid {os.getpid()}\n".encode())

    def watch():  # the job process is gone (killed): so is its work
        try:
            while conn.recv(1):
                pass
        except OSError:
            pass
        os.kill(os.getpid(), signal.SIGKILL)

    threading.Thread(target=watch, daemon=True).start()
    rc = 1
    try:
        from rlvr_support.cli.main import main

        rc = main()
    except SystemExit as e:
        rc = e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
        if isinstance(e.code, str):
            print(e.code, file=sys.stderr)
    except BaseException:  # noqa: BLE001  what the interpreter would print, then exit 1
        traceback.print_exc()
    try:
        atexit._run_exitfuncs()
        if not rc:  # a failed job's log ends with its one-line error (cli/failed_jobs.py shows the end)
            peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
            print(RSS_LINE.format(mb=peak), file=sys.stderr)
        sys.stdout.flush()
        sys.stderr.flush()
        conn.sendall(f"exit {int(rc or 0)}\n".encode())
    finally:
        os._exit(int(rc or 0))


if __name__ == "__main__":
    serve(sys.argv[1], sys.argv[2])
