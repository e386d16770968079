"""Verifier families: a job loads only the families it names (its --verifiers, which its rule hashes),
and the config says which ones each task's data needs (data/verifiers.py)."""

from __future__ import annotations

import json

import pandas as pd
import pytest
import yaml

from rlvr_support.cli.main import main
from rlvr_support.data.sources.build import source_verifiers
from rlvr_support.data.sources.formats import CONVERTERS, VERIFIERS
from rlvr_support.data.toyworld.constraints import TASK_VERIFIERS
from rlvr_support.data.toyworld.world import build_prompt_sets
from rlvr_support.data.verifiers import task_verifiers
from rlvr_support.scoring.score import load_prompts, score_samples
from rlvr_support.scoring.verifiers import families
from rlvr_support.scoring.verifiers.instructions import InstructionError, check_instruction
from rlvr_support.storage.atomic import write_jsonl
from conftest import REPO, SMOKE_CONFIG

IF_PROMPT = {"id": "p-if", "task": "if", "prompt": "Write.", "instruction_id_list": ["punctuation:no_comma"],
             "kwargs": [{}], "split": "eval"}
IFBENCH_PROMPT = {"id": "p-ifbench", "task": "if", "prompt": "Write.", "split": "eval",
                  "instruction_id_list": ["count:word_count_range"], "kwargs": [{"min_words": 1, "max_words": 5}]}
MATH_PROMPT = {"id": "p-math", "task": "math", "prompt": "1+1?", "answer": "2", "split": "eval"}


def _samples(pid, texts):
    return pd.DataFrame({"prompt_id": [pid] * len(texts), "sample_idx": range(len(texts)), "text": texts})


def test_a_job_loads_only_the_families_it_names(tmp_path):
    write_jsonl(tmp_path / "if.jsonl", [IF_PROMPT])
    with families.only(["math"]):
        with pytest.raises(ValueError, match=r"instruction verifier.*\(math\)"):
            load_prompts(tmp_path / "if.jsonl")
    with families.only(["ifeval"]):
        prompts = load_prompts(tmp_path / "if.jsonl")
        scores = score_samples(_samples("p-if", ["no commas here", "a, b"]), prompts)
        assert list(scores["reward"]) == [1.0, 0.0]
        with pytest.raises(ValueError, match=r"needs the math-verify verifier \(math\).*\(ifeval\)"):
            score_samples(_samples("p-math", ["answer : 2"]), {"p-math": MATH_PROMPT})
    assert families.allowed() is None  # restored after the block


def test_an_id_of_a_family_the_job_did_not_name_is_an_error_naming_that_family():
    with families.only(["ifeval"]):
        with pytest.raises(InstructionError, match=r"IFBench's \(ifbench\), not among .* \(ifeval\)"):
            check_instruction("count:word_count_range", "one two", {"min_words": 1, "max_words": 5}, "")
        with pytest.raises(InstructionError, match="unknown instruction id 'made:up'"):
            check_instruction("made:up", "text", {}, "")
    with families.only(["ifbench"]):
        assert check_instruction("count:word_count_range", "one two", {"min_words": 1, "max_words": 5}, "")
        with pytest.raises(InstructionError, match=r"IFEval's \(ifeval\)"):
            check_instruction("punctuation:no_comma", "text", {}, "")


def test_the_score_verb_holds_the_job_to_its_verifiers(tmp_path, capsys):
    write_jsonl(tmp_path / "if.jsonl", [IFBENCH_PROMPT])
    samples = tmp_path / "samples.parquet"
    _samples("p-ifbench", ["one two three"]).to_parquet(samples)
    argv = ["score", "--samples", str(samples), "--prompts", str(tmp_path / "if.jsonl"), "--cfg",
            json.dumps({"timeout_s": 1.0, "workers": 1, "reasoning": "none"})]
    assert main(argv + ["--out", str(tmp_path / "a.parquet"), "--verifiers", "ifeval"]) == 1
    assert "IFBench's (ifbench)" in capsys.readouterr().err
    assert main(argv + ["--out", str(tmp_path / "b.parquet"), "--verifiers", "ifbench"]) == 0
    assert pd.read_parquet(tmp_path / "b.parquet")["reward"].tolist() == [1.0]
    assert families.allowed() is None


def test_the_toy_worlds_prompts_use_the_families_it_declares():
    cfg = yaml.safe_load(SMOKE_CONFIG.read_text())
    sets = build_prompt_sets(cfg["world"])
    for task, records in sets.items():
        with families.only(TASK_VERIFIERS[task]):
            prompts = {r["id"]: r for r in records}
            texts = ["answer : 1" if r["task"] != "if" else "x" for r in records]
            df = pd.DataFrame({"prompt_id": list(prompts), "sample_idx": 0, "text": texts})
            assert len(score_samples(df, prompts)) == len(records)
    assert task_verifiers(cfg, "joint") == ("ifeval", "math")


def test_every_source_format_names_its_families():
    assert set(VERIFIERS) == set(CONVERTERS)
    for fams in VERIFIERS.values():
        assert fams and set(fams) <= set(families.ALL)
    assert source_verifiers({"format": "reasoning_gym"}) == ("reasoning_gym",)
    assert "math" in source_verifiers({"format": "if_templates", "math": {"task": "chain_sum"}})


def test_a_datasets_worlds_families_follow_its_sources_per_split():
    cfg = {"world": {"kind": "datasets", "tasks": {
        "math": [{"format": "gsm8k", "split": "train"}, {"format": "reasoning_gym", "split": "eval"}],
        "if": [{"format": "iftrain", "split": "train"}, {"format": "ifeval", "split": "eval"},
               {"format": "ifbench", "split": "eval"}]}}}
    assert task_verifiers(cfg, "math", "train") == ("math",)
    assert task_verifiers(cfg, "math", "eval") == ("reasoning_gym",)
    assert task_verifiers(cfg, "if", "train") == ("ifeval", "iftrain")
    assert task_verifiers(cfg, "if", "eval") == ("ifbench", "ifeval")
    assert task_verifiers(cfg, "if") == ("ifbench", "ifeval", "iftrain")


@pytest.mark.parametrize("config", ["paper.yaml", "paper-leash.yaml"])
def test_the_paper_studies_name_the_families_of_their_benchmarks(config):
    """RLVR-IFeval (train) and IFEval (eval) are IFEval's ids, MathIF IFEval's and math: no job of these
    studies covers IFBench's or IFTrain's checkers, and no math job an instruction checker."""
    cfg = yaml.safe_load((REPO / "configs" / config).read_text())
    assert {(t, s): task_verifiers(cfg, t, s) for t in ("math", "if", "joint") for s in ("train", "eval")} == {
        ("math", "train"): ("math",), ("math", "eval"): ("math",), ("if", "train"): ("ifeval",),
        ("if", "eval"): ("ifeval",), ("joint", "train"): ("ifeval", "math"), ("joint", "eval"): ("ifeval", "math")}
