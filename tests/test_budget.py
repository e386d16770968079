"""The budget (planning/budget.py, verb `budget`): sequence and job counts per rule kind checked by
hand and against Snakemake's plan; the estimate of generated tokens checked against what the smoke
and SmolLM2 runs really generated, with lengths measured on the base's samples only (a pilot)."""

from __future__ import annotations

import copy
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest
import yaml

from rlvr_support.planning.budget import (budget_config, budget_tasks, eval_prompt_counts, plan, probe_steps,
                                          prompt_jobs, rollouts_per_step, toy_params)
from rlvr_support.config.defaults import fill_defaults
from rlvr_support.config.validate import validate_config
from rlvr_support.lineage.prompt_files import prompt_files
from test_external_checkpoints import model_folder

REPO = Path(__file__).resolve().parents[1]
SMOKE = REPO / "tests" / "config" / "smoke.yaml"
SMOL = REPO / "tests" / "config" / "smollm2-reduced.yaml"


def _cfg(path: Path, edit=None) -> dict:
    raw = yaml.safe_load(path.read_text())
    if edit:
        edit(raw)
    return budget_config(fill_defaults(validate_config(raw)))


def _by_kind(rows) -> dict:
    return {r.kind: r for r in rows}


def _small(raw):
    """Smoke, smaller and hand-checkable: 2 seeds, 2 chains, 2 eval sets, 2 shards, 3 steps, no trajectory."""
    raw.pop("trajectory")
    raw["rl"].update(seeds=[0, 1], steps=3)
    raw["rl"]["monitor"].update(every=2, prompts=2, n=2)
    raw["chains"] = ["math", "math-if"]
    raw["eval_sets"] = ["math", "if"]
    raw["sampling"].update(shards=2)
    raw["analysis"]["divergence"].update(eval_sets=["math"], prompts=3, samples_per_prompt=1, max_positions=16)
    raw["analysis"]["intervention"].update(eval_sets=["math"], top=2, prompts=2, n=2, max_new_tokens=8)
    raw["analysis"].pop("single_token")  # it pairs chain `if`, not trained here; its row: test_single_token.py


def test_sequence_and_job_counts_per_rule_kind_by_hand():
    rows, facts = plan(_cfg(SMOKE, _small))
    k = _by_kind(rows)
    assert facts["counts"] == {"math": {"math": 6}, "if": {"if": 6}}  # world.<task>.eval: 6 prompts each
    # 5 checkpoints (base + 2 chains x 2 seeds) x (6 + 6 prompts) x n 4; 5 x 2 eval sets x 2 shards jobs
    assert (k["sample"].sequences, k["sample"].jobs) == (5 * 12 * 4, 20)
    assert k["sample"].generated_tokens == 5 * 12 * 4 * 0.5 * 16  # response_fraction x max_new_tokens
    # routed: math-if x 2 seeds; sample_routed passes no --shard, so shard 0's block: 3 of 6 prompts per set
    assert (k["routed"].sequences, k["routed"].jobs) == (2 * (3 + 3) * 4, 2 * 2)
    # train: 2 chains x 2 seeds jobs, each 3 steps x 2 prompts x group 4 x 1 process
    assert (k["train"].sequences, k["train"].jobs) == (4 * 3 * 2 * 4, 4)
    assert k["train"].generated_tokens == 4 * 24 * 0.5 * 16
    # monitor: probes at steps 0, 2, 3; math probes math, math-if probes math and if; 2 prompts x n 2; 2 seeds
    assert k["monitor"].sequences == 2 * 3 * (1 + 2) * 2 * 2 and k["monitor"].jobs == 0
    # intervention: 5 checkpoints x top 2 x 2 prompts x n 2, an upper bound (fewer distinct openings)
    assert (k["intervention"].sequences, k["intervention"].jobs, k["intervention"].upper_bound) == (40, 1, True)
    assert k["intervention"].generated_tokens == 40 * 0.5 * 8
    # base metrics: 1 greedy + 4 sampled per eval prompt of the eval sets
    assert (k["base_metrics"].sequences, k["base_metrics"].jobs) == (12 * 5, 1)
    # JS: 4 RL checkpoints x 2 prefix sources x 3 prompts x 1 prefix, 2 models each over min(8, 16) positions
    assert (k["js"].sequences, k["js"].jobs, k["js"].forward_tokens) == (24, 4, 2 * 24 * 8)
    assert k["js"].generated_tokens == 0 and k["js"].scored == 0
    assert {r.kind: r.scored for r in rows if r.kind != "js"} == {r.kind: r.sequences for r in rows if r.kind != "js"}


