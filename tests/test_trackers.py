"""rl.report_to (training/trackers.py): a stage's training curves in TensorBoard, wandb or trackio, under its log folder.

* the tensorboard path end to end: a 2-step `train_stage` on the toy model writes event files into the log folder
  whose `train/reward` scalars are reward_curve.csv's rewards, step by step (read back with tensorboard's
  EventAccumulator), with the run named after chain, task and seed; a rerun from scratch replaces them;
* wandb runs offline unless the user says otherwise, and a tracker whose package is missing stops the stage before
  the model loads;
* the train jobs read rl.report_to only when it names a tracker, and are given their log folder.
"""

from __future__ import annotations

import json

import pandas as pd
import pytest

import rlvr_support.training.stage as grpo
from rlvr_support.config.validate import ConfigError, validate_config
from rlvr_support.training import trackers
from toy_parent import arithmetic_prompts, length_reward, write_parent

RL = {"steps": 2, "group_size": 4, "prompts_per_step": 2, "lr": 1e-3, "temperature": 1.0, "max_completion_tokens": 8,
      "beta": 0.0, "loss_type": "grpo", "epsilon": 0.2, "log_every": 1, "save_every": 10}
ARCH = {"hidden_size": 32, "intermediate_size": 64, "num_layers": 1, "num_heads": 4, "max_positions": 128}


@pytest.fixture(scope="module")
def parent(tmp_path_factory):
    return write_parent(tmp_path_factory.mktemp("parent"), ARCH, arithmetic_prompts())


def _stage(parent, out, log_dir, **rl):
    return grpo.train_stage(str(parent / "manifest.json"), "math", str(parent / "prompts.jsonl"),
                            str(out / "manifest.json"), {**RL, **rl}, seed=0, chain="math", log_dir=str(log_dir))


def _scalars(log_dir):
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    acc = EventAccumulator(str(log_dir))
    acc.Reload()
    return acc


def test_tensorboard_event_files_hold_the_reward_curve(parent, tmp_path, monkeypatch):
    monkeypatch.setattr(grpo, "make_reward", length_reward())
    monkeypatch.delenv("TENSORBOARD_LOGGING_DIR", raising=False)
    logs = tmp_path / "logs" / "train" / "math" / "seed0"
    _stage(parent, tmp_path / "a", logs, report_to="tensorboard")
    assert list(logs.glob("events.out.tfevents.*")), sorted(p.name for p in logs.iterdir())
    acc = _scalars(logs)
    curve = pd.read_csv(tmp_path / "a" / "reward_curve.csv")
    reward = acc.Scalars("train/reward")
    assert [e.step for e in reward] == list(curve["step"]) == [1, 2]
    assert [e.value for e in reward] == pytest.approx(list(curve["reward"]), rel=1e-6)
    assert len(set(curve["reward"])) > 1 or curve["reward"].iloc[0] > 0  # a curve, not a constant zero
    args = json.loads(acc.Tensors("args/text_summary")[0].tensor_proto.string_val[0])
    assert args["run_name"] == "math/math/seed0" and args["report_to"] == ["tensorboard"]

    # the same stage run again from scratch (another job's output, as after a config edit): the folder holds
    # the new run's event file alone, not two curves drawn over each other
    _stage(parent, tmp_path / "b", logs, report_to="tensorboard")
    assert len(list(logs.glob("events.out.tfevents.*"))) == 1
    assert [e.step for e in _scalars(logs).Scalars("train/reward")] == [1, 2]


def test_no_tracker_writes_nothing(parent, tmp_path, monkeypatch):
    monkeypatch.setattr(grpo, "make_reward", length_reward())
    logs = tmp_path / "logs"
    manifest = _stage(parent, tmp_path / "out", logs)
    assert manifest["trained_steps"] == RL["steps"] and not logs.exists()


def test_report_to_forms():
    assert trackers.report_to({}) == [] and trackers.report_to({"report_to": "none"}) == []
    assert trackers.report_to({"report_to": "wandb"}) == ["wandb"]
    assert trackers.report_to({"report_to": ["tensorboard", "trackio"]}) == ["tensorboard", "trackio"]
    with pytest.raises(ValueError, match="mlflow is none of"):
        trackers.report_to({"report_to": ["mlflow"]})
    assert trackers.run_name("math-if~kl", "if", 2) == "math-if~kl/if/seed2"


