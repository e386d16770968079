"""The anchor configs on released checkpoints (configs/leash-prorl.yaml, configs/limit-simplerl.yaml):
a base and its RLVR checkpoint from the hub, nothing trained. Each plans under the SLURM profile with
the external checkpoint declared, sampled on every benchmark of its eval sets, compared with its base
and in the claims table, and its budget counts both checkpoints."""

from __future__ import annotations

import re
import subprocess
import sys
from collections import Counter

import pandas as pd
import pytest
import yaml

from rlvr_support.planning.budget import budget_config, plan
from rlvr_support.config.benchmarks import benchmark_sampling
from rlvr_support.config.defaults import fill_defaults
from rlvr_support.config.validate import load_config
from test_paper_config import REPO, plan_jobs

# the eval prompts of each config's benchmarks (data/sources/sizes.py KNOWN_SIZES)
PROMPTS = {
    "configs/leash-prorl.yaml": {"aime24": 30, "amc23": 40, "minerva": 272, "math500": 500},
    "configs/limit-simplerl.yaml": {"math500": 500, "minerva": 272, "gsm8k": 1319, "aime24": 30, "amc23": 40},
}
CONFIGS = list(PROMPTS)


def _raw(config: str) -> dict:
    return yaml.safe_load((REPO / config).read_text())


def _pair(config: str) -> tuple[str, str, dict]:
    """(the base's name, the external checkpoint's name, the external's spec)."""
    ckpts = _raw(config)["checkpoints"]
    (base,) = [k for k, v in ckpts.items() if v.get("role") == "base"]
    (ext,) = [k for k, v in ckpts.items() if v.get("role") != "base"]
    return base, ext, ckpts[ext]


@pytest.fixture(scope="module", params=CONFIGS)
def anchor(request):
    """(config, every job of its `snakemake --profile slurm -n -p all`)."""
    return request.param, plan_jobs(request.param)


def test_the_configs_train_nothing_and_name_no_models_or_base():
    for config in CONFIGS:
        raw = _raw(config)
        assert raw["chains"] == [] and not {"models", "base", "rl"} & set(raw), config
        base, ext, spec = _pair(config)
        assert spec["base"] == base and spec["kind"] == "hf"


@pytest.mark.snakemake
def test_the_pair_is_declared_and_nothing_is_trained(anchor):
    config, jobs = anchor
    base, ext, spec = _pair(config)
    counts = Counter(j["rule"] for j in jobs)
    assert "train_stage" not in counts and "sample_routed" not in counts
    assert counts["base_model"] == 1 and counts["external_checkpoint"] == 1
    (declared,) = [j for j in jobs if j["rule"] == "external_checkpoint"]
    # a local job (the hub weights are fetched on the submit host), under the base's results
    assert declared["local"]
    assert f"checkpoint --name {ext} " in declared["shell"] and f'"path":"{spec["path"]}"' in declared["shell"]
    assert f"--out results/{base}/checkpoints/{ext}/manifest.json" in declared["shell"]
    (base_job,) = [j for j in jobs if j["rule"] == "base_model"]
    assert f'"path":"{_raw(config)["checkpoints"][base]["path"]}"' in base_job["shell"]
    assert f"--out results/{base}/checkpoints/base/manifest.json" in base_job["shell"]


@pytest.mark.snakemake
def test_both_checkpoints_are_sampled_on_every_eval_set_and_shard(anchor):
    config, jobs = anchor
    raw = _raw(config)
    base, ext, _ = _pair(config)
    shards = raw["sampling"]["shards"]
    planned = set()
    for j in jobs:
        if j["rule"] == "sample":
            m = re.search(rf"--model results/{re.escape(base)}/checkpoints/(\S+)/manifest.json .* "
                          rf"--out results/{re.escape(base)}/samples/(\S+)/(\w+)\.shards/(\d+)\.parquet", j["shell"])
            assert m and m.group(1) == m.group(2), j["shell"]
            planned.add((m.group(1), m.group(3), int(m.group(4))))
            assert not j["local"] and int(j["resources"]["gpu"]) >= 1
    assert planned == {(c, e, s) for c in ("base", ext) for e in raw["eval_sets"] for s in range(shards)}
    # the sample job reads each benchmark's own n (k = 8,192 / 1,024 where the benchmark is small)
    (shard0,) = [j["shell"] for j in jobs if j["rule"] == "sample" and f"/samples/{ext}/math.shards/0." in j["shell"]]
    for bench, own in raw["sampling"]["benchmarks"].items():
        assert f'"{bench}":{{"n":{own["n"]}}}' in shard0


@pytest.mark.snakemake
def test_the_external_checkpoint_is_compared_with_its_base_and_claimed(anchor):
    config, jobs = anchor
    base, ext, _ = _pair(config)
    (js,) = [j for j in jobs if j["rule"] == "positional_js"]
    assert (f"--base-model results/{base}/checkpoints/base/manifest.json "
            f"--model results/{base}/checkpoints/{ext}/manifest.json") in js["shell"]
    (claims,) = [j for j in jobs if j["rule"] == "claims_table"]
    assert f"results/{base}/scores/{ext}/math.parquet" in claims["shell"]
    assert f"--out results/{base}/tables/claims.csv" in claims["shell"]


@pytest.mark.parametrize("config", CONFIGS)
def test_the_budget_counts_both_checkpoints_and_no_training(config, tmp_path):
    out = tmp_path / "budget.md"
    proc = subprocess.run([sys.executable, "-m", "rlvr_support", "budget", "--configfile", str(REPO / config),
                           "--prompts-dir", str(tmp_path / "none"), "--out", str(out)],
                          capture_output=True, text=True, timeout=300, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr[-2000:]
    raw = _raw(config)
    per_checkpoint = sum(p * benchmark_sampling(raw["sampling"], b)["n"] for b, p in PROMPTS[config].items())
    # exact in the plan; the verb's CSV keeps 6 significant digits
    cfg = budget_config(fill_defaults(load_config(REPO / config)))
    k = {r.kind: r for r in plan(cfg)[0]}
    assert k["sample"].sequences == 2 * per_checkpoint
    rows = pd.read_csv(out.with_suffix(".csv")).set_index("kind")
    assert rows.loc["sample", "sequences"] == pytest.approx(2 * per_checkpoint, rel=1e-5)
    assert rows.loc["sample", "jobs"] == 2 * len(raw["eval_sets"]) * raw["sampling"]["shards"]
    assert rows.loc["js", "jobs"] == 1  # the external checkpoint against its base
    assert not {"train", "monitor", "routed", "trajectory"} & set(rows.index)
    base, ext, _ = _pair(config)
    assert f"base + 1 external ({ext})" in out.read_text()


@pytest.mark.snakemake
@pytest.mark.parametrize("config", CONFIGS)
def test_prefetch_fetches_the_external_checkpoint_on_the_submit_host(config):
    """`prefetch` (the submit host, with the network) declares the hub checkpoint, so no job downloads it."""
    from test_paper_config import SNAKEMAKE

    proc = subprocess.run([SNAKEMAKE, "--configfile", config, "-n", "--", "prefetch"], cwd=REPO,
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    base, ext, _ = _pair(config)
    assert f"results/{base}/checkpoints/{ext}/manifest.json" in proc.stdout
    assert re.search(r"^rule external_checkpoint:", proc.stdout, re.M)