def test_external_checkpoints_are_sampled_and_analysed_beside_the_trained_ones(tmp_path):
    def edit(raw):
        _small(raw)
        raw["checkpoints"] = {"elsewhere": {"kind": "local", "path": str(model_folder(tmp_path / "m")), "base": "base"}}

    k = _by_kind(plan(_cfg(SMOKE, edit))[0])
    # 6 checkpoints (base + 2 chains x 2 seeds + 1 external) x (6 + 6 prompts) x n 4; 6 x 2 eval sets x 2 shards
    assert (k["sample"].sequences, k["sample"].jobs) == (6 * 12 * 4, 24)
    # JS: 5 checkpoints against the base x 2 prefix sources x 3 prompts x 1 prefix, one job each
    assert (k["js"].sequences, k["js"].jobs) == (5 * 2 * 3 * 1, 5)
    # intervention: 6 checkpoints x top 2 x 2 prompts x n 2, still one job per eval set
    assert (k["intervention"].sequences, k["intervention"].jobs) == (6 * 2 * 2 * 2, 1)
    # the external checkpoint trains nothing: the train row is the 2 chains x 2 seeds'
    assert (k["train"].sequences, k["train"].jobs) == (4 * 3 * 2 * 4, 4)
    assert k["base_metrics"].sequences == 12 * 5


def test_a_study_of_external_checkpoints_only_has_no_train_row(tmp_path):
    def edit(raw):
        for key in ("rl", "trajectory", "variants"):
            raw.pop(key)
        raw["chains"] = []
        raw["sampling"].pop("routing")
        raw["checkpoints"] = {"elsewhere": {"kind": "local", "path": str(model_folder(tmp_path / "m")), "base": "base"}}
        raw["analysis"]["single_token"]["checkpoints"] = ["elsewhere"]

    rows, _ = plan(_cfg(SMOKE, edit))
    k = _by_kind(rows)
    # no train, monitor or routed row; large_k: the smoke config's base at n 16 on 2 prompts per eval set
    assert set(k) == {"sample", "intervention", "base_metrics", "js", "large_k", "single_token"}
    assert (k["large_k"].sequences, k["large_k"].jobs) == (1 * 3 * 2 * 16, 3)
    # single_token: the external checkpoint with the base on math, 2 prompts x 2 directions x (own, 2 positions,
    # top-2) x n 2
    assert (k["single_token"].sequences, k["single_token"].jobs) == (2 * 2 * 4 * 2, 1)
    # base + the external checkpoint x (6 + 6 + 6 prompts) x n 4; 2 x 3 eval sets x 1 shard
    assert (k["sample"].sequences, k["sample"].jobs) == (2 * 18 * 4, 6)
    assert (k["js"].sequences, k["js"].jobs) == (1 * 2 * 3 * 1, 1)
    assert k["intervention"].sequences == 2 * 2 * 2 * 2