def test_trackers_write_under_the_log_folder_offline_unless_told_otherwise(tmp_path):
    env = trackers.tracker_environment(["tensorboard", "wandb", "trackio"], tmp_path, environ={})
    assert env == {"TENSORBOARD_LOGGING_DIR": str(tmp_path), "WANDB_MODE": "offline", "WANDB_DIR": str(tmp_path),
                   "WANDB_PROJECT": trackers.PROJECT, "TRACKIO_DIR": str(tmp_path / "trackio")}
    # what the user set is kept: a node with network may log online; tensorboard's folder is always the stage's
    user = {"WANDB_MODE": "online", "WANDB_PROJECT": "mine", "TENSORBOARD_LOGGING_DIR": "/elsewhere"}
    env = trackers.tracker_environment(["tensorboard", "wandb"], tmp_path, environ=user)
    assert env == {"TENSORBOARD_LOGGING_DIR": str(tmp_path), "WANDB_DIR": str(tmp_path)}
    environ = {}
    assert trackers.start({"report_to": "none"}, tmp_path / "x", environ) == [] and environ == {}
    assert not (tmp_path / "x").exists()


def test_a_missing_tracker_stops_the_stage_before_the_model_loads(parent, tmp_path, monkeypatch):
    real = trackers.importlib.util.find_spec
    monkeypatch.setattr(trackers.importlib.util, "find_spec", lambda name, *a: None if name == "wandb" else real(name, *a))
    monkeypatch.setattr(grpo, "load_policy", lambda *a: pytest.fail("the model loaded before the tracker check"))
    with pytest.raises(ValueError, match=r"rl.report_to: wandb is not installed .*pip install wandb"):
        _stage(parent, tmp_path / "out", tmp_path / "logs", report_to=["tensorboard", "wandb"])
    with pytest.raises(ValueError, match="needs the stage's log folder"):
        trackers.start({"report_to": "tensorboard"}, None, {})


def test_the_schema_takes_a_tracker_or_a_list_of_them():
    import yaml
    from conftest import SMOKE_CONFIG

    cfg = yaml.safe_load(SMOKE_CONFIG.read_text())
    for ok in ("none", "tensorboard", ["tensorboard", "wandb"]):
        validate_config({**cfg, "rl": {**cfg["rl"], "report_to": ok}})
    for bad in ("mlflow", [], ["none"], ["wandb", "wandb"]):
        with pytest.raises(ConfigError, match="rl.report_to"):
            validate_config({**cfg, "rl": {**cfg["rl"], "report_to": bad}})


@pytest.mark.snakemake
def test_train_jobs_read_report_to_only_when_it_names_a_tracker(tmp_path):
    """The smoke study's train params are as before without a tracker; with one, each job's cfg has it and its
    command names the job's log folder."""
    import yaml
    from conftest import REPO, SMOKE_CONFIG
    from rlvr_support.review.rerun_reasons import Plan

    overlay = tmp_path / "tensorboard.yaml"
    overlay.write_text(yaml.safe_dump({"rl": {"report_to": "tensorboard"}}))
    cfgs = {}
    for name, files in (("none", [SMOKE_CONFIG]), ("tensorboard", [SMOKE_CONFIG, overlay])):
        with Plan(["all"], tmp_path / name, REPO / "Snakefile", files) as plan:
            jobs = [j for j in plan.dag.jobs if j.rule.name == "train_stage"]
            assert jobs
            cfgs[name] = {str(j.output[0]): json.loads(j.params.cfg) for j in jobs}
            for j in jobs:
                chain, seed = j.wildcards.chain, j.wildcards.seed
                assert str(j.log.trackers) == f"results/logs/train/{chain}/seed{seed}"
                assert str(j.log.stdout) == f"results/logs/train/{chain}/seed{seed}.log"
                assert f"--log-dir {j.log.trackers} > {j.log.stdout} 2>&1" in j.shellcmd
    assert all("report_to" not in c for c in cfgs["none"].values())
    assert {k: {**c, "report_to": "tensorboard"} for k, c in cfgs["none"].items()} == cfgs["tensorboard"]
