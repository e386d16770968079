"""End to end: the smoke config through the whole DAG (data -> base -> RLVR chains -> samples -> scores -> tables/figures)."""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest
import yaml

from conftest import SMOKE_CONFIG, run_snakemake


def _declared_targets(workdir):
    """Every output file of every job in the DAG of `all`, from snakemake's own plan."""
    proc = run_snakemake(workdir, "all", "-n", "-F")
    plan = proc.stdout + proc.stderr
    return sorted(set(re.findall(r"(results/[^\s,]+?\.(?:jsonl|json|parquet|csv|md|png|pdf))(?=[\s,]|$)", plan)))


@pytest.mark.slow
def test_every_declared_target_exists_and_is_non_empty(smoke_run):
    targets = _declared_targets(smoke_run)
    assert any(t.endswith("headline.csv") for t in targets)
    missing = [t for t in targets if not (smoke_run / t).is_file() or (smoke_run / t).stat().st_size == 0]
    assert not missing, f"missing or empty targets: {missing}"


@pytest.mark.slow
def test_passk_table_is_a_valid_curve(smoke_run):
    table = pd.read_csv(smoke_run / "results/tables/passk.csv")
    assert set(table["chain"]) == {"base", "math", "if", "math-if", "if-math", "joint", "math-if~kl"}
    assert set(table["eval_set"]) == {"math", "if", "joint"}
    vals = table[["mean", "ci_low", "ci_high"]].to_numpy()
    assert np.all((vals >= 0) & (vals <= 1)), "a metric left [0, 1]"
    assert np.all(table["ci_low"] <= table["mean"] + 1e-9) and np.all(table["mean"] <= table["ci_high"] + 1e-9)
    assert (table["benchmark"] == table["eval_set"]).all()  # the toy world: one benchmark per eval set
    for (_, _, _, metric), g in table.groupby(["chain", "eval_set", "benchmark", "metric"]):
        if metric in ("pass@k", "best@k"):
            assert np.all(np.diff(g.sort_values("k")["mean"].to_numpy()) >= -1e-12), f"{metric} fell with k"


@pytest.mark.slow
def test_headline_has_one_row_per_checkpoint_and_eval_set(smoke_run):
    head = pd.read_csv(smoke_run / "results/tables/headline.csv")
    assert len(head) == 7 * 3
    assert (smoke_run / "results/tables/headline.md").read_text().startswith("| chain |")


@pytest.mark.slow
def test_one_figure_regenerates_alone(smoke_run):
    fig = smoke_run / "results/figures/passk_math.png"
    fig.unlink()
    proc = run_snakemake(smoke_run, "results/figures/passk_math.png")
    assert fig.is_file() and fig.stat().st_size > 0
    assert "train_stage" not in proc.stderr.split("Job stats:")[-1].split("Select jobs")[0]


@pytest.mark.slow
def test_variant_chain_trains_from_the_shared_prefix_with_its_remedy(smoke_run):
    """`math-if~kl` continues from the `math` checkpoint, with the KL remedy on and logged."""
    import json

    manifest = json.loads((smoke_run / "results/checkpoints/math-if~kl/seed0/manifest.json").read_text())
    assert manifest["parent"].endswith("checkpoints/math/seed0/manifest.json")
    assert manifest["remedies"]["kl"]["beta"] == 0.05
    curve = pd.read_csv(smoke_run / "results/checkpoints/math-if~kl/seed0/reward_curve.csv")
    assert "kl" in curve.columns and curve["kl"].notna().any()
    plain = json.loads((smoke_run / "results/checkpoints/math-if/seed0/manifest.json").read_text())
    assert plain["remedies"] == {}


@pytest.mark.slow
def test_monitor_and_remedy_comparison(smoke_run):
    mon = pd.read_csv(smoke_run / "results/checkpoints/math-if~kl/seed0/monitor.csv")
    assert set(mon["task"]) == {"math", "if"} and set(mon["role"]) == {"current", "previous"}
    assert mon["step"].min() == 0 and mon["step"].max() == 2
    table = pd.read_csv(smoke_run / "results/tables/remedies.csv")
    assert set(table["chain"]) == {"math-if", "if-math", "math-if~kl"}
    assert set(table.loc[table["chain"] == "math-if~kl", "variant"]) == {"kl"}
    ok = table.dropna(subset=["ci_low"])
    assert (ok["ci_low"] <= ok["mean"] + 1e-9).all() and (ok["mean"] <= ok["ci_high"] + 1e-9).all()


@pytest.mark.slow
def test_each_stage_logs_its_zero_variance_groups_beside_the_prediction(smoke_run):
    """TRL's frac_reward_zero_std is kept in every reward curve and set beside the start's trainability."""
    res = smoke_run / "results"
    cfg = yaml.safe_load(SMOKE_CONFIG.read_text())
    obs = pd.read_csv(res / "tables" / "trainability_observed.csv")
    assert {(c, s) for c, s in zip(obs["chain"], obs["seed"])} == {
        (c, s) for c in cfg["chains"] for s in cfg["rl"]["seeds"]}
    assert obs["observed_first"].between(0, 1).all() and obs["predicted"].between(0, 1).all()
    assert set(obs.loc[obs["chain"] == "if-math", "start"]) == {"if"}


def test_the_chains_stages_start_before_the_jobs_that_wait_beside_them(smoke_run):
    """train_stage's priority: the chains are the critical path, so once the base is pretrained its ready
    first stages (math, if, joint) start before any of the base's sample or analysis jobs (without the
    priority Snakemake started one stage, then five sample jobs)."""
    logs = sorted((smoke_run / ".snakemake" / "log").glob("*.snakemake.log"))
    started = next((re.findall(r"(?m)^(?:local)?rule (\w+):", t) for t in (p.read_text() for p in logs)
                    if re.search(r"(?m)^(?:local)?rule pretrain_base:", t)), None)
    assert started, f"no Snakemake log of {smoke_run} pretrained the base"
    after = started[started.index("pretrain_base") + 1:]
    first_stages = [c for c in yaml.safe_load(SMOKE_CONFIG.read_text())["chains"] if "-" not in c]
    assert after[:len(first_stages)] == ["train_stage"] * len(first_stages), after[:10]
