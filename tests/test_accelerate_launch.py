"""Training at scale: the accelerate configs, the train rule's launcher, the multi-node srun script."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

import fake_slurm
from conftest import REPO, SMOKE_CONFIG

SNAKEMAKE = str(Path(sys.executable).parent / "snakemake")
SCRIPT = REPO / "scripts" / "accelerate_multinode.sh"


@pytest.mark.parametrize("name,kind", [("zero3", "DEEPSPEED"), ("fsdp", "FSDP")])
def test_accelerate_configs_load_with_accelerate(name, kind):
    from accelerate.commands.config.config_args import load_config_from_file

    cfg = load_config_from_file(str(REPO / "configs" / "accelerate" / f"{name}.yaml"))
    assert cfg.distributed_type.value == kind
    assert cfg.mixed_precision == "bf16"
    if kind == "DEEPSPEED":
        assert cfg.deepspeed_config["zero_stage"] == 3 and cfg.deepspeed_config["zero3_save_16bit_model"]
    else:
        assert cfg.fsdp_config["fsdp_state_dict_type"] == "FULL_STATE_DICT"


def _train_command(tmp_path, **train):
    """The shell command snakemake would run for one train_stage job under an overridden resources.train."""
    cfg = yaml.safe_load(SMOKE_CONFIG.read_text())
    cfg["resources"]["train"].update(train)
    config = tmp_path / "cfg.yaml"
    config.write_text(yaml.safe_dump(cfg))
    proc = subprocess.run(
        [SNAKEMAKE, "-s", str(REPO / "Snakefile"), "-d", str(tmp_path), "--configfile", str(config), "-n", "-p",
         "-c1", "--forceall", "results/checkpoints/math/seed0/manifest.json"],
        capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    out = proc.stdout + proc.stderr
    block = out[out.index("rule train_stage:"):]
    resources = re.search(r"resources: (.*)", block).group(1)
    command = next(line for line in block.splitlines() if " train --parent " in line)
    return command.split("Shell command: ", 1)[-1].strip(), resources


@pytest.mark.snakemake
def test_toy_config_trains_with_plain_python(tmp_path):
    command, resources = _train_command(tmp_path)
    assert command.startswith("python -m rlvr_support train ")
    assert " --gpus 0 " in command.split(" > ")[0] + " "
    assert "mpi=" not in resources


@pytest.mark.snakemake
def test_accelerate_launcher_on_one_node(tmp_path):
    command, resources = _train_command(tmp_path, launcher="accelerate", gpu=4,
                                        accelerate_config="configs/accelerate/fsdp.yaml")
    # a port of its own (tests/test_paper_config.py evaluates it) and the task's one core shared (at least 1 each)
    assert re.match(rf"accelerate launch --config_file {REPO}/configs/accelerate/fsdp.yaml --num_machines 1 "
                    r"--num_processes 4 --main_process_port \$\{RLVR_MAIN_PROCESS_PORT:-\$\(\(20000\+"
                    r"\$\{SLURM_JOB_ID:-\d+\}%20000\)\)\} --num_cpu_threads_per_process 1 -m rlvr_support train ",
                    command), command
    assert " --gpus 4 " in command.split(" > ")[0] + " "
    assert "gpu=4" in resources and "nodes=1" in resources and "mpi=" not in resources


@pytest.mark.snakemake
def test_accelerate_launcher_across_nodes_goes_through_srun(tmp_path):
    command, resources = _train_command(tmp_path, launcher="accelerate", gpu=8, nodes=2, tasks=2)
    assert command.startswith(f"bash {SCRIPT} {REPO}/configs/accelerate/zero3.yaml 8 "
                              "--num_cpu_threads_per_process 1 -m rlvr_support train ")
    assert " --gpus 8 " in command.split(" > ")[0] + " "  # per node
    for want in ("gpu=16", "nodes=2", "tasks=2", "mpi=srun"):
        assert want in resources, resources


def test_config_rejects_multinode_without_accelerate():
    from rlvr_support.config.validate import ConfigError, validate_config

    cfg = yaml.safe_load(SMOKE_CONFIG.read_text())
    cfg["resources"]["train"].update(nodes=2, tasks=2)
    with pytest.raises(ConfigError, match="launcher: accelerate"):
        validate_config(cfg)
    cfg["resources"]["train"].update(launcher="accelerate", tasks=1)
    with pytest.raises(ConfigError, match="tasks = nodes"):
        validate_config(cfg)
    cfg["resources"]["train"].update(tasks=2)
    validate_config(cfg)


def test_multinode_script_starts_one_launcher_per_node(tmp_path):
    fakebin, state = tmp_path / "bin", tmp_path / "state"
    fake_slurm.install(fakebin, state)
    log = tmp_path / "accelerate.jsonl"
    accelerate = fakebin / "accelerate"
    accelerate.write_text(f"#!{sys.executable}\nimport json, os, sys\n"
                          f"open({str(log)!r}, 'a').write(json.dumps(sys.argv[1:]) + '\\n')\n")
    accelerate.chmod(0o755)
    cfg_json = '{"lr": 1e-06, "name": "a b"}'
    env = {**os.environ, "PATH": f"{fakebin}{os.pathsep}{os.environ['PATH']}",
           "SLURM_JOB_NODELIST": "gpu[3-4]", "SLURM_NNODES": "2", "SLURM_JOB_ID": "777"}
    proc = subprocess.run(["bash", str(SCRIPT), "configs/accelerate/zero3.yaml", "8", "--num_cpu_threads_per_process",
                           "4", "-m", "rlvr_support", "train", "--cfg", cfg_json], capture_output=True, text=True,
                          env=env, timeout=60)
    assert proc.returncode == 0, proc.stderr
    runs = [json.loads(line) for line in log.read_text().splitlines()]
    assert len(runs) == 2
    for rank, argv in enumerate(runs):
        assert argv[0] == "launch"
        opts = {flag: argv[i + 1] for i, flag in enumerate(argv[:-1]) if flag.startswith("--")}
        assert opts["--machine_rank"] == str(rank)
        assert opts["--num_machines"] == "2" and opts["--num_processes"] == "16"
        assert opts["--main_process_ip"] == "gpu3" and opts["--main_process_port"] == str(20000 + 777)
        assert argv[-7:] == ["--num_cpu_threads_per_process", "4", "-m", "rlvr_support", "train", "--cfg", cfg_json]
    srun = fake_slurm.calls(state, "srun")[0]
    assert "--nodes=2" in srun and "--ntasks-per-node=1" in srun


def test_multinode_script_refuses_outside_slurm(tmp_path):
    env = {k: v for k, v in os.environ.items() if not k.startswith("SLURM_")}
    proc = subprocess.run(["bash", str(SCRIPT), "x.yaml", "8", "-m", "rlvr_support"], capture_output=True,
                          text=True, env=env, timeout=30)
    assert proc.returncode == 1 and "inside a SLURM allocation" in proc.stderr
