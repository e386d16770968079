"""The SLURM profile (slurm/config.yaml) with the real snakemake-executor-plugin-slurm.

SLURM itself is replaced by stand-in programs (tests/fake_slurm.py) that log how the plugin
calls them and run the submitted jobs; the tests then read the sbatch/srun command lines:
partition, account, time, memory, CPUs, GPUs, retries with more time and memory, and that
local rules never reach sbatch.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
import torch
import yaml

import fake_slurm
from conftest import REPO, SMOKE_CONFIG

pytestmark = pytest.mark.snakemake  # every test plans or runs the workflow (dry runs, the fake SLURM)

SNAKEMAKE = str(Path(sys.executable).parent / "snakemake")
SLURM_ENV = ("RLVR_SLURM_PARTITION", "RLVR_SLURM_GPU_PARTITION", "RLVR_SLURM_ACCOUNT")


def _env(fakebin: Path | None = None, **extra) -> dict:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SLURM_", "SBATCH_", "SRUN_"))
           and k not in SLURM_ENV and k != "SNAKEMAKE_PROFILE"}
    path = [str(Path(sys.executable).parent), env.get("PATH", "")]
    if fakebin:
        path.insert(0, str(fakebin))
    env["PATH"] = os.pathsep.join(path)
    env.update(extra)
    return env


def _jobs_by_rule(output: str) -> dict[str, list[dict]]:
    """Parse snakemake's dry-run listing: rule name -> list of resource dicts."""
    jobs: dict[str, list[dict]] = {}
    rule = None
    for line in output.splitlines():
        if m := re.match(r"^(?:local)?rule (\w+):", line):
            rule = m.group(1)
        elif rule and (m := re.match(r"^\s+resources: (.*)$", line)):
            res = dict(kv.split("=", 1) for kv in m.group(1).split(", ") if "=" in kv)
            jobs.setdefault(rule, []).append(res)
            rule = None
    return jobs


# --- dry run: what `snakemake --profile slurm all -n` plans with the default config ----------------