def test_trajectory_points_are_sampled_at_their_budget_and_kept_weights_cost_disk(tmp_path):
    external = {"kind": "local", "path": str(model_folder(tmp_path / "m")), "base": "base", "step": 10,
                "steps": [{"step": 5, "path": str(model_folder(tmp_path / "m5"))}]}

    def edit(raw):
        _small(raw)
        raw["trajectory"] = {"chains": ["math-if"], "every": 1, "n": 2, "eval_sets": ["math"]}
        raw["checkpoints"] = {"elsewhere": external}

    cfg = _cfg(SMOKE, edit)
    # the budget's param: the externals' bases and step numbers (not their folders), the filled-in trajectory
    assert cfg["checkpoints"] == {"elsewhere": {"base": "base", "step": 10, "steps": [{"step": 5}]}}
    assert cfg["trajectory"] == {"chains": ["math-if"], "every": 1, "n": 2, "eval_sets": ["math"]}
    k = _by_kind(plan(cfg)[0])
    # points: math-if keeps steps 1 and 2 of 3 for seeds 0 and 1 (4), the external run's step 5 (1);
    # each x 6 math prompts x n 2, on 1 eval set x 2 shards
    t = k["trajectory"]
    assert (t.sequences, t.jobs, t.scored) == (5 * 6 * 2, 5 * 1 * 2, 5 * 6 * 2)
    assert t.generated_tokens == 5 * 6 * 2 * 0.5 * 16
    # text 4 B + arrays 12 B per token of each of the n 2 samples (token_arrays: all)
    assert t.disk_bytes == 5 * 6 * 8 * 2 * (4 + 12)
    # the full-budget samples are unchanged by the trajectory: 6 checkpoints (the external one included)
    assert k["sample"].sequences == 6 * 12 * 4
    # disk: the 4 stages' checkpoints and the 4 weights math-if keeps, float32 each; the external run's none
    params = toy_params(yaml.safe_load(SMOKE.read_text())["base"]["arch"])
    assert k["train"].disk_bytes == (4 + 4) * params * 4
    assert k["train"].sequences == 4 * 3 * 2 * 4  # keeping weights trains nothing more


def test_no_trajectory_row_without_points():
    assert "trajectory" not in _by_kind(plan(_cfg(SMOKE, _small))[0])


def test_probe_steps_and_rollouts_per_step():
    assert probe_steps(3, 2) == 3 and probe_steps(10, 0) == 2 and probe_steps(4, 1) == 5 and probe_steps(1, 5) == 2
    cfg = _cfg(SMOKE)
    assert rollouts_per_step(cfg) == 2 * 4
    # `accelerate launch` on 8 GPUs x 2 nodes: TRL's batch is per device, so 16 processes each make their own
    cfg["resources"]["train"].update(gpu=8, nodes=2, launcher="accelerate")
    assert rollouts_per_step(cfg) == 2 * 4 * 16


