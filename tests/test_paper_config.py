"""configs/paper.yaml plans under the SLURM profile, with its two base models as wildcards of one DAG."""

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from rlvr_support.config.validate import ConfigError, validate_config

REPO = Path(__file__).resolve().parents[1]
SNAKEMAKE = str(Path(sys.executable).with_name("snakemake"))


@pytest.fixture(scope="module")
def paper_plan(tmp_path_factory):
    """`snakemake --profile slurm -n -p` on the paper config, from the repository root."""
    env = dict(os.environ, RLVR_SLURM_PARTITION="cpu", RLVR_SLURM_ACCOUNT="test",
               RLVR_SLURM_GPU_PARTITION="gpu")
    proc = subprocess.run([SNAKEMAKE, "--profile", "slurm", "--configfile", "configs/paper.yaml", "-n", "-p",
                           "--", "all"], cwd=REPO, env=env, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    return proc.stdout + proc.stderr


def job_counts(plan: str) -> dict[str, int]:
    table = plan[plan.index("Job stats:"):]
    return {m.group(1): int(m.group(2)) for m in re.finditer(r"^(\w+)\s+(\d+)$", table, re.M)}


@pytest.mark.snakemake
def test_both_base_models_are_planned_in_one_dag(paper_plan):
    cfg = yaml.safe_load((REPO / "configs" / "paper.yaml").read_text())
    models = cfg["models"]
    assert set(models) == {"qwen3-8b-base", "qwen2.5-math-7b"}
    counts = job_counts(paper_plan)
    assert counts["base_model"] == len(models)
    assert counts["source_data"] == 3  # prompts are shared by both models (one job per task)
    assert counts["train_stage"] == len(models) * len(cfg["chains"]) * len(cfg["rl"]["seeds"])
    for name, spec in models.items():
        # each model's base rule gets its own spec and writes under its own folder
        assert re.search(rf"base-model --cfg '[^']*\"path\":\"{re.escape(spec['path'])}\"[^']*' "
                         rf"--out results/{re.escape(name)}/checkpoints/base/manifest.json", paper_plan)
        assert f"--scores-root results/{name}/scores" in paper_plan
        assert f"results/{name}/tables/headline.md" in paper_plan
        assert f"--parent results/{name}/checkpoints/base/manifest.json" in paper_plan
    # no job reads another model's checkpoints: every train/sample command stays in one model's folder
    for line in paper_plan.splitlines():
        if " train --parent " in line or " sample --model " in line:
            folders = set(re.findall(r"results/(qwen[^/]+)/", line))
            assert len(folders) == 1, line
    assert "{model}" not in paper_plan and "{RESULTS}" not in paper_plan


@pytest.mark.snakemake
def test_the_plan_names_the_unpinned_hub_sources(paper_plan):
    """Printed while the config is read (common.smk), so before any job."""
    warning = paper_plan[paper_plan.index("WARNING: not pinned"):]
    assert "models.qwen3-8b-base (Qwen/Qwen3-8B-Base): no revision" in warning
    assert "world.tasks.joint[0] (TingchenFu/MathIF gsm8k_double.jsonl): no revision" in warning


@pytest.mark.snakemake
def test_one_model_of_the_paper_config_can_be_run_alone():
    """Naming one model's file plans that model's study only."""
    proc = subprocess.run([SNAKEMAKE, "--cores", "1", "--configfile", "configs/paper.yaml", "-n", "--",
                           "results/qwen2.5-math-7b/tables/headline.md"], cwd=REPO, capture_output=True,
                          text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    assert "results/qwen2.5-math-7b/" in proc.stdout and "results/qwen3-8b-base/" not in proc.stdout


def _config(**changes) -> dict:
    cfg = yaml.safe_load((REPO / "configs" / "paper.yaml").read_text())
    cfg.update(changes)
    return cfg


def test_base_and_models_together_are_an_error():
    with pytest.raises(ConfigError, match="give exactly one"):
        validate_config(_config(base={"kind": "hf", "path": "Qwen/Qwen3-8B-Base"}))


def test_a_pretrained_toy_base_is_not_a_model_of_several():
    models = {"toy": {"kind": "pretrain", "seed": 0, "arch": {"hidden_size": 8, "intermediate_size": 8, "num_layers": 1,
                                                             "num_heads": 1, "max_positions": 8},
                      "train": {"steps": 1, "batch_size": 1, "lr": 0.1, "lr_floor": 0.0, "warmup": 0,
                                "weight_decay": 0.0, "save_every": 1}}}
    with pytest.raises(ConfigError, match="models.toy.kind: pretrain"):
        validate_config(_config(models=models))


@pytest.mark.parametrize("name", ["data", "a/b"])
def test_model_names_that_would_clash_with_paths_are_rejected(name):
    with pytest.raises(ConfigError, match="models"):
        validate_config(_config(models={name: {"kind": "hf", "path": "x/y"}}))


# ---- the paper plans under the SLURM profile: GPUs where models load, no download on a node ----

MODEL_RULES = {"train_stage", "sample", "sample_routed", "sample_large_k", "base_metrics", "positional_js", "opening_intervention",
               "single_token", "perplexity"}
DOWNLOAD_RULES = {"source_data", "base_model", "external_checkpoint", "import_hub_files", "import_tokenizer"}
DOWNLOAD_VERBS = {"data-sources", "base-model", "checkpoint", "import-hub-files", "import-tokenizer"}


def local_rules(config: str) -> set[str]:
    """The rules Snakemake runs on the submit host (localrules) for this config, from its own API."""
    from snakemake.api import SnakemakeApi
    from snakemake.settings.types import ConfigSettings, OutputSettings, ResourceSettings, StorageSettings

    with SnakemakeApi(OutputSettings(quiet=True)) as api:
        wf = api.workflow(resource_settings=ResourceSettings(), storage_settings=StorageSettings(),
                          config_settings=ConfigSettings(configfiles=[REPO / config]), snakefile=REPO / "Snakefile",
                          workdir=REPO)._workflow
        # Workflow.is_local without the executor part (this API instance executes nothing)
        return {r.name for r in wf.rules if r.group is None and (r.name in wf._localrules or r.norun)}


def plan_jobs(config: str) -> list[dict]:
    """Every job of `snakemake --profile slurm -n -p all`: rule, local or submitted, resources, shell command.
    (A dry run prints local jobs as `rule` too: whether a rule is local comes from local_rules.)"""
    env = dict(os.environ, RLVR_SLURM_PARTITION="cpu", RLVR_SLURM_ACCOUNT="test", RLVR_SLURM_GPU_PARTITION="gpu")
    proc = subprocess.run([SNAKEMAKE, "--profile", "slurm", "--configfile", config, "-n", "-p", "--", "all"],
                          cwd=REPO, env=env, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    local = local_rules(config)
    jobs, job = [], None
    for line in (proc.stdout + proc.stderr).splitlines():
        if m := re.match(r"^(?:local)?rule (\w+):", line):
            job = {"rule": m.group(1), "local": m.group(1) in local, "resources": {}, "shell": ""}
            jobs.append(job)
        elif job and (m := re.match(r"^\s+resources: (.*)$", line)):
            job["resources"] = dict(kv.split("=", 1) for kv in m.group(1).split(", ") if "=" in kv)
        elif job and line.startswith("Shell command: "):
            job["shell"] = line.removeprefix("Shell command: ")
    return jobs


@pytest.mark.parametrize("config", ["configs/paper.yaml", "configs/paper-limit.yaml", "configs/paper-leash.yaml",
                                    "configs/leash-prorl.yaml", "configs/limit-simplerl.yaml"])
@pytest.mark.snakemake
def test_every_model_loading_job_asks_for_gpus_and_no_submitted_job_downloads(config):
    jobs = plan_jobs(config)
    rules = {j["rule"] for j in jobs}
    trains = bool(yaml.safe_load((REPO / config).read_text())["chains"])  # the released pairs train nothing
    assert {"sample", "base_metrics", "positional_js"} | ({"train_stage"} if trains else set()) <= rules
    for j in jobs:
        if j["rule"] in MODEL_RULES:
            assert not j["local"] and int(j["resources"].get("gpu", 0)) >= 1, j
            assert j["resources"].get("slurm_partition") == "gpu", j
        if j["rule"] in DOWNLOAD_RULES:
            assert j["local"], f"{j['rule']} downloads: it must run on the submit host"
        if not j["local"]:
            verb = re.search(r"-m rlvr_support (\S+)", j["shell"])
            assert verb and verb.group(1) not in DOWNLOAD_VERBS and "pip download" not in j["shell"], j
    # the model-loading analyses get bfloat16 on their GPUs
    analyses = [j for j in jobs if j["rule"] in {"positional_js", "opening_intervention", "single_token", "base_metrics"}]
    assert analyses and all("--gpus 1 --dtype auto" in j["shell"] for j in analyses), analyses[:1]


def test_jobs_never_touch_the_network():
    """Every verb but the download verbs sets the Hugging Face libraries offline before they load."""
    from rlvr_support.cli.main import DOWNLOAD_VERBS, OFFLINE_ENV

    code = ("import os, sys\n"
            "from rlvr_support.cli.main import main\n"
            "sys.argv = ['x', 'sample-merge', '--shards', 'none.parquet', '--out', 'o.parquet']\n"
            "main()\n"
            "print({v: os.environ.get(v) for v in %r})\n"
            "import huggingface_hub.constants as c; print('hub offline', c.HF_HUB_OFFLINE)\n" % (OFFLINE_ENV,))
    env = {k: v for k, v in os.environ.items() if k not in OFFLINE_ENV}
    proc = subprocess.run([sys.executable, "-c", code], cwd=REPO, env=env, capture_output=True, text=True,
                          timeout=120)
    assert "'HF_HUB_OFFLINE': '1'" in proc.stdout and "hub offline True" in proc.stdout, proc.stdout + proc.stderr
    assert set(DOWNLOAD_VERBS) == {"data-sources", "base-model", "checkpoint", "import-hub-files", "import-tokenizer"}


# ---- the paper's jobs under the SLURM profile: retries within the config's limits, cores shared, ports apart


def _profile_attempts() -> int:
    """The attempts a failed job gets under the SLURM profile: the first and its `retries`."""
    return 1 + int(re.search(r"^retries: (\d+)", (REPO / "slurm" / "config.yaml").read_text(), re.M).group(1))


def _paper_plan(workdir: Path, *overlays: Path):
    from rlvr_support.review.rerun_reasons import Plan

    return Plan(["all"], workdir, REPO / "Snakefile", [REPO / "configs" / "paper.yaml", *overlays])


def _asked(job, attempts: int) -> list[tuple[int, int]]:
    """(runtime, mem_mb) a job asks SLURM for on each attempt."""
    out = []
    for attempt in range(1, attempts + 1):
        job.attempt = attempt
        out.append((job.resources["runtime"], job.resources["mem_mb"]))
    return out


@pytest.mark.snakemake
def test_retries_ask_for_no_more_than_the_config_allows(tmp_path):
    """A retry asks for what the first attempt did (no 96 h / 1.5 TB train job on attempt 3) unless
    resources.<kind>.max_runtime / max_mem_mb allow more, and then for k times as much up to them."""
    attempts = _profile_attempts()
    assert attempts == 3
    res = yaml.safe_load((REPO / "configs" / "paper.yaml").read_text())["resources"]
    with _paper_plan(tmp_path / "as-is") as plan:
        local = plan.workflow._localrules  # as local_rules() reads them
        submitted = [j for j in plan.dag.jobs if j.rule.name not in local and not j.rule.norun]
        assert {"train_stage", "sample", "positional_js"} <= {j.rule.name for j in submitted}
        for j in submitted:
            asked = _asked(j, attempts)
            assert asked == [asked[0]] * attempts, (j.rule.name, asked)
        train = next(j for j in submitted if j.rule.name == "train_stage")
        assert _asked(train, attempts)[-1] == (res["train"]["runtime"], res["train"]["mem_mb"])
    overlay = tmp_path / "limits.yaml"
    overlay.write_text(yaml.safe_dump({"resources": {"train": {"max_runtime": 4320, "max_mem_mb": 768000}}}))
    with _paper_plan(tmp_path / "limits", overlay) as plan:
        train = next(j for j in plan.dag.jobs if j.rule.name == "train_stage")
        assert _asked(train, attempts) == [(2880, 512000), (4320, 768000), (4320, 768000)]
        sample = next(j for j in plan.dag.jobs if j.rule.name == "sample")
        assert _asked(sample, attempts) == [(res["sample"]["runtime"], res["sample"]["mem_mb"])] * attempts


def test_a_limit_below_the_first_attempt_is_an_error():
    cfg = yaml.safe_load((REPO / "configs" / "paper.yaml").read_text())
    cfg["resources"]["train"]["max_runtime"] = cfg["resources"]["train"]["runtime"] - 1
    with pytest.raises(ConfigError, match=r"resources.train.max_runtime: 2879 is below runtime \(2880\)"):
        validate_config(cfg)


def _ports(launchers: list[str], **env) -> list[int]:
    """The --main_process_port each launcher's bash gives, in an environment with `env` (and no SLURM job)."""
    exprs = [re.search(r"--main_process_port (\S+)", launcher).group(1) for launcher in launchers]
    base = {k: v for k, v in os.environ.items() if k not in ("SLURM_JOB_ID", "RLVR_MAIN_PROCESS_PORT")}
    proc = subprocess.run(["bash", "-c", "echo " + " ".join(exprs)], env={**base, **env}, capture_output=True,
                          text=True, timeout=60, check=True)
    return [int(p) for p in proc.stdout.split()]


@pytest.mark.snakemake
def test_each_training_process_gets_its_share_of_the_cores_and_each_job_a_port(tmp_path):
    """8 processes on a 32-core task get 4 threads each; a one-node job's rendezvous port comes from its SLURM
    job id (distinct for two jobs sharing a node), outside SLURM from its output path, not accelerate's 29500."""
    res = yaml.safe_load((REPO / "configs" / "paper.yaml").read_text())["resources"]["train"]
    threads = res["cpus_per_task"] // res["gpu"]
    assert threads == 4
    with _paper_plan(tmp_path / "one-node") as plan:
        launchers = [j.params.launcher for j in plan.dag.jobs if j.rule.name == "train_stage"]
    assert len(launchers) == 30
    assert all(f"--num_processes 8 --main_process_port " in x and f"--num_cpu_threads_per_process {threads} -m "
               in x for x in launchers), launchers[0]
    assert _ports(launchers[:2], SLURM_JOB_ID="1234567") == [34567, 34567]
    assert _ports(launchers[:2], SLURM_JOB_ID="1234568") == [34568, 34568]
    alone = _ports(launchers)
    assert len(set(alone)) == len(launchers) and all(20000 <= p < 40000 for p in alone)
    assert _ports(launchers[:1], SLURM_JOB_ID="7", RLVR_MAIN_PROCESS_PORT="29999") == [29999]
    # two nodes: the per-node launcher script takes its port from the job id itself; the threads are passed on
    overlay = tmp_path / "two-nodes.yaml"
    overlay.write_text(yaml.safe_dump({"resources": {"train": {"nodes": 2, "tasks": 2}}}))
    with _paper_plan(tmp_path / "two-nodes", overlay) as plan:
        launcher = next(j.params.launcher for j in plan.dag.jobs if j.rule.name == "train_stage")
    assert "accelerate_multinode.sh" in launcher and f" 8 --num_cpu_threads_per_process {threads} -m " in launcher
