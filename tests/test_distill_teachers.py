"""On-policy distillation against teachers along the teacher chain's training (seeds/000's sweet
spot): which weights a distilling chain learns from, the config checks, the plan, and the table."""

from __future__ import annotations

import copy

import numpy as np
import pandas as pd
import pytest
import yaml

from conftest import REPO, SMOKE_CONFIG, run_snakemake
from rlvr_support.analysis.remedy_comparison import teacher_markdown, teacher_table
from rlvr_support.config.chains import distill_teacher
from rlvr_support.config.validate import ConfigError, validate_config

SMOKE = yaml.safe_load(SMOKE_CONFIG.read_text())


def _with_teacher(cfg: dict, name: str, distill: dict) -> dict:
    cfg = copy.deepcopy(cfg)
    cfg["variants"][name] = {"distill": {"coef": 0.5, **distill}}
    cfg["chains"].append(f"math-if~{name}")
    return cfg


def test_distill_teacher_is_base_parent_or_a_kept_step():
    cfg = {"rl": {"steps": 150}, "variants": {"d": {"distill": {"teacher": "parent"}},
                                              "d50": {"distill": {"teacher": "parent", "teacher_step": 50}},
                                              "db": {"distill": {"teacher": "base"}}, "kl": {"kl": {"beta": 1}}}}
    assert distill_teacher(cfg, "math-if~d") == ("math", 150, False)
    assert distill_teacher(cfg, "math-if~d50") == ("math", 50, True)
    assert distill_teacher(cfg, "math-if~db") == ("base", 0, False)
    assert distill_teacher(cfg, "math~d") == ("base", 0, False)  # a one-stage chain's parent is the base
    assert distill_teacher(cfg, "math-if~kl") is None and distill_teacher(cfg, "math-if") is None


@pytest.mark.parametrize("step", [2, 3])  # rl.steps is 2: the final weights are no kept step, 3 is past the end
def test_a_teacher_step_that_is_not_kept_names_the_key(step):
    with pytest.raises(ConfigError, match=rf"variants.t.distill.teacher_step: .*below rl.steps = 2; {step} is not one"):
        validate_config(_with_teacher(SMOKE, "t", {"teacher_step": step}))


def test_a_teacher_chain_outside_the_trajectory_names_the_key():
    cfg = _with_teacher(SMOKE, "t", {"teacher_step": 1})
    cfg["trajectory"]["chains"] = ["if"]
    with pytest.raises(ConfigError, match=r"variants.t.distill.teacher_step: 1 needs the weights of 'math' at step 1"):
        validate_config(cfg)


@pytest.mark.snakemake
def test_the_plan_distils_from_the_kept_weights(tmp_path):
    cfg = tmp_path / "teacher.yaml"
    cfg.write_text(yaml.safe_dump(_with_teacher(SMOKE, "t1", {"teacher_step": 1}), sort_keys=False))
    proc = run_snakemake(tmp_path / "run", "all", "-n", "-p", config=cfg)
    train = [l for l in proc.stdout.splitlines() if "rlvr_support train" in l and "--chain math-if~t1" in l]
    assert len(train) == 1 and "--teacher results/checkpoints/math/seed0/step1/manifest.json" in train[0], train
    assert "results/tables/distill_teachers.csv" in proc.stdout


def test_teacher_table_puts_each_teacher_beside_its_plain_chain():
    rows = []
    for chain, variant, v in (("math-if", "baseline", 0.1), ("math-if~d", "d", 0.3), ("math-if~d1", "d1", 0.2),
                              ("math-if~kl", "kl", 0.9)):
        for metric, task in (("current_pass@1", "if"), ("previous_pass@1", "math"), ("previous_best@k", "math"),
                             ("previous_SRR", "math")):
            rows.append({"chain": chain, "base_chain": "math-if", "variant": variant, "current_task": "if",
                         "previous_task": "math", "parent": "math", "n_seeds": 1, "eval_set": task, "benchmark": task,
                         "metric": metric, "mean": v, "ci_low": v - 0.05, "ci_high": v + 0.05, "seed_std": np.nan})
    teachers = {"math-if~d": {"teacher": "math (final)", "teacher_step": 2, "teacher_fraction": 1.0},
                "math-if~d1": {"teacher": "math step 1", "teacher_step": 1, "teacher_fraction": 0.5}}
    t = teacher_table(pd.DataFrame(rows), teachers)
    assert list(dict.fromkeys(t["chain"])) == ["math-if", "math-if~d1", "math-if~d"]  # plain, then by step
    assert set(t["metric"]) == {"current_pass@1", "previous_pass@1", "previous_best@k"}
    assert set(t.loc[t["chain"] == "math-if", "teacher"]) == {"none"}
    md = teacher_markdown(t)
    assert "math step 1" in md and "1 (50%)" in md and md.count("\n") == 3 + 2


@pytest.mark.snakemake
def test_the_paper_overlay_plans_a_teacher_at_each_fifth_of_the_math_chain():
    """configs/paper-teachers.yaml on paper.yaml: each distilling IF stage reads the math chain's weights
    kept at its teacher step (20 to 80 % of 500 steps), or the math chain's end, for every model and seed."""
    import re
    import subprocess

    from test_paper_config import SNAKEMAKE

    proc = subprocess.run([SNAKEMAKE, "--cores", "1", "--configfile", "configs/paper.yaml", "configs/paper-teachers.yaml",
                           "-n", "-p", "--", "all"], cwd=REPO, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    teachers = {}
    for line in proc.stdout.splitlines():
        if m := re.search(r"--seed (\d) --chain (math-if~distill\S*) .*--teacher results/([^/]+)/checkpoints/(\S+)", line):
            teachers[(m.group(3), m.group(2), int(m.group(1)))] = m.group(4)
    assert len(teachers) == 2 * 5 * 3  # models x teachers x seeds
    for (model, chain, seed), path in teachers.items():
        step = chain.removeprefix("math-if~distill-t")
        assert path == (f"math/seed{seed}/manifest.json" if chain == "math-if~distill"
                        else f"math/seed{seed}/step{step}/manifest.json"), (chain, path)
    assert "results/qwen3-8b-base/tables/distill_teachers.md" in proc.stdout
