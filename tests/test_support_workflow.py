"""End to end on the smoke DAG: the support analyses' targets exist and are well formed."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import yaml

from conftest import SMOKE_CONFIG

CFG = yaml.safe_load(SMOKE_CONFIG.read_text())


@pytest.mark.slow
def test_support_targets_exist(smoke_run):
    names = ["tables/support.csv", "tables/support.md", "tables/support_categories.csv", "tables/entropy.csv",
             "tables/openings.csv", "tables/openings_styles.csv", "tables/claims.csv", "tables/claims.md",
             "tables/js_share.csv", "tables/js_positions.csv", "tables/perplexity.csv", "figures/entropy.png",
             "figures/entropy.pdf", "figures/perplexity.png"]
    names += [f"figures/{f}_{e}.{x}" for e in CFG["eval_sets"] for f in ("support", "openings") for x in ("png", "pdf")]
    names += [f"figures/js_{e}.png" for e in CFG["analysis"]["divergence"]["eval_sets"]]
    names += [f"{k}_{e}.{x}" for e in CFG["analysis"]["intervention"]["eval_sets"]
              for k, x in (("tables/intervention", "csv"), ("tables/intervention_decomposition", "csv"),
                           ("figures/intervention", "png"))]
    missing = [n for n in names if not (smoke_run / "results" / n).is_file() or (smoke_run / "results" / n).stat().st_size == 0]
    assert not missing, missing


@pytest.mark.slow
def test_support_counts_cover_every_prompt(smoke_run):
    t = pd.read_csv(smoke_run / "results/tables/support.csv")
    assert np.allclose(t[["P", "S", "E", "O"]].sum(axis=1), t["n_prompts"])
    assert set(t["relation"]) <= {"same-task", "cross-task"}
    assert (t["epsilon"] > 0).all() and (t["epsilon"] < 1).all()


@pytest.mark.slow
def test_js_and_claims_are_well_formed(smoke_run):
    js = pd.read_csv(smoke_run / "results/tables/js_positions.csv")
    assert js["js"].between(0, np.log(2) + 1e-9).all()
    assert js["position"].max() < CFG["analysis"]["divergence"]["max_positions"]
    claims = pd.read_csv(smoke_run / "results/tables/claims.csv")
    assert len(claims) > 0
    for src in claims["source"]:
        assert (smoke_run / src).is_file(), src


@pytest.mark.slow
@pytest.mark.snakemake
def test_one_seed_gives_no_verdict_on_the_smoke_dag(smoke_run):
    # the smoke config trains one RL seed: every row shows its effect and CI, none a verdict
    assert CFG["rl"]["seeds"] == [0]
    claims = pd.read_csv(smoke_run / "results/tables/claims.csv")
    assert len(claims) > 0 and set(claims["verdict"]) == {"1 seed"} and set(claims["n_seeds"]) == {1}
    measured = claims.dropna(subset=["ci_low", "ci_high"])
    assert len(measured) and (measured["ci_low"] <= measured["ci_high"]).all()
    md = (smoke_run / "results/tables/claims.md").read_text()
    assert not any(f"| {v} |" in md for v in ("agree", "disagree", "inconclusive"))
    st = pd.read_csv(smoke_run / "results/tables/seed_stability.csv")
    assert set(st["pooled_verdict"]) == {"1 seed"} and not st["stable"].any()
