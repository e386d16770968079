"""Per-benchmark budgets and token-array subsampling in a sample job, and the benchmark column downstream."""

from __future__ import annotations

import json

import pytest

from rlvr_support.config.benchmarks import eval_benchmarks
from rlvr_support.config.benchmarks import benchmark_sampling
from rlvr_support.config.validate import ConfigError, load_config, validate_config
from rlvr_support.sampling.jobs import benchmark_blocks, sample_checkpoint
from rlvr_support.scoring.score import load_prompts, score_samples
from support_helpers import tiny_checkpoint
from conftest import REPO

CFG = {"backend": "fast", "n": 3, "temperature": 1.0, "top_p": 1.0, "max_new_tokens": 6, "prompt_batch": 4,
       "seed": 0, "shards": 1}


def two_benchmarks(path, sizes=(("gsm_tiny", 3), ("aime_tiny", 2))):
    with path.open("w") as f:
        for name, size in sizes:
            for i in range(size):
                f.write(json.dumps({"id": f"{name}-{i}", "task": "math", "prompt": f"Q : solve {i} + 1 . A :",
                                    "answer": str(i + 1), "instruction_id_list": [], "kwargs": [],
                                    "split": "eval", "source": name}) + "\n")
    return path


@pytest.fixture(scope="module")
def ckpt(tmp_path_factory):
    return tiny_checkpoint(tmp_path_factory.mktemp("m"), seed=0)


def test_each_benchmark_is_sampled_with_its_own_budget(ckpt, tmp_path):
    prompts = two_benchmarks(tmp_path / "math.jsonl")
    cfg = dict(CFG, benchmarks={"aime_tiny": {"n": 5, "max_new_tokens": 3}}, token_arrays=2)
    df = sample_checkpoint(str(ckpt), str(prompts), str(tmp_path / "s.parquet"), cfg, job="base/math")
    per_prompt = df.groupby("prompt_id").size()
    assert all(per_prompt[f"gsm_tiny-{i}"] == 3 for i in range(3))
    assert all(per_prompt[f"aime_tiny-{i}"] == 5 for i in range(2))
    assert set(df.loc[df["benchmark"] == "aime_tiny", "n_tokens"]) <= {0, 1, 2, 3}  # its own max_new_tokens
    assert list(df["benchmark"].unique()) == ["gsm_tiny", "aime_tiny"]  # the prompts' order
    # token arrays for samples 0 and 1 of every prompt only; every sample keeps its text
    assert (df["has_token_arrays"] == (df["sample_idx"] < 2)).all()
    kept, dropped = df[df["has_token_arrays"]], df[~df["has_token_arrays"]]
    assert all(len(lp) == len(ent) == n for lp, ent, n in
               zip(kept["token_logprobs"], kept["token_entropies"], kept["n_tokens"]))
    assert all(len(x) == 0 for col in ("token_ids", "token_logprobs", "token_entropies") for x in dropped[col])
    assert (dropped["n_tokens"] > 0).any() and dropped["text"].notna().all()
    assert (df["entropy_topk"] == 0).all()  # the fast sampler's entropies are exact
    scores = score_samples(df, load_prompts(prompts))
    assert list(scores["benchmark"]) == list(df["benchmark"])


def test_one_benchmark_keeps_the_plain_job_seed(ckpt, tmp_path):
    """A study without per-benchmark settings samples with the job's plain seed (its weights and job name)."""
    from rlvr_support.models.loading import weights_id
    from rlvr_support.sampling.backends import Request, Sampler
    from rlvr_support.sampling.jobs import job_seed

    prompts = two_benchmarks(tmp_path / "math.jsonl", sizes=(("only", 3),))
    df = sample_checkpoint(str(ckpt), str(prompts), str(tmp_path / "s.parquet"), CFG, job="base/math")
    s = Sampler(str(ckpt), "fast", prompt_batch=4)
    rows = s.generate(Request([f"Q : solve {i} + 1 . A :" for i in range(3)], n=3, temperature=1.0, top_p=1.0,
                              max_new_tokens=6, seed=job_seed(0, f"{weights_id(ckpt)}/base/math")))
    assert list(df["token_ids"].map(list)) == [r["token_ids"] for r in rows]


def test_a_benchmark_split_by_another_is_an_error():
    with pytest.raises(ValueError, match="benchmark 'a' is split"):
        benchmark_blocks([{"id": "1", "task": "math", "source": "a"}, {"id": "2", "task": "math", "source": "b"},
                          {"id": "3", "task": "math", "source": "a"}])


def test_benchmark_sampling_overrides_only_the_named_keys():
    s = dict(CFG, benchmarks={"aime24": {"n": 1024, "temperature": 0.6}})
    assert benchmark_sampling(s, "aime24") == {"n": 1024, "temperature": 0.6, "top_p": 1.0, "max_new_tokens": 6}
    assert benchmark_sampling(s, "math500")["n"] == 3


def _paper():
    import yaml

    return yaml.safe_load((REPO / "configs" / "paper.yaml").read_text())


def test_paper_config_names_its_benchmarks():
    b = eval_benchmarks(load_config(REPO / "configs" / "paper.yaml"))
    assert b["math"] == ["math500", "aime24"] and b["if"] == ["ifeval"]


@pytest.mark.parametrize("edit, message", [
    (lambda c: c["sampling"]["benchmarks"].update(aime25={"n": 8}), "sampling.benchmarks.aime25: no eval source"),
    (lambda c: c["sampling"]["benchmarks"].update(aime24={"n": 8, "temperature": 0}), "greedy decoding"),
    (lambda c: c["sampling"].update(token_arrays=2), "analysis.divergence.samples_per_prompt"),
    (lambda c: c["sampling"]["benchmarks"].update(aime24={"k": 8}), "sampling.benchmarks.aime24.k: unknown key"),
])
def test_bad_budgets_are_named_before_any_job(edit, message):
    cfg = _paper()
    edit(cfg)
    with pytest.raises(ConfigError, match=message):
        validate_config(cfg)
