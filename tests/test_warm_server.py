"""Warm job processes (cli/warm_server.py): a job forked from a warm server writes the bytes a job run
cold writes, returns its exit status and error, and a killed job process takes its child with it."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml

from conftest import SMOKE_CONFIG, assert_most_jobs_ran_warm
from rlvr_support.cli import warm_server

CONFIG = yaml.safe_load(SMOKE_CONFIG.read_text())


def _env(root: Path | None, pin: bool = True) -> dict:
    """A job's environment: pinned numerics as the smoke run's jobs have them (or none, as an unpinned CPU
    study's); warm under `root`."""
    env = {k: v for k, v in os.environ.items() if k != warm_server.ENV}
    env["RLVR_NUMERICS"] = json.dumps({"pin": pin})
    env[warm_server.ENV] = str(root) if root else "off"
    return env


def _job(args: list[str], cwd: Path, env: dict, check: bool = True) -> subprocess.CompletedProcess:
    proc = subprocess.run([sys.executable, "-m", "rlvr_support", *args], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=600)
    if check:
        assert proc.returncode == 0, proc.stderr[-3000:]
    return proc


def _servers(root: Path) -> list[int]:
    """The pids of the warm servers (and their children) serving `root`."""
    pids = []
    for proc in Path("/proc").iterdir():
        try:
            cmd = (proc / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if b"rlvr_support.cli.warm_server" in cmd and str(root).encode() in cmd:
            pids.append(int(proc.name))
    return pids


def _wait_for_server(root: Path, servers: int = 1, timeout: float = 120) -> None:
    t0 = time.time()
    while len(list(root.glob("*.listening"))) < servers:
        assert time.time() - t0 < timeout, f"no warm server listened in {root}: {list(root.iterdir())}"
        time.sleep(0.2)


@pytest.fixture
def warm_root(tmp_path):
    root = tmp_path / "servers"
    root.mkdir()
    yield root
    for pid in _servers(root):
        os.kill(pid, signal.SIGKILL)


def _smoke_jobs(smoke_run: Path, out: str) -> list[list[str]]:
    """Pretraining (2 threads), a GRPO stage and a sample job of the smoke config, writing under `out`."""
    res = smoke_run / "results"
    base = {**CONFIG["base"], "train": {**CONFIG["base"]["train"], "steps": 30}}
    rl = {**CONFIG["rl"], "steps": 2}
    sampling = {**CONFIG["sampling"], "benchmarks": {}, "token_arrays": None, "shards": 1}
    return [
        ["pretrain", "--corpus", str(res / "data/corpus.jsonl"), "--cfg", json.dumps(base), "--seed", "0",
         "--threads", "2", "--out", f"{out}/base/manifest.json"],
        ["train", "--parent", f"{out}/base/manifest.json", "--task", "math", "--prompts",
         str(res / "data/prompts/math.jsonl"), "--cfg", json.dumps(rl), "--seed", "0", "--chain", "math",
         "--out", f"{out}/math/manifest.json"],
        ["sample", "--model", f"{out}/math/manifest.json", "--prompts", str(res / "data/prompts/math.jsonl"),
         "--cfg", json.dumps(sampling), "--job", "math", "--out", f"{out}/math.parquet", "--threads", "1",
         "--gpus", "0", "--shard", "0"],
    ]


@pytest.mark.slow
def test_warm_jobs_write_the_bytes_of_cold_jobs(smoke_run, tmp_path, warm_root):
    # the same relative paths in each folder: a checkpoint records its parent's path, and sampling seeds
    # follow the checkpoint's files
    folders = {name: tmp_path / name for name in ("cold", "first", "warm")}
    for folder in folders.values():
        folder.mkdir()
    for args in _smoke_jobs(smoke_run, "run"):
        _job(args, folders["cold"], _env(None))
    # the first job of each environment runs cold and starts its server; then the same jobs again, warm
    warm = _env(warm_root)
    for args in _smoke_jobs(smoke_run, "run"):
        _job(args, folders["first"], warm)
    _wait_for_server(warm_root, servers=2)  # 2 threads (pretraining), 1 thread (the others)
    for args in _smoke_jobs(smoke_run, "run"):
        log = _job(args, folders["warm"], warm).stderr
        assert "warm job: peak RSS" in log, f"{args[0]} ran cold: {log[-2000:]}"
    # every file the jobs wrote (weights, tokenizer and trainer files, reward curve, samples), but what
    # records a time: the manifests' seconds and the sidecars
    files = sorted(p.relative_to(folders["cold"] / "run") for p in (folders["cold"] / "run").rglob("*")
                   if p.is_file() and p.name != "manifest.json" and not p.name.endswith(".prov.json")
                   and not p.name.startswith("."))  # .provenance-tree: the tree's own record
    assert {"base/model/model.safetensors", "math/model/tokenizer_config.json", "math.parquet"} <= set(map(str, files))
    for f in files:
        assert (folders["warm"] / "run" / f).read_bytes() == (folders["cold"] / "run" / f).read_bytes(), \
            f"{f} differs"


@pytest.mark.slow
def test_an_unpinned_job_run_warm_writes_the_bytes_of_a_cold_one(smoke_run, tmp_path, warm_root):
    """An unpinned CPU study (tests/config/smollm2-reduced.yaml) runs warm too: one server for every
    thread count, each child setting its own."""
    sample = _smoke_jobs(smoke_run, "run")[2]
    sample[sample.index("--model") + 1] = str(smoke_run / "results/checkpoints/math/seed0/manifest.json")
    written = {}
    for name, env in (("cold", _env(None, pin=False)), ("first", _env(warm_root, pin=False)),
                      ("warm", _env(warm_root, pin=False))):
        (tmp_path / name).mkdir()
        log = _job(sample, tmp_path / name, env).stderr
        assert ("warm job: peak RSS" in log) == (name == "warm"), f"{name}: {log[-2000:]}"
        written[name] = (tmp_path / name / "run" / "math.parquet").read_bytes()
        if name == "first":
            _wait_for_server(warm_root)
    assert written["warm"] == written["cold"] == written["first"]


@pytest.mark.slow
def test_the_session_smoke_run_ran_its_jobs_warm(smoke_run):
    assert_most_jobs_ran_warm(smoke_run)


def test_a_warm_job_returns_its_exit_status_and_error(tmp_path, warm_root):
    env = _env(warm_root)
    bad = ["budget", "--configfile", str(tmp_path / "missing.yaml")]
    cold = _job(bad, tmp_path, _env(None), check=False)
    _job(bad, tmp_path, env, check=False)  # starts the server
    _wait_for_server(warm_root)
    got = _job(bad, tmp_path, env, check=False)
    forked = "".join(log.read_text() for log in warm_root.glob("*.log"))
    assert f"budget in {tmp_path}" in forked, f"the failing job did not run warm: {forked}"
    assert got.returncode == cold.returncode != 0
    assert got.stderr == cold.stderr  # its log ends with its one-line error, as a cold job's does


def _long_pretraining(smoke_run: Path) -> list[str]:
    args = _smoke_jobs(smoke_run, "long")[0]
    args[args.index("--cfg") + 1] = json.dumps({**CONFIG["base"], "train": {**CONFIG["base"]["train"],
                                                                           "steps": 100_000}})
    return args


def test_the_server_is_outside_the_process_tree_of_the_job_that_started_it(smoke_run, tmp_path, warm_root):
    """Snakemake's benchmark measures a job's process tree: a server left under the job that started it (and
    every job the server forks) would count in that job's memory."""
    import psutil

    proc = subprocess.Popen([sys.executable, "-m", "rlvr_support", *_long_pretraining(smoke_run)], cwd=tmp_path,
                            env=_env(warm_root), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        _wait_for_server(warm_root)  # no server yet: the job runs cold and starts one
        tree = {p.pid for p in psutil.Process(proc.pid).children(recursive=True)}
        servers = set(_servers(warm_root))
    finally:
        proc.kill()
        proc.wait()
    assert servers and not tree & servers, f"servers {servers} in the job's tree {tree}"


@pytest.mark.parametrize("sig", [signal.SIGKILL, signal.SIGTERM])
def test_a_stopped_job_process_stops_its_warm_child(smoke_run, tmp_path, warm_root, sig):
    env = _env(warm_root)
    args = _long_pretraining(smoke_run)
    _job(["pretrain", "--threads", "2", "--help"], tmp_path, env)  # starts the server of its environment
    _wait_for_server(warm_root)
    proc = subprocess.Popen([sys.executable, "-m", "rlvr_support", *args], cwd=tmp_path, env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    t0 = time.time()
    while len(_servers(warm_root)) < 2:  # the server and the child running the job
        assert proc.poll() is None and time.time() - t0 < 120, "the long job did not start in a warm child"
        time.sleep(0.2)
    proc.send_signal(sig)
    assert proc.wait(timeout=30) == -sig
    t0 = time.time()
    while len(_servers(warm_root)) > 1:
        assert time.time() - t0 < 10, f"the warm child outlived its job process (signal {sig.name})"
        time.sleep(0.2)
