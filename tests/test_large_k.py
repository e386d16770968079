"""best@k at a larger k (analysis.large_k): the prompt subset, the checkpoints chosen, the budget row,
the config checks, and what an edit of large_k reruns."""

from __future__ import annotations

import copy

import pytest
import yaml

from conftest import REPO, SMOKE_CONFIG
from rlvr_support.planning.budget import budget_config, plan_model, Lengths
from rlvr_support.config.checkpoints import analysis_checkpoints
from rlvr_support.config.defaults import fill_defaults
from rlvr_support.config.validate import ConfigError, load_config, validate_config
from rlvr_support.data.subsets import evenly_spaced


def test_evenly_spaced_takes_floor_i_n_over_count_in_order():
    records = [{"id": i} for i in range(10)]
    assert [r["id"] for r in evenly_spaced(records, 4)] == [0, 2, 5, 7]
    assert evenly_spaced(records, 10) == records
    assert evenly_spaced(records, 1) == records[:1]


def test_evenly_spaced_keeps_each_block_its_share():
    # two benchmarks listed one after the other (60 then 40 prompts): a tenth of each
    records = [{"b": "a"}] * 60 + [{"b": "z"}] * 40
    chosen = evenly_spaced(records, 10)
    assert sum(r["b"] == "a" for r in chosen) == 6 and sum(r["b"] == "z" for r in chosen) == 4


@pytest.mark.parametrize("count, message", [(0, "at least 1"), (11, "has only 10")])
def test_evenly_spaced_refuses_what_it_cannot_give(count, message):
    with pytest.raises(ValueError, match=message):
        evenly_spaced([{"id": i} for i in range(10)], count)


def test_large_k_checkpoints_are_the_named_ones_at_every_seed():
    cfg = {"analysis": {"large_k": {"checkpoints": ["base", "math", "mine"], "prompts": 5, "n": 64}}}
    labels = ["base", "math/seed0", "math/seed1", "math-if/seed0", "if/seed0", "mine", "other"]
    assert analysis_checkpoints(cfg, labels, "large_k") == ["base", "math/seed0", "math/seed1", "mine"]
    assert analysis_checkpoints({"analysis": {}}, labels, "large_k") == []


def _default():
    return fill_defaults(load_config(REPO / "config.yaml"))


@pytest.mark.parametrize("edit, message", [
    (lambda a: a.update(checkpoints=["base", "physics"]), r"analysis.large_k.checkpoints: \['physics'\]"),
    (lambda a: a.update(prompts=101), "analysis.large_k.prompts: 101 prompts, but world.math.eval has only 100"),
    (lambda a: a.pop("n"), "analysis.large_k.n: missing required key"),
])
def test_bad_large_k_names_the_key(edit, message):
    cfg = copy.deepcopy(load_config(REPO / "config.yaml"))
    edit(cfg["analysis"]["large_k"])
    with pytest.raises(ConfigError, match=message):
        validate_config(cfg)


def test_the_budget_counts_the_large_k_samples():
    cfg = budget_config(_default())
    counts = {e: {e: 100} for e in ("math", "if", "joint")}
    rows = {r.kind: r for r in plan_model(cfg, "base", counts, Lengths(0.5, None))}
    large = cfg["analysis"]["large_k"]
    chosen = 1 + 2 * len(cfg["rl"]["seeds"])  # base, math and if at each seed (config.yaml)
    assert large["checkpoints"] == ["base", "math", "if"]
    assert rows["large_k"].jobs == chosen * 3
    assert rows["large_k"].sequences == chosen * 3 * large["prompts"] * large["n"]
    off = budget_config({**_default(), "analysis": {k: v for k, v in _default()["analysis"].items() if k != "large_k"}})
    assert "large_k" not in {r.kind for r in plan_model(off, "base", counts, Lengths(0.5, None))}


@pytest.mark.slow
def test_the_smoke_run_writes_the_large_k_table_and_figures(smoke_run):
    import pandas as pd

    res = smoke_run / "results"
    large = yaml.safe_load(SMOKE_CONFIG.read_text())["analysis"]["large_k"]
    table = pd.read_csv(res / "tables" / "passk_large_k.csv")
    assert set(table["chain"]) == set(large["checkpoints"])
    assert table["k"].max() == large["n"]
    for e in ("math", "if", "joint"):
        assert (res / "figures" / f"bestk_large_k_{e}.png").is_file()
        subset = [l for l in (res / "data" / "subsets" / str(large["prompts"]) / f"{e}.jsonl").read_text().splitlines() if l]
        assert len(subset) == large["prompts"]
    assert (res / "tables" / "passk_large_k.csv.prov.json").is_file()


@pytest.mark.slow
def test_raising_large_k_n_reruns_only_the_large_k_jobs(smoke_run, tmp_path):
    from test_rerun_plans import edited_config, plan, rules

    jobs = plan(smoke_run, edited_config(tmp_path, lambda c: c["analysis"]["large_k"].update(n=32)))
    assert rules(jobs) == {"sample_large_k", "score_large_k", "large_k_table", "figure_bestk_large_k", "budget"}, \
        rules(jobs)