def test_profile_resolves_from_repository_root_and_plans_gpu_resources(tmp_path):
    # Exactly the README command, run from the repository root; -d keeps the checkout clean.
    proc = subprocess.run(
        [SNAKEMAKE, "--profile", "slurm", "all", "-n", "-d", str(tmp_path), "--configfile", str(REPO / "config.yaml")],
        cwd=REPO, capture_output=True, text=True, env=_env(), timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    out = proc.stdout + proc.stderr
    assert "Using profile slurm for setting default command line arguments" in out
    jobs = _jobs_by_rule(out)
    cfg = yaml.safe_load((REPO / "config.yaml").read_text())
    n_ckpt = len(cfg["chains"]) * len(cfg["rl"]["seeds"])
    assert len(jobs["train_stage"]) == n_ckpt
    # the trajectory chains' intermediate checkpoints (every `every` steps before the last) are sampled too
    t = cfg["trajectory"]
    points = len(t["chains"]) * len(cfg["rl"]["seeds"]) * len(range(t["every"], cfg["rl"]["steps"], t["every"]))
    assert len(jobs["sample"]) == (n_ckpt + 1) * len(cfg["eval_sets"]) + points * len(t.get("eval_sets", cfg["eval_sets"]))
    for rule, kind in [("train_stage", "train"), ("sample", "sample"), ("pretrain_base", "pretrain")]:
        want = cfg["resources"][kind]
        for res in jobs[rule]:
            assert res["gpu"] == str(want["gpu"] * want["nodes"]), (rule, res)
            assert res["mem_mb"] == str(want["mem_mb"]), (rule, res)
            assert res["runtime"] == str(want["runtime"]), (rule, res)
            assert res["cpus_per_task"] == str(want["cpus_per_task"]), (rule, res)


def test_profile_reads_partition_and_account_from_the_environment(tmp_path):
    env = _env(RLVR_SLURM_PARTITION="cpuq", RLVR_SLURM_GPU_PARTITION="gpuq", RLVR_SLURM_ACCOUNT="proj1")
    proc = subprocess.run(
        [SNAKEMAKE, "-s", str(REPO / "Snakefile"), "--profile", str(REPO / "slurm"), "all", "-n",
         "--configfile", str(SMOKE_CONFIG)],
        cwd=tmp_path, capture_output=True, text=True, env=env, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    jobs = _jobs_by_rule(proc.stdout + proc.stderr)
    for rule in ("train_stage", "sample", "pretrain_base", "base_metrics", "positional_js", "opening_intervention",
                 "perplexity", "sample_routed", "sample_large_k", "single_token"):
        assert {r["slurm_partition"] for r in jobs[rule]} == {"gpuq"}, rule
    for rule in ("toy_corpus", "score"):
        assert {r["slurm_partition"] for r in jobs[rule]} == {"cpuq"}, rule
    assert {r["slurm_account"] for rs in jobs.values() for r in rs} == {"proj1"}


def test_command_line_default_resources_replace_the_profiles(tmp_path):
    proc = subprocess.run(
        [SNAKEMAKE, "-s", str(REPO / "Snakefile"), "--profile", str(REPO / "slurm"), "all", "-n",
         "--configfile", str(SMOKE_CONFIG), "--default-resources", "slurm_partition=clipart", "slurm_account=acct2"],
        cwd=tmp_path, capture_output=True, text=True, env=_env(RLVR_SLURM_PARTITION="cpuq"), timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    jobs = _jobs_by_rule(proc.stdout + proc.stderr)
    assert {r["slurm_partition"] for rs in jobs.values() for r in rs} == {"clipart"}
    assert {r["slurm_account"] for rs in jobs.values() for r in rs} == {"acct2"}
    # rules that go to SLURM keep their own sizes from the config
    assert {r["runtime"] for r in jobs["train_stage"]} == {str(yaml.safe_load(SMOKE_CONFIG.read_text())["resources"]["train"]["runtime"])}


def _group_jobs(output: str) -> dict[str, list[str]]:
    """Parse a dry run's group jobs: group id -> the rules of its member jobs."""
    groups: dict[str, list[str]] = {}
    group = None
    for line in output.splitlines():
        if m := re.match(r"^\[.*\] Group job (\S+) \(jobs", line):
            group = groups.setdefault(m.group(1), [])
        elif line.startswith("["):  # a job outside any group
            group = None
        elif group is not None and (m := re.match(r"^\s+rule (\w+):", line)):
            group.append(m.group(1))
    return groups


def test_sample_jobs_of_a_checkpoint_group_into_one_slurm_job(tmp_path):
    """resources.sample.group: checkpoint: the profile's group-components make each checkpoint's sample jobs (its
    eval sets; a trajectory point's; routed and large-k sampling) one group job; the outputs stay those of the
    snapshot, the budget counts the same SLURM jobs, and without the key there is no group."""
    sys.path.insert(0, str(REPO / "scripts"))
    from plan_snapshot import planned_outputs
    from rlvr_support.config.defaults import fill_defaults
    from rlvr_support.config.validate import validate_config
    from rlvr_support.planning.budget import budget_config, plan

    raw = yaml.safe_load(SMOKE_CONFIG.read_text())
    raw["resources"]["sample"]["group"] = "checkpoint"
    grouped = tmp_path / "grouped.yaml"
    grouped.write_text(yaml.safe_dump({"resources": {"sample": raw["resources"]["sample"]}}))
    runs = {}
    for name, configs in (("off", [SMOKE_CONFIG]), ("on", [SMOKE_CONFIG, grouped])):
        proc = subprocess.run([SNAKEMAKE, "--profile", "slurm", "all", "-n", "-d", str(tmp_path / name),
                               "--configfile", *map(str, configs)],
                              cwd=REPO, capture_output=True, text=True, env=_env(), timeout=300)
        assert proc.returncode == 0, proc.stderr[-3000:]
        runs[name] = proc.stdout + proc.stderr
    stats = dict(re.findall(r"^(\w+)\s+(\d+)$", runs["on"], flags=re.M))
    sample_jobs = int(stats["sample"]) + int(stats["sample_routed"]) + int(stats["sample_large_k"])
    assert _group_jobs(runs["off"]) == {} and len(_jobs_by_rule(runs["off"])["sample"]) == int(stats["sample"])
    groups = _group_jobs(runs["on"])
    # base, 6 trained checkpoints and 3 trajectory points: 10 SLURM jobs for 36 sample jobs
    assert (len(groups), sum(map(len, groups.values())), sample_jobs) == (10, 36, 36)
    assert sorted(groups["sample_base"]) == ["sample"] * 3 + ["sample_large_k"] * 3
    assert sorted(groups["sample_math-if/seed0"]) == ["sample"] * 3 + ["sample_routed"] * 3
    assert groups["sample_math/seed0/step1"] == ["sample"] * 3
    rows, _ = plan(budget_config(fill_defaults(validate_config(raw))))
    assert sum(r.slurm_jobs or 0 for r in rows) == len(groups), "the budget counts Snakemake's group jobs"
    snapshot = (REPO / "tests/data/plans/smoke.tsv").read_text().splitlines()
    assert planned_outputs([str(SMOKE_CONFIG), str(grouped)]) == snapshot, "grouping plans the same outputs"


# --- real plugin, stand-in SLURM ------------------------------------------------------------------

def _sbatch_by_rule(state: Path) -> dict[str, list[list[str]]]:
    out: dict[str, list[list[str]]] = {}
    for argv in fake_slurm.calls(state, "sbatch"):
        comment = argv[argv.index("--comment") + 1]
        rule = re.match(r"rule_(\w+?)(?:_wildcards_.*)?$", comment).group(1)
        out.setdefault(rule, []).append(argv)
    return out


def _value(argv: list[str], flag: str) -> str | None:
    """The value of `flag` in an sbatch/srun argv (`-t 10`, `--mem 2000`, `--gpus=1`)."""
    for i, a in enumerate(argv):
        if a == flag and i + 1 < len(argv):
            return argv[i + 1]
        if a.startswith(flag + "="):
            return a.split("=", 1)[1]
    return None


def _run_slurm(workdir: Path, fakebin: Path, config: Path, *args: str, env_extra=None, timeout=900):
    cmd = [SNAKEMAKE, "-s", str(REPO / "Snakefile"), "--profile", str(REPO / "slurm"),
           "--configfile", str(config), "--slurm-init-seconds-before-status-checks", "1",
           "--latency-wait", "5", *args]
    return subprocess.run(cmd, cwd=workdir, capture_output=True, text=True,
                          env=_env(fakebin, **(env_extra or {})), timeout=timeout)


HAS_GPU = torch.cuda.is_available() and torch.cuda.device_count() >= 1
TRAIN_TARGET = "results/checkpoints/math/seed0/manifest.json"
SAMPLE_TARGET = "results/samples/base/math.parquet"


@pytest.fixture(scope="module")
def slurm_run(tmp_path_factory):
    """One RLVR stage and one sampling job through the real plugin on the smoke config, with the
    sampling job asking for one GPU and one retry allowed, up to 1.5 times its time and twice its memory.
    toy_data is a local rule."""
    root = tmp_path_factory.mktemp("slurm")
    fakebin, state, workdir = root / "bin", root / "state", root / "work"
    workdir.mkdir()
    fake_slurm.install(fakebin, state, sync=True)
    cfg = yaml.safe_load(SMOKE_CONFIG.read_text())
    cfg["resources"]["sample"]["gpu"] = 1
    sample = cfg["resources"]["sample"]
    sample.update(max_runtime=sample["runtime"] * 3 // 2, max_mem_mb=2 * sample["mem_mb"])
    config = root / "smoke_gpu_sample.yaml"
    config.write_text(yaml.safe_dump(cfg))
    proc = _run_slurm(workdir, fakebin, config, TRAIN_TARGET, SAMPLE_TARGET, "--retries", "1",
                      env_extra={"RLVR_SLURM_PARTITION": "cpuq", "RLVR_SLURM_GPU_PARTITION": "gpuq",
                                 "RLVR_SLURM_ACCOUNT": "testacct"})
    return proc, workdir, state, cfg


@pytest.mark.slow
def test_jobs_run_through_sbatch_and_local_rules_stay_local(slurm_run):
    proc, workdir, state, _ = slurm_run
    out = proc.stdout[-3000:] + proc.stderr[-5000:]
    assert (workdir / TRAIN_TARGET).is_file(), out
    assert (workdir / "results/checkpoints/base/manifest.json").is_file(), out
    submitted = _sbatch_by_rule(state)
    assert sorted(submitted) == ["pretrain_base", "sample", "toy_corpus", "train_stage"], out
    for rule in ("toy_corpus", "pretrain_base", "train_stage"):
        assert len(submitted[rule]) == 1, f"{rule} was submitted {len(submitted[rule])} times"
    # the local rule ran here, not through SLURM
    assert (workdir / "results/data/prompts/math.jsonl").is_file() and "toy_data" not in submitted
    # job states came from the stand-in accounting, queried by this run's name
    run_names = {argv[argv.index("--job-name") + 1] for argvs in submitted.values() for argv in argvs}
    status_queries = [argv for argv in fake_slurm.calls(state, "sacct") + fake_slurm.calls(state, "squeue")
                      if "--name" in argv]
    assert status_queries and {argv[argv.index("--name") + 1] for argv in status_queries} == run_names
    # each job ran inside the jobstep's srun with the job's CPUs
    sruns = fake_slurm.calls(state, "srun")
    assert len(sruns) == len(fake_slurm.calls(state, "sbatch"))
    assert all("-n1" in a and any(x.startswith("--cpus-per-task=") for x in a) for a in sruns)


@pytest.mark.slow
def test_sbatch_lines_carry_the_configured_resources(slurm_run):
    _, _, state, cfg = slurm_run
    res = cfg["resources"]
    kinds = {"toy_corpus": "cpu", "pretrain_base": "pretrain", "train_stage": "train", "sample": "sample"}
    for rule, argvs in _sbatch_by_rule(state).items():
        argv, want = argvs[0], res[kinds[rule]]
        assert _value(argv, "-p") == ("cpuq" if kinds[rule] == "cpu" else "gpuq"), (rule, argv)
        assert _value(argv, "-A") == "testacct", (rule, argv)
        assert _value(argv, "-t") == str(want["runtime"]), (rule, argv)
        assert _value(argv, "--mem") == str(want["mem_mb"]), (rule, argv)
        assert _value(argv, "--cpus-per-task") == str(want["cpus_per_task"]), (rule, argv)
        assert _value(argv, "--gres") is None, (rule, argv)
        assert _value(argv, "--ntasks-per-gpu") is None, (rule, argv)  # tasks_per_gpu=0 keeps tasks a task count
        if kinds[rule] != "cpu":
            assert _value(argv, "--nodes") == "1", (rule, argv)
        if want.get("gpu", 0):
            assert _value(argv, "--gpus") == str(want["gpu"]), (rule, argv)
        else:
            assert _value(argv, "--gpus") is None and _value(argv, "--ntasks") == "1", (rule, argv)
        assert _value(argv, "-D") is not None and _value(argv, "--wrap") is not None


@pytest.mark.slow
def test_gpu_job_checks_its_gpus_and_retry_gets_more_time_and_memory(slurm_run):
    """The sampling job asked for one GPU: --gpus=1 reaches sbatch and the jobstep's srun, and the job
    checks at start that it sees it. Without a GPU it fails with the clear message, and the retry
    asks for twice the time and memory, within max_runtime and max_mem_mb; where a GPU is visible it
    succeeds at once."""
    proc, workdir, state, cfg = slurm_run
    argvs = _sbatch_by_rule(state)["sample"]
    assert all(_value(a, "--gpus") == "1" for a in argvs)
    assert any("--gpus=1" in a for a in fake_slurm.calls(state, "srun")), "the jobstep did not ask srun for the GPU"
    log = (workdir / "results/logs/sample/base/math.log").read_text()
    if HAS_GPU:
        assert proc.returncode == 0, proc.stderr[-3000:]
        assert len(argvs) == 1 and (workdir / SAMPLE_TARGET).is_file()
    else:
        assert proc.returncode != 0
        assert "asked for 1 GPU(s) but sees 0" in log, log[-2000:]
        assert not (workdir / SAMPLE_TARGET).exists()
        assert len(argvs) == 2, "the profile's retry (here --retries 1) did not resubmit"
        base = cfg["resources"]["sample"]
        assert [_value(a, "-t") for a in argvs] == [str(base["runtime"]), str(base["max_runtime"])]
        assert [_value(a, "--mem") for a in argvs] == [str(base["mem_mb"]), str(2 * base["mem_mb"])]
