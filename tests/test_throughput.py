"""planning/throughput.py's stated ranges and the budget's low / expected / high GPU-hours: each range ordered,
a measured figure collapsing its own, the Markdown naming what is assumed and what measured, and the terms the
issue found missing (the weight sync's tensors and the engine's wake/sleep, the full-length KV cache)."""

from __future__ import annotations

import copy
import json
from dataclasses import replace
from pathlib import Path

import pytest
import yaml

from rlvr_support.config.defaults import fill_defaults
from rlvr_support.config.validate import validate_config
from rlvr_support.planning.budget import budget_config, plan, report_markdown
from rlvr_support.planning.gpus import GPUS
from rlvr_support.planning.shapes import load_shape, stored_config
from rlvr_support.planning.throughput import (ASSUMED, CASES, Efficiencies, GRPOSetup, efficiencies_from_check,
                                              efficiencies_from_pilot, grpo_step, IDEAL)

REPO = Path(__file__).resolve().parents[1]
PAPER = REPO / "configs" / "paper.yaml"
QWEN3 = load_shape(stored_config("Qwen/Qwen3-8B-Base"))


def _paper(edit=None) -> dict:
    raw = yaml.safe_load(PAPER.read_text())
    if edit:
        edit(raw)
    return budget_config(fill_defaults(validate_config(raw)))


def _setup(**over) -> GRPOSetup:
    """Qwen3-8B's GRPO step in configs/paper.yaml: 64 rollouts per GPU of 1,024 + 3,072 tokens."""
    return GRPOSetup(**{"processes": 8, "sequences": 64, "group_size": 8, "prompt_tokens": 1024,
                        "max_completion": 3072, "mean_completion": 1536.0, "rollout": "vllm-colocate",
                        "kv_sequences": float("inf"), "checkpointing": True, "nograd_passes": 1, "sharded": True,
                        "vllm_sleep": True, **over})


def test_every_figures_range_orders_the_step_time():
    """Each figure alone at its low / expected / high value gives a GRPO step no slower / slower: the cases are
    named by the GPU-hours they give, whichever way the figure itself runs."""
    h100 = GPUS["h100"]
    for name, a in ASSUMED.items():
        times = [grpo_step(QWEN3, h100, _setup(), replace(Efficiencies(), **{name: getattr(a, case)})).total_s
                 for case in CASES]
        assert times[0] <= times[1] <= times[2], (name, times)
        assert times[0] < times[2], f"{name}'s range moves nothing"


def test_sync_counts_each_tensor_and_the_engines_wake_and_sleep():
    """TRL 1.16 syncs 399 tensors of Qwen3-8B one at a time and wakes / sleeps the engine each step: seconds, not
    the 0.06 s the bytes alone take."""
    h100, eff = GPUS["h100"], Efficiencies()
    bytes_only = grpo_step(QWEN3, h100, _setup(vllm_sleep=False), replace(eff, sync_s_per_tensor=0.0)).sync_s
    awake = grpo_step(QWEN3, h100, _setup(vllm_sleep=False), eff).sync_s
    asleep = grpo_step(QWEN3, h100, _setup(), eff).sync_s
    assert QWEN3.tensors() == 399 and bytes_only < 0.1
    assert awake == pytest.approx(bytes_only + 399 * eff.sync_s_per_tensor)
    assert asleep == pytest.approx(awake + eff.wake_sleep_s)
    assert grpo_step(QWEN3, h100, _setup(rollout="hf"), eff).sync_s == 0


def test_full_length_kv_reads_the_whole_completion():
    """A rollout whose completions run to max_completion_tokens (EOS ignored) reads the full-length KV cache at
    every step: the high case's rollout against the expected one (41 s and 58 s at decode efficiency 0.6)."""
    h100, eff = GPUS["h100"], Efficiencies()
    mean = grpo_step(QWEN3, h100, _setup(), eff).rollout_s
    full = grpo_step(QWEN3, h100, _setup(), replace(eff, full_length_kv=1.0)).rollout_s
    as_if_mean_were_full = grpo_step(QWEN3, h100, _setup(mean_completion=3072.0), eff).rollout_s
    assert full == pytest.approx(as_if_mean_were_full) and full > 1.3 * mean


def test_budget_rows_give_ordered_ranges_and_say_which_figures_are_assumed():
    cfg = _paper()
    rows, facts = plan(copy.deepcopy(cfg))
    gpu_rows = [r for r in rows if r.gpus_per_job]
    assert gpu_rows
    for r in gpu_rows:
        lo, hi = r.gpu_hours_range()
        assert lo <= r.gpu_hours <= hi, (r.model, r.kind, lo, r.gpu_hours, hi)
        assert lo < hi, f"{r.model} {r.kind}: every GPU row here rests on an assumed figure"
        assert "assumed" in r.throughput
    train = [r for r in rows if r.kind == "train"]
    assert all("sync_s_per_tensor assumed" in r.throughput and "full_length_kv assumed" in r.throughput
               for r in train)
    for model, ends in facts["rates_range"].items():
        st = facts["rates"][model].step
        assert ends["low"].step.total_s <= st.total_s <= ends["high"].step.total_s
    md = report_markdown(cfg, rows, facts)
    assert "| GPU-h (low-high) |" in md
    assert f"mfu 0.30 (ASSUMED, 0.25-0.4: {ASSUMED['mfu'].source})" in md
    assert "full_length_kv 0.00 (ASSUMED, 0-1" in md and "sync_s_per_tensor 0.003 (ASSUMED" in md
    figures = md.split("GPU figures from datasheets (planning/gpus.py):")[1].split("- qwen3")[0]
    assert "(MEASURED)" not in figures and figures.count("(ASSUMED") == len(ASSUMED) + 1  # + link_efficiency
    # the table's total: the rows' ranges summed
    total = md.split("| all | total |")[1].split("\n")[0]
    lo, hi = (sum(r.gpu_hours_range()[i] for r in rows) for i in (0, 1))
    assert f"{sum(r.gpu_hours for r in rows):.3g} ({lo:.3g}-{hi:.3g}) |" in total


