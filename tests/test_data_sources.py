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


def test_ifbench_rows_load_and_unavailable_constraints_are_skipped_by_name():
    recs, log = build_task_records("if", [{"format": "ifbench", "file": str(DATA / "ifbench_test.jsonl"),
                                           "split": "eval", "name": "ifbench"}])
    assert [r["id"] for r in recs] == ["ifbench-0", "ifbench-1"]
    assert recs[0]["kwargs"] == [{"N": 3.0}]
    assert "skipped 1" in log[0] and "words:start_verb" in log[0]
    r = recs[0]
    assert score_if("Rivers: 1 2 3", r["instruction_id_list"], r["kwargs"], r["prompt"]).prompt_strict
    assert not score_if("Rivers: 1 2", r["instruction_id_list"], r["kwargs"], r["prompt"]).prompt_strict


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


def test_iftrain_rows_load_and_refused_kwargs_are_skipped_by_name():
    recs, log = build_task_records("if", [{"format": "iftrain", "file": str(DATA / "iftrain_train.jsonl"),
                                           "split": "train", "name": "iftrain"}])
    assert [r["id"] for r in recs] == ["iftrain-if_0", "iftrain-if_1", "iftrain-if_3"]
    assert "skipped 1" in log[0] and "keywords:word_once refused" in log[0]
    first, last, then = recs
    assert then["kwargs"] == [{"first_word": "Then"}]
    assert score_if("Then we ran. Then we hid.", then["instruction_id_list"], then["kwargs"], then["prompt"]).prompt_strict
    assert first["instruction_id_list"] == ["count:count_increment_word", "punctuation:punctuation_dot"]
    assert first["kwargs"] == [{"keyword1": "waves", "keyword2": "foam"}, {}]
    assert first["constraint_type"] == "multi"
    ok = "Waves and foam, more foam"
    assert score_if(ok, first["instruction_id_list"], first["kwargs"], first["prompt"]).prompt_strict
    assert not score_if(ok + ".", first["instruction_id_list"], first["kwargs"], first["prompt"]).prompt_strict
    assert score_if("An apple.", last["instruction_id_list"], last["kwargs"], last["prompt"]).prompt_strict


def test_iftrain_bad_ground_truth_names_the_row(tmp_path):
    path = tmp_path / "bad.jsonl"
    path.write_text(json.dumps({"messages": [{"role": "user", "content": "x"}], "ground_truth": "[{oops"}) + "\n")
    with pytest.raises(ValueError, match=r"row 0: ground_truth is not a constraint literal"):
        build_task_records("if", [{"format": "iftrain", "file": str(path), "split": "train", "name": "t"}])


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


# ---- AIME 2024, AMC23, Minerva math: each dataset's columns (HuggingFaceH4/aime_2024, math-ai/amc23,
# math-ai/minervamath), as small local files


def _write_rows(path: Path, rows: list[dict]) -> Path:
    if path.suffix == ".parquet":
        pd.DataFrame(rows).to_parquet(path)
    else:
        path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def test_aime24_amc23_minerva_rows_become_math_eval_prompts(tmp_path):
    aime = _write_rows(tmp_path / "aime24.jsonl", [
        {"id": 60, "problem": "Find the number of triples.", "solution": "...", "answer": "601",
         "url": "https://artofproblemsolving.com/wiki/index.php/2024_AIME_I_Problems/Problem_1", "year": "2024"},
        {"id": 61, "problem": "Find m+n.", "solution": "...", "answer": "25", "url": "u", "year": "2024"}])
    amc = _write_rows(tmp_path / "amc23.parquet", [{"question": "What is 3^3?", "answer": 27.0},
                                                   {"question": "Half of one?", "answer": 0.5}])
    minerva = _write_rows(tmp_path / "minerva.jsonl", [{"question": "Give v in m/s.", "answer": "3 \\times 10^{8}"}])
    recs, log = build_task_records("math", [
        {"format": "aime24", "file": str(aime), "split": "eval", "name": "aime24", "prompt_suffix": " Box it."},
        {"format": "amc23", "file": str(amc), "split": "eval", "name": "amc23"},
        {"format": "minerva", "file": str(minerva), "split": "eval", "name": "minerva"}])
    assert [r["id"] for r in recs] == ["aime24-60", "aime24-61", "amc23-0", "amc23-1", "minerva-0"]
    # AMC answers are stored as floats: an integral one is the integer the problem asks for
    assert [r["answer"] for r in recs] == ["601", "25", "27", "0.5", "3 \\times 10^{8}"]
    assert recs[0]["prompt"] == "Find the number of triples. Box it." and recs[0]["year"] == "2024"
    assert {r["source"] for r in recs} == {"aime24", "amc23", "minerva"} and {r["split"] for r in recs} == {"eval"}
    assert all(FIELDS <= set(r) for r in recs) and "math: amc23 (eval): 2 prompts" in log
    path = tmp_path / "math.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in recs))
    samples = pd.DataFrame({"prompt_id": ["amc23-0", "amc23-0", "aime24-61"], "sample_idx": [0, 1, 0],
                            "text": ["so \\boxed{27}", "so \\boxed{27.5}", "m+n = \\boxed{25}"]})
    assert score_samples(samples, load_prompts(path))["reward"].tolist() == [1.0, 0.0, 1.0]


def test_new_math_formats_check_their_columns_and_task(tmp_path):
    amc_as_problem = _write_rows(tmp_path / "amc.jsonl", [{"problem": "What is 3^3?", "answer": 27}])
    with pytest.raises(ValueError, match=r"row 0: missing column\(s\) \['question'\]"):
        build_task_records("math", [{"format": "amc23", "file": str(amc_as_problem), "split": "eval"}])
    aime = _write_rows(tmp_path / "aime.jsonl", [{"id": 1, "problem": "p", "answer": "1"}])
    with pytest.raises(ValueError, match="format 'aime24' gives 'math' prompts, not 'joint'"):
        build_task_records("joint", [{"format": "aime24", "file": str(aime), "split": "eval"}])


def test_source_size_from_limit_size_file_and_known_public_splits(tmp_path):
    from rlvr_support.data.sources.sizes import KNOWN_SIZES, source_size

    assert source_size({"format": "gsm8k", "hub": "openai/gsm8k", "config": "main", "hf_split": "test"}, "x") == 1319
    assert source_size({"format": "aime24", "hub": "HuggingFaceH4/aime_2024", "hf_split": "train"}, "x") == 30
    assert source_size({"format": "mathif", "hub": "TingchenFu/MathIF", "data_files": "math500_single.jsonl",
                        "hf_split": "train"}, "x") == 30
    assert source_size({"format": "math500", "hub": "HuggingFaceH4/MATH-500", "hf_split": "test", "limit": 64},
                       "x") == 64  # limit caps
    assert source_size({"format": "if_templates", "size": 8, "limit": 20}, "x") == 8
    rows = _write_rows(tmp_path / "m.jsonl", [{"question": "q", "answer": "1"}] * 3)
    assert source_size({"format": "minerva", "file": str(rows)}, "x") == 3
    with pytest.raises(ValueError, match=r"world.tasks.math\[1\].*'org/unknown'.*split 'test'.*unknown"):
        source_size({"format": "gsm8k", "hub": "org/unknown", "hf_split": "test"}, "world.tasks.math[1]")
    assert sum(v for (hub, _, _), v in KNOWN_SIZES.items() if hub == "TingchenFu/MathIF") == 420  # the card's total
