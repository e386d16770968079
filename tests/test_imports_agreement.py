"""imports/agreement.py and the agreement-table verb: a source whose own score is flipped for three
samples is named exactly there, as 'ours only' or 'theirs only'."""

from __future__ import annotations

import pandas as pd
import pytest

from rlvr_support.imports.agreement import verifier_agreement
from test_imports_formats import response, run_import, scored, write_jsonl

# six prompts x two samples; answers right for sample 0, wrong for sample 1
QUESTIONS = {f"p{i}": (f"What is {i} + {i}?", str(2 * i)) for i in range(1, 7)}
FLIPPED = {("p2", 0), ("p4", 1), ("p5", 1)}  # the source says the opposite of the truth here


def source_file(tmp):
    rows = []
    for key, (q, gold) in QUESTIONS.items():
        for j, answer in enumerate((gold, "999")):
            truth = float(answer == gold)
            rows.append({"id": key, "q": q, "gold": gold, "i": j, "r": response(answer),
                         "score": 1.0 - truth if (key, j) in FLIPPED else truth})
    return write_jsonl(tmp / "plain.jsonl", rows)


SPEC = {"fields": {"prompt": "q", "response": "r", "id": "id", "sample": "i", "score": "score", "answer": "doc.gold"}}


def test_three_flipped_rows_are_named_exactly(tmp_path):
    _, out = run_import(tmp_path, "plain_jsonl", [source_file(tmp_path)], SPEC)
    table = verifier_agreement(scored(out), pd.read_parquet(out / "source.parquet"), "theirs", "toy")
    row = table.iloc[0]
    assert row["compared"] == 12
    assert (row["both_correct"], row["ours_only"], row["theirs_only"], row["neither"]) == (5, 1, 2, 4)
    assert row["ours_only"] + row["theirs_only"] == len(FLIPPED)
    assert row["ours_only_prompts"] == "toy-p2"  # right, but the source said wrong
    assert row["theirs_only_prompts"] == "toy-p4;toy-p5"  # wrong, but the source said right


def test_samples_without_a_source_score_are_not_compared(tmp_path):
    scores = pd.DataFrame({"prompt_id": ["a", "a", "b"], "sample_idx": [0, 1, 0], "reward": [1.0, 0.0, 0.0]})
    source = pd.DataFrame({"prompt_id": ["a", "a", "b"], "sample_idx": [0, 1, 0], "source_score": [1.0, None, 0.5]})
    row = verifier_agreement(scores, source, "l", "b").iloc[0]
    assert (row["compared"], row["both_correct"], row["neither"]) == (2, 1, 1)
    row = verifier_agreement(scores, source, "l", "b", threshold=0.5).iloc[0]  # a graded score, cut at 0.5
    assert (row["theirs_only"], row["theirs_only_prompts"]) == (1, "b")


def test_a_source_score_without_our_score_is_an_error():
    scores = pd.DataFrame({"prompt_id": ["a"], "sample_idx": [0], "reward": [1.0]})
    source = pd.DataFrame({"prompt_id": ["a", "z"], "sample_idx": [0, 3], "source_score": [1.0, 1.0]})
    with pytest.raises(ValueError, match="prompt 'z' sample 3"):
        verifier_agreement(scores, source, "l", "b")


def test_the_verbs_end_to_end(tmp_path, monkeypatch):
    import hashlib
    import json

    from rlvr_support.cli.main import main

    monkeypatch.chdir(tmp_path)
    src = source_file(tmp_path)
    spec = {"format": "plain_jsonl", "benchmark": "toy", "task": "math", **SPEC}

    assert main(["import-samples", "--spec", json.dumps(spec), "--files", str(src), "--out", "imp/samples.parquet",
                 "--out-prompts", "imp/prompts.jsonl", "--out-source", "imp/source.parquet",
                 "--import-input", str(src)]) == 0
    sidecar = json.loads((tmp_path / "imp/samples.parquet.prov.json").read_text())
    digest = hashlib.sha256(src.read_bytes()).hexdigest()
    assert [(i["path"], i["sha256"]) for i in sidecar["inputs"]] == [(src.name, digest)]  # audit reaches the user's file
    assert main(["score", "--samples", "imp/samples.parquet", "--prompts", "imp/prompts.jsonl", "--cfg",
                 json.dumps({"timeout_s": 1, "workers": 1, "reasoning": "none"}), "--out", "imp/scores.parquet",
                 "--verifiers", "math"]) == 0
    assert main(["agreement-table", "--scores", "imp/scores.parquet", "--source", "imp/source.parquet",
                 "--label", "theirs", "--benchmark", "toy", "--out", "imp/agreement.csv"]) == 0
    table = pd.read_csv(tmp_path / "imp/agreement.csv")
    assert table.loc[0, "theirs_only_prompts"] == "toy-p4;toy-p5" and table.loc[0, "ours_only"] == 1