def test_per_benchmark_overrides_and_counts_from_the_prompt_file(tmp_path):
    def edit(raw):
        raw["sampling"]["benchmarks"] = {"legs_eval": {"n": 6, "max_new_tokens": 40}}

    cfg = _cfg(SMOL, edit)
    k = _by_kind(plan(cfg)[0])
    # 3 checkpoints; math: legs_eval 3 x n 6 (its override), arith_eval 3 x 2; if 3 x 2; joint 3 x 2
    assert k["sample"].sequences == 3 * (18 + 6 + 6 + 6)
    assert k["sample"].generated_tokens == 3 * (18 * 20 + (6 + 6 + 6) * 12)  # 0.5 x 40, 0.5 x 24
    # a prompt file (one this config's data made: tests/test_budget_inputs.py) wins over the sources' sizes
    rows = [{"id": f"legs_eval-{i}", "split": "eval", "source": "legs_eval"} for i in range(5)]
    rows += [{"id": f"a-{i}", "split": "train", "source": "arith_train"} for i in range(8)]
    (tmp_path / "math.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    counts, origin = eval_prompt_counts(cfg, "math", tmp_path / "math.jsonl")
    assert counts == {"legs_eval": 5} and origin == str(tmp_path / "math.jsonl")
    assert eval_prompt_counts(cfg, "if")[0] == {"ift_eval": 3}  # no file: the source's size


def test_token_arrays_only_for_the_first_k_samples_shrink_disk():
    full = _by_kind(plan(_cfg(SMOKE))[0])["sample"]
    some = _by_kind(plan(_cfg(SMOKE, lambda raw: raw["sampling"].update(token_arrays=1)))[0])["sample"]
    # 7 checkpoints x 18 prompts x (4 - 1) samples without arrays x 8 tokens x 12 bytes (int32 + 2 float32)
    assert full.disk_bytes - some.disk_bytes == 7 * 18 * 3 * 8 * 12
    assert full.sequences == some.sequences and full.generated_tokens == some.generated_tokens


def test_unknown_source_size_is_an_error_naming_the_source():
    def edit(raw):
        raw["world"]["tasks"]["math"][1] = {"format": "gsm8k", "hub": "org/private-math", "hf_split": "test",
                                            "split": "eval", "name": "private"}

    with pytest.raises(ValueError, match=r"world.tasks.math eval source 0 \(private\).*'org/private-math'"):
        plan(_cfg(SMOL, edit))
    # a `limit` is enough
    rows, facts = plan(_cfg(SMOL, lambda raw: (edit(raw), raw["world"]["tasks"]["math"][1].update(limit=7))))
    assert facts["counts"]["math"] == {"private": 7, "arith_eval": 3}


def test_toy_parameters_are_the_models():
    from rlvr_support.data.toyworld.tokenizer import build_tokenizer
    from rlvr_support.models.loading import toy_llama

    arch = yaml.safe_load(SMOKE.read_text())["base"]["arch"]
    tok = build_tokenizer()
    assert toy_params(arch) == sum(p.numel() for p in toy_llama(len(tok), arch, tok).parameters())


@pytest.mark.snakemake
def test_job_counts_match_snakemakes_plan(tmp_path):
    bindir = Path(sys.executable).parent
    proc = subprocess.run([str(bindir / "snakemake"), "-s", str(REPO / "Snakefile"), "-d", str(tmp_path),
                           "--configfile", str(SMOKE), "-n", "--cores", "1", "all"],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    stats = dict(re.findall(r"^(\w+)\s+(\d+)$", proc.stdout, flags=re.M))
    k = _by_kind(plan(_cfg(SMOKE))[0])
    rule_of = {"routed": "sample_routed", "large_k": "sample_large_k", "train": "train_stage", "js": "positional_js",
               "intervention": "opening_intervention", "single_token": "single_token", "base_metrics": "base_metrics"}
    assert {kind: k[kind].jobs for kind in rule_of} == {kind: int(stats[rule]) for kind, rule in rule_of.items()}
    # the sample rule samples the checkpoints at full budget and the trajectory points at theirs
    assert k["trajectory"].jobs > 0 and k["sample"].jobs + k["trajectory"].jobs == int(stats["sample"])


def test_verb_writes_markdown_and_csv(tmp_path):
    out = tmp_path / "budget.md"
    proc = subprocess.run([sys.executable, "-m", "rlvr_support", "budget", "--configfile", str(SMOKE),
                           "--prompts-dir", str(tmp_path / "none"), "--out", str(out)],
                          capture_output=True, text=True, timeout=300, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr[-2000:]
    md = out.read_text()
    assert "(ASSUMED" in md and "MEASURED on" not in md and "| all | total |" in md
    csv = pd.read_csv(out.with_suffix(".csv"))
    assert list(csv["kind"]) == ["sample", "trajectory", "routed", "large_k", "train", "monitor", "intervention",
                                 "single_token", "base_metrics", "js"]
    assert csv.set_index("kind").loc["sample", "sequences"] == 7 * 18 * 4
    # smoke's trajectory: math, if, math-if keep step 1 of 2 (seed 0): 3 points x 18 prompts x n 2
    assert csv.set_index("kind").loc["trajectory", "sequences"] == 3 * 18 * 2


# ---- against reality: the estimate with lengths measured on the base's samples only


def _sample_parquets(root: Path) -> list[Path]:
    """Every merged samples file (shard files are parts of the merged ones)."""
    return [p for p in sorted((root / "samples").rglob("*.parquet")) if not any(x.endswith(".shards") for x in p.parts)]


def _pilot(run: Path, tmp_path: Path) -> Path:
    """What a user can afford before the study: the base's samples only."""
    pilot = tmp_path / "pilot"
    (pilot / "samples" / "base").mkdir(parents=True)
    for f in (run / "results" / "samples" / "base").glob("*.parquet"):
        shutil.copy(f, pilot / "samples" / "base" / f.name)
    return pilot


def _check_against_run(run: Path, config: Path, tmp_path: Path, label: str):
    cfg = _cfg(config)
    results = run / "results"
    actual = [pd.read_parquet(p, columns=["n_tokens"]) for p in _sample_parquets(results)]
    actual_tokens = float(sum(df["n_tokens"].sum() for df in actual))
    actual_rows = sum(len(df) for df in actual)
    files, ignored = prompt_files(prompt_jobs(cfg), results / "data" / "prompts")
    assert not ignored and set(files) == set(budget_tasks(cfg)), "the run's own prompt files are its config's"
    rows, facts = plan(cfg, files, _pilot(run, tmp_path))
    # the sample jobs: the checkpoints at full budget and the trajectory points at theirs
    sampled = [r for r in rows if r.kind in ("sample", "trajectory")]
    est, seqs = sum(r.generated_tokens for r in sampled), sum(r.sequences for r in sampled)
    print(f"\n{label}: sample jobs generated {actual_tokens:.0f} tokens in {actual_rows} samples; "
          f"estimated {est:.0f} tokens in {seqs:.0f} samples (lengths measured on "
          f"{facts['measured']['base'].samples} base samples): {est / actual_tokens - 1:+.1%}")
    assert seqs == actual_rows, "sequence counts are exact"
    assert all(r.lengths == {"measured"} for r in sampled)
    assert abs(est / actual_tokens - 1) < 0.10
    return rows


@pytest.mark.slow
def test_smoke_estimate_matches_the_tokens_generated(smoke_run, tmp_path):
    rows = _check_against_run(smoke_run, SMOKE, tmp_path, "smoke")
    k = _by_kind(rows)
    routed = sum(len(pd.read_parquet(p, columns=["n_tokens"]))
                 for p in sorted((smoke_run / "results" / "routed" / "samples").rglob("*.parquet")))
    assert k["routed"].sequences == routed
    iv = pd.read_parquet(smoke_run / "results" / "analysis" / "intervention" / "math.parquet")
    assert len(iv) <= k["intervention"].sequences
    # the rule's table, planned before the run, has the same exact counts
    table = pd.read_csv(smoke_run / "results" / "budget.csv").set_index("kind")
    assert table.loc["sample", "sequences"] == k["sample"].sequences
    assert table.loc["routed", "sequences"] == routed


@pytest.mark.slow
def test_smollm2_estimate_matches_the_tokens_generated(smol_run, tmp_path):
    _check_against_run(smol_run, SMOL, tmp_path, "smollm2-reduced")


def test_paper_config_budget_runs_on_known_sizes():
    """configs/paper.yaml before its data exists: every eval source's size is known."""
    cfg = budget_config(fill_defaults(validate_config(yaml.safe_load((REPO / "configs" / "paper.yaml").read_text()))))
    rows, facts = plan(copy.deepcopy(cfg))
    assert all(sum(c.values()) > 0 for c in facts["counts"].values())
    assert {r.kind for r in rows} >= {"sample", "train", "base_metrics"}


@pytest.mark.parametrize("config", ["paper.yaml", "paper-limit.yaml", "paper-leash.yaml", "leash-prorl.yaml",
                                    "limit-simplerl.yaml"])
def test_paper_configs_runtimes_cover_their_estimated_hours_per_job(config):
    """Each GPU job kind's resources.<kind>.runtime holds the hours the throughput model estimates for one job."""
    from rlvr_support.planning.budget import runtime_problems

    cfg = budget_config(fill_defaults(validate_config(yaml.safe_load((REPO / "configs" / config).read_text()))))
    rows, _ = plan(copy.deepcopy(cfg))
    assert runtime_problems(rows) == []
    tight = copy.deepcopy(cfg)
    tight["resources"]["sample"]["runtime"] = 1  # a minute: every sample job's estimate exceeds it
    assert any("sample" in p for p in runtime_problems(plan(tight)[0]))


def test_each_gpu_job_pays_its_start_up_and_grouping_reads_the_weights_once_per_checkpoint(tmp_path):
    """configs/paper.yaml: each GPU job reads its weights (parameters x 2 B at 2 GB/s) and starts (45 s a sample
    job's vLLM engine, 180 s a train job, 15 s an HF load; JS reads two models); with resources.sample.group:
    checkpoint a checkpoint's sample jobs are one SLURM job whose members each start an engine but read the weights
    once; a pilot's measured start-up replaces the assumed 45 s."""
    from rlvr_support.config.checkpoints import model_checkpoints
    from rlvr_support.planning.budget import model_params

    raw = yaml.safe_load((REPO / "configs" / "paper.yaml").read_text())
    cfg = budget_config(fill_defaults(validate_config(copy.deepcopy(raw))))
    m = "qwen3-8b-base"
    read = model_params(cfg, m) * 2 / 2e9
    k = {r.kind: r for r in plan(copy.deepcopy(cfg))[0] if r.model == m}
    assert (k["sample"].jobs, k["trajectory"].jobs) == (384, 288)
    assert k["sample"].startup_gpu_hours == pytest.approx(384 * (45 + read) / 3600)
    assert k["train"].startup_gpu_hours == pytest.approx(k["train"].jobs * 8 * (180 + read) / 3600)
    assert k["js"].startup_gpu_hours == pytest.approx(k["js"].jobs * (15 + 2 * read) / 3600)
    assert k["sample"].slurm_jobs is None

    raw["resources"]["sample"]["group"] = "checkpoint"
    grouped = budget_config(fill_defaults(validate_config(raw)))
    g = {r.kind: r for r in plan(copy.deepcopy(grouped))[0] if r.model == m}
    ckpts = len(model_checkpoints(grouped, m))
    assert (g["sample"].slurm_jobs, g["trajectory"].slurm_jobs, g["large_k"].slurm_jobs) == (ckpts, 12, 0) == (16, 12, 0)
    assert g["sample"].startup_gpu_hours == pytest.approx((384 * 45 + ckpts * read) / 3600)
    assert g["large_k"].startup_gpu_hours == pytest.approx(g["large_k"].jobs * 45 / 3600), "in its checkpoint's job"
    for kind in ("sample", "trajectory", "train"):  # the work is the same; only the start-up changes
        assert (g[kind].gpu_hours - g[kind].startup_gpu_hours == pytest.approx(k[kind].gpu_hours - k[kind].startup_gpu_hours))
    assert g["train"].startup_gpu_hours == pytest.approx(k["train"].startup_gpu_hours)

    pilot = tmp_path / "pilot.json"  # a pilot on no GPU kind the planner knows: only its start-up is used here
    pilot.write_text(json.dumps({"model_config": {}, "gpu_type": None, "grpo": {}, "sample": {"startup_seconds": 20.0}}))
    rows, facts = plan(copy.deepcopy(cfg), None, pilot)
    p = {r.kind: r for r in rows if r.model == m}
    assert p["sample"].startup_gpu_hours == pytest.approx(384 * (20 + read) / 3600)
    assert "MEASURED by the pilot" in facts["startup"][m]["sample"][2]
