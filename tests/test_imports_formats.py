"""imports/formats: each tool's file, written here in that tool's layout (the module of each
format names the writer it follows), imported, scored by this project's verifier, and its
pass@k, best@k, maj@k and coverage compared with values worked out by hand.

The fixture is the same two math prompts in every format:
  A, gold 4: answers 4, 5, 4, 4   -> c = 3 of n = 4
  B, gold 9: answers 1, 1, 9, 2   -> c = 1 of n = 4
by hand: pass@1 = (3/4 + 1/4) / 2 = 0.5; pass@2 = (1 + (1 - C(3,2)/C(4,2))) / 2 = (1 + 0.5) / 2 = 0.75;
pass@4 = 1; best@k = pass@k (0/1 rewards); coverage@1 (first sample) = (1 + 0) / 2 = 0.5;
maj@4 (majority of the extracted answers) = (A: 4 right + B: 1 wrong) / 2 = 0.5; maj@2 over the six pairs
(a tie counts half): A {4,5} x3 ties, {4,4} x3 right: 4.5/6; B {1,9} x2 and {9,2} ties: 1.5/6; mean 0.5.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from rlvr_support.imports.formats import FORMATS
from rlvr_support.imports.import_job import import_entry
from rlvr_support.imports.prompt_keys import text_key
from rlvr_support.metrics.majority import answer_classes, maj_at_k_matrix
from rlvr_support.metrics.passk import best_at_k_matrix, coverage_at_k, passk_from_counts
from rlvr_support.scoring.score import load_prompts, score_samples
from rlvr_support.storage.atomic import read_samples

PROMPTS = {"A": ("What is 2 + 2?", "4", ["4", "5", "4", "4"]), "B": ("What is 3 * 3?", "9", ["1", "1", "9", "2"])}
EXPECTED = {"pass@1": 0.5, "pass@2": 0.75, "pass@4": 1.0, "best@2": 0.75, "coverage@1": 0.5, "maj@2": 0.5,
            "maj@4": 0.5}


def response(answer: str) -> str:
    return f"Let me think. The answer is \\boxed{{{answer}}}."


def write_jsonl(path: Path, rows) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


# ---- one writer per format, in the tool's layout ------------------------------------------------

def lm_eval_row(doc_id, key, *, filter_key="none", metric=True):
    q, gold, answers = PROMPTS[key]
    resps = [response(a) for a in answers]
    row = {"doc_id": doc_id, "doc": {"question": q, "answer": gold}, "target": gold,
           "arguments": {"gen_args_0": {"arg_0": f"Question: {q}\nAnswer:", "arg_1": "{'until': ['Question:']}"}},
           "resps": [resps], "filtered_resps": [resps[0]], "filter": filter_key, "metrics": ["exact_match"],
           "doc_hash": "d", "prompt_hash": "p", "target_hash": "t"}
    if metric:
        row["exact_match"] = float(answers[0] == gold)
    return row


def write_lm_eval(tmp: Path) -> tuple[list[Path], dict]:
    # two filters, as gsm8k's strict-match / flexible-extract: every doc is written once per filter
    rows = [lm_eval_row(0, "A"), lm_eval_row(0, "A", filter_key="other"), lm_eval_row(1, "B"),
            lm_eval_row(1, "B", filter_key="other")]
    return [write_jsonl(tmp / "samples_toy_2025-01-01T00-00-00.jsonl", rows)], {}


def write_lighteval(tmp: Path) -> tuple[list[Path], dict]:
    rows = []
    for i, (key, (q, gold, answers)) in enumerate(PROMPTS.items()):
        choices = [gold]
        rows.append({"doc": {"query": q, "choices": choices, "gold_index": 0, "instruction": "", "id": str(i),
                             "task_name": "toy", "num_samples": 4, "specific": None},
                     "metric": {"pass@k:k=1&n=4": 0.5},
                     "model_response": {"input": q, "text": [response(a) for a in answers],
                                        "output_tokens": [[1, 2, 3]] * 4, "logprobs": []}})
    path = tmp / "details_toy_2025-01-01T00-00-00.parquet"
    pq.write_table(pa.Table.from_pylist(rows), path)
    return [path], {}


def write_vllm(tmp: Path) -> tuple[list[Path], dict]:
    rows, docs = [], []
    for i, (key, (q, gold, answers)) in enumerate(PROMPTS.items()):
        outs = [{"index": j, "text": response(a), "token_ids": [10 + j, 11, 12], "cumulative_logprob": -1.0,
                 "logprobs": [{str(10 + j): {"logprob": -0.5, "rank": 1, "decoded_token": "x"}}, {"11": -0.25},
                              {"12": {"logprob": -0.125}}], "finish_reason": "stop", "stop_reason": None}
                for j, a in enumerate(answers)]
        rows.append({"request_id": str(i), "prompt": q, "prompt_token_ids": [1, 2], "outputs": outs, "finished": True})
        docs.append({"key": text_key(q), "answer": gold})
    write_jsonl(tmp / "docs.jsonl", docs)
    return [write_jsonl(tmp / "outputs.jsonl", rows)], {"docs": {"file": str(tmp / "docs.jsonl"), "id": "key"}}


def write_openai_batch(tmp: Path) -> tuple[list[Path], dict]:
    rows, docs = [], []
    for key, (q, gold, answers) in PROMPTS.items():
        choices = [{"index": j, "message": {"role": "assistant", "content": response(a)}, "finish_reason": "stop"}
                   for j, a in enumerate(answers)]
        rows.append({"id": f"batch_req_{key}", "custom_id": f"q{key}", "error": None,
                     "response": {"status_code": 200, "request_id": f"r{key}",
                                  "body": {"id": "cmpl", "object": "chat.completion", "choices": choices}}})
        docs.append({"custom_id": f"q{key}", "method": "POST", "url": "/v1/chat/completions", "answer": gold,
                     "body": {"model": "m", "n": 4, "messages": [{"role": "user", "content": q}]}})
    write_jsonl(tmp / "batch_input.jsonl", docs)
    return [write_jsonl(tmp / "batch_output.jsonl", rows)], {"docs": {"file": str(tmp / "batch_input.jsonl"),
                                                                      "id": "custom_id"}}


def write_verl(tmp: Path) -> tuple[list[Path], dict]:
    a, b = PROMPTS["A"], PROMPTS["B"]
    # rows of one prompt apart (a balanced batch reorders them), and a row of another step
    order = [("A", 0), ("A", 1), ("B", 0), ("B", 1), ("A", 2), ("B", 2), ("B", 3), ("A", 3)]
    rows = []
    for key, j in order:
        q, gold, answers = PROMPTS[key]
        rows.append({"input": q, "output": response(answers[j]), "gts": gold, "score": float(answers[j] == gold),
                     "step": 100, "acc": answers[j] == gold})
    rows.insert(3, {"input": a[0], "output": response("4"), "gts": a[1], "score": 1.0, "step": 50, "acc": True})
    path = tmp / "100.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in rows) + "\n")  # verl joins its lines so
    assert b
    return [path], {"step": 100}


def write_trl(tmp: Path) -> tuple[list[Path], dict]:
    rows = []
    for key, (q, gold, answers) in PROMPTS.items():
        for a in answers:
            rows.append({"step": 10, "prompt": [{"role": "user", "content": q}],
                         "completion": [{"role": "assistant", "content": response(a)}],
                         "accuracy_reward": float(a == gold), "advantage": 0.0, "answer": gold})
    folder = tmp / "completions"
    folder.mkdir()
    path = folder / "completions_00010.parquet"
    pd.DataFrame(rows).to_parquet(path)
    return [path], {}


def write_plain(tmp: Path) -> tuple[list[Path], dict]:
    rows = [{"qid": key, "question": q, "gold": gold, "sample": j, "completion": response(a)}
            for key, (q, gold, answers) in PROMPTS.items() for j, a in enumerate(answers)]
    fields = {"prompt": "question", "response": "completion", "id": "qid", "sample": "sample", "answer": "doc.gold"}
    return [write_jsonl(tmp / "plain.jsonl", rows[::-1])], {"fields": fields}


WRITERS = {"lm_eval": write_lm_eval, "lighteval": write_lighteval, "vllm_outputs": write_vllm,
           "openai_batch": write_openai_batch, "verl": write_verl, "trl_completions": write_trl,
           "plain_jsonl": write_plain}


# ---- importing, scoring, the metrics -------------------------------------------------------------

def run_import(tmp: Path, fmt: str, files, extra: dict, task: str = "math"):
    out = tmp / "out"
    spec = {"format": fmt, "benchmark": "toy", "task": task, **extra}
    summary = import_entry(spec, files, out / "samples.parquet", out / "prompts.jsonl", out / "source.parquet")
    return summary, out


def scored(out: Path) -> pd.DataFrame:
    samples = read_samples(out / "samples.parquet", columns=["prompt_id", "sample_idx", "text"])
    scores = score_samples(samples, load_prompts(out / "prompts.jsonl"))
    return scores.sort_values(["prompt_id", "sample_idx"]).reset_index(drop=True)


def metrics(scores: pd.DataFrame) -> dict[str, float]:
    groups = [g for _, g in scores.groupby("prompt_id", sort=True)]
    n = np.array([len(g) for g in groups])
    c = np.array([int(g["reward"].sum()) for g in groups])
    p = passk_from_counts(n, c, [1, 2, 4]).mean(axis=0)
    rewards = np.array([g["reward"].to_numpy() for g in groups])
    classes = np.stack([answer_classes(g["extracted_answer"].tolist(), g["reward"] >= 1) for g in groups])
    maj = maj_at_k_matrix(classes, [2, 4], seed=0).mean(axis=0)  # the pipeline's maj@k (metrics/majority.py)
    return {"pass@1": p[0], "pass@2": p[1], "pass@4": p[2], "best@2": float(best_at_k_matrix(rewards, [2])[:, 0].mean()),
            "coverage@1": coverage_at_k(rewards.astype(bool), 1), "maj@2": maj[0], "maj@4": maj[1]}


@pytest.mark.parametrize("fmt", list(WRITERS))
def test_each_format_gives_the_hand_computed_metrics(tmp_path, fmt):
    files, extra = WRITERS[fmt](tmp_path)
    summary, out = run_import(tmp_path, fmt, files, extra)
    assert (summary["prompts"], summary["samples"], summary["n_min"], summary["n_max"]) == (2, 8, 4, 4)
    got = metrics(scored(out))
    assert got == pytest.approx(EXPECTED), got


def test_every_format_has_a_fixture():
    assert set(WRITERS) == set(FORMATS)


def test_lm_eval_reads_all_repeats_not_the_filtered_response(tmp_path):
    files, _ = write_lm_eval(tmp_path)
    _, out = run_import(tmp_path, "lm_eval", files, {})
    samples = read_samples(out / "samples.parquet")
    texts = samples[samples["prompt_id"] == "toy-1"].sort_values("sample_idx")["text"].tolist()
    assert texts == [response(a) for a in PROMPTS["B"][2]]  # all K = 4, in order; filtered_resps held one
    prompts = load_prompts(out / "prompts.jsonl")
    assert prompts["toy-0"]["answer"] == "4" and prompts["toy-0"]["prompt"].startswith("Question: What is 2 + 2?")
    source = pd.read_parquet(out / "source.parquet")
    assert source["source_score"].notna().sum() == 2  # the metric is the first response's (take_first)
    assert source.loc[source["source_score"].notna(), "sample_idx"].tolist() == [0, 0]


def test_lm_eval_filter_names_which_lines_are_read(tmp_path):
    files, _ = write_lm_eval(tmp_path)
    summary, _ = run_import(tmp_path, "lm_eval", files, {"filter": "other"})
    assert summary["samples"] == 8
    with pytest.raises(ValueError, match="no samples"):
        run_import(tmp_path, "lm_eval", files, {"filter": "absent"})


def test_verl_rows_are_grouped_by_prompt_text(tmp_path):
    files, extra = write_verl(tmp_path)
    _, out = run_import(tmp_path, "verl", files, extra)
    samples = read_samples(out / "samples.parquet")
    n = samples.groupby("prompt_id")["sample_idx"].agg(["count", "max"])
    assert n["count"].tolist() == [4, 4] and n["max"].tolist() == [3, 3]  # the step-50 row left out
    assert set(samples["prompt_id"]) == {f"toy-{text_key(PROMPTS[k][0])}" for k in PROMPTS}
    summary, _ = run_import(tmp_path, "verl", files, {})  # every step
    assert summary["samples"] == 9 and summary["n_max"] == 5


def test_vllm_token_arrays_are_kept(tmp_path):
    files, extra = write_vllm(tmp_path)
    _, out = run_import(tmp_path, "vllm_outputs", files, extra)
    s = read_samples(out / "samples.parquet").sort_values(["prompt_id", "sample_idx"])
    first = s.iloc[0]
    assert bool(first["has_token_arrays"]) and list(first["token_ids"]) == [10, 11, 12]
    assert list(first["token_logprobs"]) == [-0.5, -0.25, -0.125] and first["n_tokens"] == 3
    assert first["finish_reason"] == "stop"


def test_formats_without_tokens_say_so(tmp_path):
    files, extra = write_lm_eval(tmp_path)
    _, out = run_import(tmp_path, "lm_eval", files, extra)
    s = read_samples(out / "samples.parquet")
    assert not s["has_token_arrays"].any() and s["token_ids"].isna().all() and s["n_tokens"].isna().all()


def test_prompts_may_have_different_n(tmp_path):
    rows = [{"q": "What is 2 + 2?", "r": [response("4"), response("5")], "gold": "4"},
            {"q": "What is 3 * 3?", "r": [response("9"), response("9"), response("1")], "gold": "9"}]
    files = [write_jsonl(tmp_path / "p.jsonl", rows)]
    summary, out = run_import(tmp_path, "plain_jsonl", files,
                              {"fields": {"prompt": "q", "response": "r", "answer": "doc.gold"}})
    assert (summary["n_min"], summary["n_max"]) == (2, 3)
    s = scored(out)
    groups = [g for _, g in s.groupby("prompt_id")]
    n = np.array([len(g) for g in groups])
    c = np.array([int(g["reward"].sum()) for g in groups])
    assert sorted(zip(n.tolist(), c.tolist())) == [(2, 1), (3, 2)]
    with pytest.raises(ValueError, match="k=3 exceeds n=2"):
        passk_from_counts(n, c, [3])  # k above a prompt's own n is an error naming that n


def test_if_prompts_take_ifeval_fields_from_the_doc(tmp_path):
    doc = {"key": 7, "prompt": "Write one word in all capitals.", "instruction_id_list": ["change_case:english_capital"],
           "kwargs": [{"num_words": None, "relation": None}]}
    row = lm_eval_row(7, "A")
    row["doc"] = doc
    shout = "THE WEATHER TODAY IS SUNNY AND WARM, AND EVERYONE IN THE TOWN IS GOING OUTSIDE TO ENJOY IT."
    row["resps"] = [[shout, shout.lower()]]
    _, out = run_import(tmp_path, "lm_eval", [write_jsonl(tmp_path / "if.jsonl", [row])], {}, task="if")
    rec = load_prompts(out / "prompts.jsonl")["toy-7"]
    assert rec["instruction_id_list"] == ["change_case:english_capital"] and rec["kwargs"] == [{}]
    assert scored(out)["reward"].tolist() == [1.0, 0.0]


def test_text_key_normalises_unicode_and_whitespace():
    assert text_key("Caf\u00e9  au\n lait ") == text_key("Cafe\u0301 au lait")
    assert text_key("a b") != text_key("ab") and len(text_key("x")) == 16
