"""The plan check (planning/plan_check.py, `scripts/gpu_check.sh --plan`): its CPU mode from PYTHONPATH=src in a
bare venv (torch, transformers, accelerate, safetensors and what they require; then with the wheelhouse's TRL and
datasets), the file `budget --measured` reads, FAIL where measured / planned leaves [0.8, 1.25], and the
wheelhouse's pins."""

from __future__ import annotations

import copy
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from bare_env import bare_venv
from rlvr_support.planning import check_report, plan_check

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "scripts"))  # the GPU check is a script

REPO = Path(__file__).resolve().parents[1]
PAPER = REPO / "configs" / "paper.yaml"
NODE = ["torch", "transformers", "accelerate", "safetensors"]  # what a bare GPU node has
WHEELHOUSE = REPO / "envs" / "gpu-wheelhouse.txt"


def wheelhouse_pins() -> dict[str, str]:
    return dict(re.match(r"([\w.-]+)==([\w.]+)", line).groups() for line in WHEELHOUSE.read_text().splitlines()
                if line and not line.startswith("#"))


def run_check(python: Path, out: Path, *args: str) -> subprocess.CompletedProcess:
    """The CPU mode as a node runs it: the venv's python, the repository's src/ on PYTHONPATH, no .venv."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    env.update(PYTHONPATH=str(REPO / "src"), PYTHONUNBUFFERED="1", TOKENIZERS_PARALLELISM="false")
    return subprocess.run([str(python), str(REPO / "scripts" / "gpu_check.py"), "--plan", "--cpu", "--out", str(out),
                           *args], capture_output=True, text=True, timeout=600, cwd=out.parent, env=env)


def test_wheelhouse_holds_what_the_node_lacks_pinned_as_the_project_pins_it():
    pins = wheelhouse_pins()
    assert set(pins) == {"trl", "datasets", "dill", "multiprocess"}
    project = dict(re.match(r"([\w.-]+)==([\w.+]+)", line).groups() for line in
                   (REPO / "requirements.txt").read_text().splitlines() if re.match(r"[\w.-]+==", line))
    assert pins["trl"] == project["trl"] and pins["datasets"] == project["datasets"]
    from importlib.metadata import version

    from packaging.requirements import Requirement

    for name, pinned in pins.items():  # the versions the tests run (.venv), so the bare venv below is the wheelhouse
        assert version(name) == pinned, name
    from importlib.metadata import distribution

    for line in distribution("datasets").requires:  # datasets' own ranges admit the pinned dill and multiprocess
        req = Requirement(line)
        if req.name in ("dill", "multiprocess"):
            assert req.specifier.contains(pins[req.name]), line
    dry = subprocess.run(["make", "-n", "gpu-wheelhouse"], cwd=REPO, capture_output=True, text=True, timeout=60)
    assert dry.returncode == 0, dry.stderr
    for word in ("--no-deps", "--only-binary=:all:", "--python-version 3.12", "-r envs/gpu-wheelhouse.txt"):
        assert word in dry.stdout, word
    assert "gpu-wheelhouse/" in (REPO / ".gitignore").read_text().splitlines()


def test_cpu_check_in_a_bare_venv_says_what_it_cannot_run(tmp_path):
    """torch, transformers, accelerate and safetensors alone: the update and the GRPO stage need TRL (the
    wheelhouse), and the check says so and still measures what it can (the decode ceiling)."""
    python = bare_venv(tmp_path / "venv", NODE)
    probe = subprocess.run([str(python), "-c", "import trl"], capture_output=True, text=True)
    assert probe.returncode != 0, "the bare venv must not see the project's .venv"
    out = tmp_path / "check.json"
    proc = run_check(python, out, "--parts", "update,decode,grpo")
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-3000:]
    check = check_report.load_check(out)
    assert check["finished"] and check["cpu"] and check["versions"]["trl"] is None
    for part in ("update", "grpo"):
        assert "trl" in check["cannot_run"][part] and "make gpu-wheelhouse" in check["cannot_run"][part], part
        assert f"cannot run {part}:" in proc.stdout
    decode = [r for r in check["rows"] if r["part"] == "decode"]
    assert [r["batch"] for r in decode] == [1, 8, 64, 256]  # 1, 8, the paper's 8 x 8 rollouts per GPU, vLLM's 256
    assert all(r["measured"] > 0 and r["planned"] is None for r in decode), "no GPU kind on a CPU: nothing planned"
    assert not [r for r in check["rows"] if r["part"] == "update"]


@pytest.fixture(scope="module")
def wheelhouse_check(tmp_path_factory) -> tuple[Path, subprocess.CompletedProcess, Path]:
    """The whole CPU mode in a bare venv with the wheelhouse's packages (TRL, datasets and what they require,
    which a node has: pandas, pyarrow, ...)."""
    tmp = tmp_path_factory.mktemp("plan_check")
    python = bare_venv(tmp / "venv", NODE + list(wheelhouse_pins()))
    out = tmp / "check.json"
    return out, run_check(python, out), python


def test_cpu_check_measures_the_plans_terms_in_a_bare_venv_with_the_wheelhouse(wheelhouse_check):
    out, proc, python = wheelhouse_check
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-3000:]
    for absent in ("jsonschema", "snakemake", "deepspeed"):  # the project's other requirements are not there
        assert subprocess.run([str(python), "-c", f"import {absent}"], capture_output=True).returncode != 0, absent
    check = check_report.load_check(out)
    assert check["versions"]["trl"] == wheelhouse_pins()["trl"]
    assert set(check["cannot_run"]) == {"context"}  # --cpu: no CUDA context
    update = [r for r in check["rows"] if r["part"] == "update"]
    assert len(update) == 3 * 2 * len(plan_check.MICRO_BATCHES)  # kept, peak, tokens/s x padded or not x 1, 2, 4, 8
    kept = [r for r in update if "kept by the forward" in r["term"]]
    # the plan's activations term against what the forward keeps (Qwen3's layout, bf16, checkpointing, fused LM head)
    assert all(not r["fail"] for r in kept), [(r["term"], r["ratio"]) for r in kept]
    peaks = [r for r in update if "peak above baseline" in r["term"]]
    assert all(r["measured"] > r["planned"] * 0.5 and r["ratio"] is not None for r in peaks)
    assert all(r["measured"] > 0 for r in update if r["unit"] == "tokens/s")
    # the table: every row, its ratio, and the verdict
    assert "| term | planned | measured | ratio | |" in proc.stdout
    assert "update: micro-batch 8 x 64, padding mask: kept by the forward (MB)" in proc.stdout
    assert [r["batch"] for r in check["rows"] if r["part"] == "decode"] == [1, 8, 64, 256]


def test_cpu_check_runs_the_grpo_stage_through_the_studys_trainer(wheelhouse_check):
    out = wheelhouse_check[0]
    check = check_report.load_check(out)
    grpo = check["parts"]["grpo"]
    assert "error" not in grpo and grpo["grpo"]["steps"] == plan_check.GRPO_STEPS
    assert len(grpo["grpo"]["step_seconds"]) == plan_check.GRPO_STEPS and grpo["grpo"]["setup"]["rollout"] == "hf"
    rows = [r for r in check["rows"] if r["part"] == "grpo"]
    assert [r["term"].split(" time")[0] for r in rows] == ["rollout", "update"] and all(r["measured"] > 0 for r in rows)
    assert check["finished"] and check["seconds"] < 120


def test_budget_reads_the_check(wheelhouse_check, tmp_path):
    from rlvr_support.planning.budget import budget_config, load_pilot, plan, report_markdown
    from rlvr_support.config.defaults import fill_defaults
    from rlvr_support.config.validate import validate_config

    out = wheelhouse_check[0]
    cfg = budget_config(fill_defaults(validate_config(yaml.safe_load(PAPER.read_text()))))
    check = load_pilot(out)
    assert check_report.is_check(check)
    rows, facts = plan(copy.deepcopy(cfg), None, out)
    md = report_markdown(cfg, rows, facts)
    assert "GPU CHECK MEASURED" in md and "utilisations stay assumed" in md, "a CPU check measures no GPU's"
    assert "mfu 0.30 (ASSUMED, 0.25-0.4" in md
    # the same file as an H100 would write it: its MFU replaces the assumed one, its decode ceiling bounds the
    # assumed decode efficiency (0.6) from above, and the train rows cost more GPU-hours
    check["gpu_type"] = "h100"
    check["efficiencies"] = {"mfu": {"value": 0.3, "micro_batch": 8, "seq_len": 4096, "padded": True},
                             "decode_efficiency": {"value": 0.5, "batch": 64, "context": 1792}}
    h100 = tmp_path / "h100.json"
    h100.write_text(json.dumps(check))
    rows2, facts2 = plan(copy.deepcopy(cfg), None, h100)
    eff = facts2["efficiencies"]
    assert (eff.mfu, eff.decode_efficiency) == (0.3, 0.5) and eff.measured == {"mfu", "decode_efficiency"}
    md2 = report_markdown(cfg, rows2, facts2)
    assert "mfu 0.30 (MEASURED)" in md2 and "it sets decode_efficiency, mfu below" in md2
    hours = {(r.model, r.kind): r.gpu_hours for r in rows}
    assert all(r.gpu_hours > hours[(r.model, r.kind)] for r in rows2 if r.kind == "train")
    check["efficiencies"]["decode_efficiency"]["value"] = 0.9  # a ceiling above the assumption binds nothing
    h100.write_text(json.dumps(check))
    assert plan(copy.deepcopy(cfg), None, h100)[1]["efficiencies"].decode_efficiency == 0.6
    verb = subprocess.run([sys.executable, "-m", "rlvr_support", "budget", "--configfile", str(PAPER), "--measured",
                           str(out)], capture_output=True, text=True, timeout=300, cwd=tmp_path)
    assert verb.returncode == 0 and "GPU CHECK MEASURED" in verb.stdout, verb.stderr[-2000:]


def test_a_term_pushed_outside_the_band_prints_FAIL(tmp_path, monkeypatch, capsys):
    """A test double of the CPU meter that doubles what the forward keeps: those rows, inside the band with the
    real meter, print FAIL, in the run's table and in `--table FILE`."""
    import gpu_check

    real = plan_check.live_bytes_meter

    def doubled():
        meter = real()
        count = type(meter).now
        type(meter).now = lambda self: 2 * count(self)
        return meter

    monkeypatch.setattr(plan_check, "live_bytes_meter", doubled)
    monkeypatch.setattr(plan_check, "MICRO_BATCHES", (2,))
    out = tmp_path / "check.json"
    assert gpu_check.main(["--plan", "--cpu", "--parts", "update", "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    kept = [line for line in printed.splitlines() if line.startswith("| update:") and "kept by the forward" in line]
    assert len(kept) == 2 and all(line.endswith("| FAIL |") for line in kept), printed[-3000:]
    check = check_report.load_check(out)
    assert all(r["fail"] and 1.6 < r["ratio"] < 2.6 for r in check["rows"] if "kept by the forward" in r["term"])
    assert gpu_check.main(["--table", str(out)]) == 0
    assert "kept by the forward (MB) |" in capsys.readouterr().out


def test_rows_fail_outside_the_band_and_only_there():
    rows = [check_report.row("update", "a", "GB", 10.0, m, "") for m in (7.9, 8.0, 12.5, 12.6)]
    assert [r["fail"] for r in rows] == [True, False, False, True]
    blank = [check_report.row("decode", "b", "ms", None, 3.0, ""), check_report.row("grpo", "c", "s", 2.0, None, "")]
    assert [r["ratio"] for r in blank] == [None, None] and not any(r["fail"] for r in blank)
    lines = check_report.table(rows + blank).splitlines()
    assert [line.rsplit("|", 2)[1].strip() for line in lines[2:]] == ["FAIL", "ok", "ok", "FAIL", "-", "-"]


@pytest.fixture
def one_thread():
    """Tiny tensors in one thread, as run_check --cpu runs them (a busy machine stalls a thread pool)."""
    import torch

    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


def test_gpu_figures_are_planned_where_a_gpu_kind_is_known(monkeypatch, one_thread):
    """The rows a GPU run plans, computed on the CPU with an H100's figures: the update's tokens/s and MFU in the
    throughput model's FLOP count, the decode step and its ceiling, the GRPO stage's phases against grpo_step and
    train_plan, and the utilisations the file offers the budget (the study's micro-batch, or the nearest)."""
    import torch

    from rlvr_support.planning.gpus import GPUS
    from rlvr_support.planning.memory import CUDA_OVERHEAD, GB
    from rlvr_support.planning.pilot import pilot_config
    from rlvr_support.planning.shapes import read_model_config, shape_from_config
    from rlvr_support.planning.throughput import Efficiencies, decode_step_seconds, update_flops_per_token

    h100, inf = GPUS["h100"], float("inf")
    arch = pilot_config(read_model_config("Qwen/Qwen3-8B-Base"), quick=True)
    shape = shape_from_config(arch)
    rec = plan_check.Record(None, {})
    monkeypatch.setattr(plan_check, "MICRO_BATCHES", (1, 2))
    model = plan_check.random_model(arch, "cpu", torch.bfloat16)
    plan_check.measure_update(rec, model, shape, h100, 64, 16, "cpu", inf, study_micro_batch=8)
    flops = update_flops_per_token(shape, 64, checkpointing=True)
    rates = [r for r in rec.data["rows"] if r["unit"] == "tokens/s"]
    assert len(rates) == 4
    for r in rates:
        assert r["planned"] == pytest.approx(h100.bf16_tflops * 1e12 * Efficiencies().mfu / flops)
        assert r["mfu"] == pytest.approx(r["measured"] * flops / (h100.bf16_tflops * 1e12))
    chosen = rec.data["efficiencies"]["mfu"]
    assert (chosen["micro_batch"], chosen["padded"]) == (2, True)  # the nearest to the study's 8, with the mask
    assert chosen["value"] == next(r["mfu"] for r in rates if r["micro_batch"] == 2 and r["padded"])

    for p in model.parameters():
        p.grad = None
    plan_check.measure_decode(rec, model, shape, h100, [1, 8], 32, "cpu", 64e6, rollout_batch=8, deadline=inf)
    steps = [r for r in rec.data["rows"] if r["part"] == "decode"]
    assert [r["batch"] for r in steps] == [1, 8]
    assert steps[1]["planned"] == pytest.approx(decode_step_seconds(shape, h100, Efficiencies(), 8, 32) * 1e3)
    ceiling = rec.data["efficiencies"]["decode_efficiency"]
    assert ceiling["batch"] == 8 and ceiling["value"] == pytest.approx(
        (shape.params * 2 + 8 * 32 * shape.kv_bytes_per_token(2)) / (h100.hbm_tb_s * 1e12 * steps[1]["measured"] / 1e3))

    cfg = plan_check.study_keys(PAPER)
    rl = {**cfg["rl"], **plan_check.GRPO_RL}
    g_arch = pilot_config(read_model_config(plan_check.GRPO_MODEL), quick=False)
    setup = {"processes": 1, "sequences": 8, "group_size": 4, "prompt_tokens": 256, "max_completion": 256,
             "mean_completion": 256.0, "rollout": "hf", "kv_sequences": None, "checkpointing": True,
             "nograd_passes": 0, "sharded": False}
    result = {"model_config": g_arch, "grpo": {"setup": setup, "phase_seconds": {"rollout": 7.0, "update": 1.0},
                                               "phase_peak_gb": {"rollout": 25.0, "update": 27.0, "step": 37.0}}}
    plan_check.grpo_rows(rec, result, cfg, plan_check.GRPO_MODEL, rl, h100)
    rows = {r["term"].split(",")[0]: r for r in rec.data["rows"] if r["part"] == "grpo"}
    assert set(rows) == {"rollout time", "update time", "rollout peak memory", "update peak memory",
                         "step peak memory"}
    plan, train = plan_check.grpo_plan(cfg, plan_check.GRPO_MODEL, g_arch, rl, 256, h100)
    assert (train.processes, train.sharding, train.micro_batch, train.seq_len, train.rollout, train.frozen_copies) \
        == (1, "none", 4, 512, "hf", 0)
    assert rows["step peak memory"]["planned"] == pytest.approx((plan.peak - CUDA_OVERHEAD) / GB)
    assert rows["step peak memory"]["measured"] == 37.0 and rows["rollout time"]["planned"] > 0
