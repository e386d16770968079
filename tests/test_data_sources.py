"""Real-data loaders on fixture files in each dataset's real column layout (tests/data/sources/)."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from rlvr_support.data.sources import build_task_records
from rlvr_support.data.sources.rlvr_ifeval import map_ground_truth
from rlvr_support.scoring.score import load_prompts, score_samples
from rlvr_support.scoring.verifiers.ifeval import score_if

DATA = Path(__file__).parent / "data" / "sources"
FIELDS = {"id", "task", "prompt", "answer", "instruction_id_list", "kwargs", "split"}


def _hub_rows(path: Path) -> list[dict]:
    """What datasets.load_dataset(...) would return for the fixture: a datasets.Dataset."""
    import datasets

    df = pd.read_parquet(path) if path.suffix == ".parquet" else pd.read_json(path, lines=True)
    return datasets.Dataset.from_pandas(df, preserve_index=False)


def test_gsm8k_hub_path_calls_load_dataset(monkeypatch):
    import datasets

    calls = []

    def fake_load_dataset(name, config=None, split=None, revision=None):
        calls.append((name, config, split))
        return _hub_rows(DATA / "gsm8k_test.jsonl")

    monkeypatch.setattr(datasets, "load_dataset", fake_load_dataset)
    recs, _ = build_task_records("math", [{"format": "gsm8k", "hub": "openai/gsm8k", "config": "main",
                                           "hf_split": "test", "split": "eval"}])
    assert calls == [("openai/gsm8k", "main", "test")]
    assert [r["answer"] for r in recs] == ["72", "2400"]  # after '####', thousands separator removed
    assert recs[0]["id"] == "gsm8k_test-0" and all(FIELDS <= set(r) for r in recs)
    assert {r["split"] for r in recs} == {"eval"}


def test_hub_failure_names_dataset(monkeypatch):
    import datasets

    def boom(*a, **k):
        raise ConnectionError("offline")

    monkeypatch.setattr(datasets, "load_dataset", boom)
    with pytest.raises(ValueError, match="openai/gsm8k.*ConnectionError"):
        build_task_records("math", [{"format": "gsm8k", "hub": "openai/gsm8k", "split": "eval"}])


def test_math500_deepscaler_files_and_suffix():
    recs, log = build_task_records("math", [
        {"format": "deepscaler", "file": str(DATA / "deepscaler_train.jsonl"), "split": "train"},
        {"format": "math500", "file": str(DATA / "math500_test.parquet"), "split": "eval",
         "prompt_suffix": " Put the final answer in \\boxed{}."}])
    by_split = {s: [r for r in recs if r["split"] == s] for s in ("train", "eval")}
    assert [r["answer"] for r in by_split["train"]] == ["1024", "4"]
    assert by_split["eval"][0]["id"] == "math500_test-test/precalculus/807.json"
    assert by_split["eval"][0]["prompt"].endswith("\\boxed{}.") and by_split["eval"][0]["level"] == 2


def test_ifeval_parquet_nulls_dropped_and_scored():
    recs, _ = build_task_records("if", [{"format": "ifeval", "file": str(DATA / "ifeval_train.parquet"),
                                         "split": "eval", "name": "ifeval"}])
    assert recs[0]["id"] == "ifeval-1000"
    assert recs[0]["kwargs"] == [{}, {"num_highlights": 3}, {"relation": "at least", "num_words": 300}]
    r = recs[1]  # no_comma
    assert score_if("No commas here at all", r["instruction_id_list"], r["kwargs"], r["prompt"]).prompt_strict
    assert not score_if("Commas, here", r["instruction_id_list"], r["kwargs"], r["prompt"]).prompt_strict


def test_bad_instruction_kwargs_fail_at_load():
    with pytest.raises(ValueError, match=r"world.tasks.if\[0\].*ifeval-7.*num_commas"):
        build_task_records("if", [{"format": "ifeval", "file": str(DATA / "ifeval_bad.jsonl"), "split": "eval",
                                   "name": "ifeval"}])


def test_rlvr_ifeval_mapping_and_unmappable_reported():
    recs, log = build_task_records("if", [{"format": "rlvr_ifeval", "file": str(DATA / "rlvr_ifeval_train.parquet"),
                                           "split": "train", "name": "rlvr"}])
    assert len(recs) == 3 and "skipped 1" in log[0] and "validate_choice" in log[0]
    lower, freq, words = recs
    assert lower["instruction_id_list"] == ["change_case:english_lowercase"]
    # "exactly 3 times" = at least 3 and less than 4
    assert freq["kwargs"] == [{"keyword": "fur", "frequency": 3, "relation": "at least"},
                              {"keyword": "fur", "frequency": 4, "relation": "less than"}]
    text3 = "fur and fur and more fur"
    assert score_if(text3, freq["instruction_id_list"], freq["kwargs"], freq["prompt"]).prompt_strict
    assert not score_if(text3 + " fur", freq["instruction_id_list"], freq["kwargs"], freq["prompt"]).prompt_strict
    # around 50 words, tolerance 5 (open-instruct): 45..55 words pass
    for n, ok in ((44, False), (45, True), (55, True), (56, False)):
        got = score_if(" ".join(["w"] * n), words["instruction_id_list"], words["kwargs"], words["prompt"])
        assert got.prompt_strict is ok, n


def test_rlvr_ifeval_choice_with_ifeval_options_maps():
    ids, kw = map_ground_truth({"func_name": "validate_choice",
                                "options": ["My answer is yes.", "My answer is no.", "My answer is maybe."]})
    assert ids == ["detectable_format:constrained_response"] and kw == [{}]
    assert "no IFEval equivalent" in map_ground_truth({"func_name": "made_up"})


def test_mathif_joint_scores_math_and_instructions(tmp_path):
    recs, _ = build_task_records("joint", [{"format": "mathif", "file": str(DATA / "mathif_gsm8k_single.jsonl"),
                                            "split": "eval", "name": "mathif"}])
    assert [r["id"] for r in recs] == ["mathif-gsm8k_0", "mathif-gsm8k_1"] and recs[0]["source"] == "mathif"
    path = tmp_path / "joint.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in recs))
    samples = pd.DataFrame({"prompt_id": ["mathif-gsm8k_0"] * 2, "sample_idx": [0, 1],
                            "text": ["she has 7 apples. the answer is 7", "She has 7 apples. The answer is 7"]})
    scores = score_samples(samples, load_prompts(path))
    assert scores["reward"].tolist() == [1.0, 0.0]  # the second breaks the lowercase constraint


def test_format_task_mismatch_and_train_eval_leakage():
    with pytest.raises(ValueError, match="gives 'math' prompts, not 'if'"):
        build_task_records("if", [{"format": "gsm8k", "file": str(DATA / "gsm8k_test.jsonl"), "split": "eval"}])
    src = {"format": "gsm8k", "file": str(DATA / "gsm8k_test.jsonl")}
    recs, log = build_task_records("math", [{**src, "split": "train", "name": "a"}, {**src, "split": "eval", "name": "b"}])
    assert {r["split"] for r in recs} == {"eval"} and any("removed 2 train prompts" in line for line in log)


def test_missing_column_names_row_and_columns(tmp_path):
    bad = tmp_path / "x.jsonl"
    bad.write_text(json.dumps({"problem": "1+1"}) + "\n")
    with pytest.raises(ValueError, match=r"row 0: missing column\(s\) \['answer'\]"):
        build_task_records("math", [{"format": "deepscaler", "file": str(bad), "split": "train"}])