def _check(tmp_path: Path, efficiencies: dict) -> Path:
    """A GPU check's file (planning/check_report.py's format) as an H100 run writes it."""
    path = tmp_path / "check.json"
    path.write_text(json.dumps({"kind": "gpu_check", "format": 1, "gpu_type": "h100", "device": "NVIDIA H100",
                                "model": "Qwen/Qwen3-8B-Base", "rows": [], "parts": {}, "finished": True,
                                "efficiencies": efficiencies}))
    return path


def test_a_measured_figure_collapses_its_range_to_the_measurement(tmp_path):
    """The check's MFU replaces the assumed range: MFU alone sets the teacher-forced rows (JS), whose range
    collapses to that measurement; rows that still rest on assumed figures keep a range, narrower; the Markdown
    says MEASURED for it and ASSUMED for the others."""
    cfg = _paper()
    assumed_rows, _ = plan(copy.deepcopy(cfg))
    path = _check(tmp_path, {"mfu": {"value": 0.35, "micro_batch": 8, "seq_len": 4096, "padded": True}})
    rows, facts = plan(copy.deepcopy(cfg), None, path)
    eff = facts["efficiencies"]
    assert eff.measured == {"mfu"} and {eff.in_case(c).mfu for c in CASES} == {0.35}
    before = {(r.model, r.kind): r for r in assumed_rows}
    for r in rows:
        lo, hi = r.gpu_hours_range()
        if r.kind == "js":
            assert lo == pytest.approx(r.gpu_hours) == pytest.approx(hi)
            assert "mfu measured 0.35" in r.throughput
        elif r.gpus_per_job:
            b_lo, b_hi = before[(r.model, r.kind)].gpu_hours_range()
            assert lo <= r.gpu_hours <= hi and hi - lo <= b_hi - b_lo + 1e-9
            if r.kind == "train":  # the update's MFU was the widest of its figures
                assert hi - lo < b_hi - b_lo
    md = report_markdown(cfg, rows, facts)
    assert "mfu 0.35 (MEASURED)" in md and "decode_efficiency 0.60 (ASSUMED, 0.5-0.7" in md


def test_a_decode_ceiling_caps_the_favourable_end_and_collapses_below_the_expected():
    h100 = {"gpu_type": "h100"}
    between = efficiencies_from_check({**h100, "efficiencies": {"decode_efficiency": {"value": 0.65}}})
    assert "decode_efficiency" not in between.measured
    assert [between.in_case(c).decode_efficiency for c in CASES] == [0.65, 0.6, 0.5]
    below = efficiencies_from_check({**h100, "efficiencies": {"decode_efficiency": {"value": 0.45}}})
    assert "decode_efficiency" in below.measured and {below.in_case(c).decode_efficiency for c in CASES} == {0.45}


def test_a_pilot_rolling_out_with_transformers_measures_no_vllm_decode_efficiency():
    """transformers generate's decode efficiency says nothing of vLLM's: a pilot with HF rollouts sets the MFU of a
    vLLM study, not its decode efficiency; its sync sets the time per tensor."""
    h100 = GPUS["h100"]
    setup = _setup(rollout="hf", sequences=8, mean_completion=256.0, max_completion=256, prompt_tokens=256,
                   vllm_sleep=False)
    ideal = grpo_step(QWEN3, h100, setup, IDEAL)
    pilot = {"grpo": {"setup": setup.__dict__, "phase_seconds": {"rollout": 2 * ideal.rollout_s,
                                                                 "update": 2 * ideal.update_s, "sync": 0.0}}}
    assert efficiencies_from_pilot(pilot, QWEN3, h100, study_rollout="vllm").measured == {"mfu"}
    assert efficiencies_from_pilot(pilot, QWEN3, h100, study_rollout="hf").measured == {"mfu", "decode_efficiency"}
    vllm = replace(setup, rollout="vllm-colocate")
    ideal_sync = grpo_step(QWEN3, h100, vllm, IDEAL).sync_s
    pilot["grpo"]["setup"] = vllm.__dict__
    pilot["grpo"]["phase_seconds"]["sync"] = ideal_sync + 399 * 0.005
    eff = efficiencies_from_pilot(pilot, QWEN3, h100, study_rollout="vllm")
    assert eff.sync_s_per_tensor == pytest.approx(0.005) and "sync_s_per_tensor" in eff.measured
    assert [eff.in_case(c).sync_s_per_tensor for c in CASES] == [pytest.approx(0.005)] * 3
