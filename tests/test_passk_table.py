"""passk_table / headline_table / routed_table per benchmark: rows, n, pooled rows, hand-computed values."""

from __future__ import annotations

import pytest

from rlvr_support.analysis.benchmarks import POOLED
from rlvr_support.analysis.passk_table import headline_table, passk_table
from rlvr_support.analysis.routed_table import routed_summary, routed_table
from rlvr_support.analysis.runs import parse_files
from benchmark_scores import write_benchmark_scores

OPTS = dict(n_boot=100, ci=0.9, seed=0)
# gsm8k at n = 4, math500 at n = 2 (per-benchmark budgets)
BASE = {"gsm8k": {"g0": [1, 0, 0, 0], "g1": [0, 0, 0, 0]},
        "math500": {"m0": [1, 1], "m1": [0, 1], "m2": [0, 0]}}


def _value(t, bench, metric, k, chain="base", eval_set="math"):
    r = t[(t["chain"] == chain) & (t["eval_set"] == eval_set) & (t["benchmark"] == bench) & (t["metric"] == metric)
          & (t["k"] == k)]
    assert len(r) == 1, (bench, metric, k)
    return r.iloc[0]


def test_two_benchmarks_of_different_n_get_their_own_rows_and_a_pooled_group(tmp_path):
    paths = [write_benchmark_scores(tmp_path, "base", "math", BASE)]
    t = passk_table(parse_files(paths, tmp_path), **OPTS)
    assert list(t.columns[:4]) == ["chain", "eval_set", "benchmark", "metric"]
    assert list(dict.fromkeys(t["benchmark"])) == ["gsm8k", "math500", POOLED]  # pooled rows last
    ks = {b: sorted(set(g["k"])) for b, g in t.groupby("benchmark")}
    assert ks == {"gsm8k": [1, 2, 4], "math500": [1, 2], POOLED: [1, 2]}  # pooled: up to the smallest n
    n = t.groupby("benchmark")[["n_samples", "n_prompts"]].first().to_dict("index")
    assert n == {"gsm8k": {"n_samples": 4, "n_prompts": 2}, "math500": {"n_samples": 2, "n_prompts": 3},
                 POOLED: {"n_samples": 2, "n_prompts": 5}}
    # g0: 1 of 4 correct -> pass@2 = 1 - C(3,2)/C(4,2) = 1/2; g1: 0
    assert _value(t, "gsm8k", "pass@k", 1)["mean"] == pytest.approx((1 / 4 + 0) / 2)
    assert _value(t, "gsm8k", "pass@k", 2)["mean"] == pytest.approx((1 / 2 + 0) / 2)
    assert _value(t, "gsm8k", "pass@k", 4)["mean"] == pytest.approx(1 / 2)
    assert _value(t, "math500", "pass@k", 1)["mean"] == pytest.approx((1 + 1 / 2 + 0) / 3)
    assert _value(t, "math500", "coverage", 1)["mean"] == pytest.approx(1 / 3)  # first sample: m0 only
    # pooled: every prompt at its own n, then the mean over the 5 prompts
    assert _value(t, POOLED, "pass@k", 1)["mean"] == pytest.approx((1 / 4 + 0 + 1 + 1 / 2 + 0) / 5)
    assert _value(t, POOLED, "pass@k", 2)["mean"] == pytest.approx((1 / 2 + 0 + 1 + 1 + 0) / 5)
    r = _value(t, POOLED, "best@k", 2)
    assert r["ci_low"] <= r["mean"] <= r["ci_high"]


def test_one_benchmark_or_an_old_file_has_no_pooled_rows(tmp_path):
    paths = [write_benchmark_scores(tmp_path, "base", "math", {"math": BASE["gsm8k"]}),
             write_benchmark_scores(tmp_path, "base", "if", {"if": BASE["math500"]}, task="if", column=False)]
    t = passk_table(parse_files(paths, tmp_path), **OPTS)
    assert set(zip(t["eval_set"], t["benchmark"])) == {("math", "math"), ("if", "if")}
    assert _value(t, "if", "pass@k", 1, eval_set="if")["mean"] == pytest.approx(0.5)
    assert POOLED not in set(t["benchmark"])


def test_seeds_are_averaged_per_benchmark_and_must_share_n(tmp_path):
    s0 = {"gsm8k": {"g0": [1, 1, 1, 1], "g1": [0, 0, 0, 0]}, "math500": {"m0": [0, 0], "m1": [0, 0], "m2": [0, 0]}}
    s1 = {"gsm8k": {"g0": [0, 0, 0, 0], "g1": [0, 0, 0, 0]}, "math500": {"m0": [1, 1], "m1": [1, 1], "m2": [1, 1]}}
    paths = [write_benchmark_scores(tmp_path, "math/seed0", "math", s0),
             write_benchmark_scores(tmp_path, "math/seed1", "math", s1)]
    t = passk_table(parse_files(paths, tmp_path), **OPTS)
    assert _value(t, "gsm8k", "pass@k", 1, chain="math")["mean"] == pytest.approx((0.5 + 0) / 2)
    assert _value(t, "math500", "pass@k", 1, chain="math")["mean"] == pytest.approx((0 + 1) / 2)
    assert _value(t, POOLED, "pass@k", 1, chain="math")["mean"] == pytest.approx((1 / 5 + 3 / 5) / 2)
    assert set(t["n_seeds"]) == {2}
    bad = {**s1, "math500": {"m0": [1], "m1": [1], "m2": [1]}}
    write_benchmark_scores(tmp_path, "math/seed1", "math", bad)
    with pytest.raises(ValueError, match=r"math500.*different n"):
        passk_table(parse_files(paths, tmp_path), **OPTS)


def test_headline_has_one_row_per_benchmark_at_its_largest_k(tmp_path):
    paths = [write_benchmark_scores(tmp_path, "base", "math", BASE)]
    head = headline_table(passk_table(parse_files(paths, tmp_path), **OPTS))
    assert list(head.columns[:3]) == ["chain", "eval_set", "benchmark"]
    rows = head.set_index("benchmark")
    assert rows["k_max"].to_dict() == {"gsm8k": 4, "math500": 2, POOLED: 2}
    assert rows.loc["gsm8k", "best@kmax"] == pytest.approx(1 / 2)
    assert rows.loc["math500", "coverage@kmax"] == pytest.approx(2 / 3)
    assert rows.loc[POOLED, "pass@1"] == pytest.approx(0.35)
    # a passk table of before the benchmark column reads as one benchmark per eval set
    old = headline_table(passk_table(parse_files(paths, tmp_path), **OPTS).query("benchmark == 'gsm8k'")
                         .drop(columns="benchmark"))
    assert list(old["benchmark"]) == ["math"] and list(old["k_max"]) == [4]


def test_routed_table_keeps_benchmarks_and_reads_an_old_plain_table(tmp_path):
    plain_paths = [write_benchmark_scores(tmp_path / "plain", "base", "math", BASE),
                   write_benchmark_scores(tmp_path / "plain", "math/seed0", "math", BASE)]
    routed_paths = [write_benchmark_scores(tmp_path / "routed", "math/seed0", "math",
                                           {"gsm8k": {"g0": [1, 1, 1, 1], "g1": [1, 0, 0, 0]},
                                            "math500": BASE["math500"]})]
    plain = passk_table(parse_files(plain_paths, tmp_path / "plain"), **OPTS)
    t = routed_table(plain, parse_files(routed_paths, tmp_path / "routed"), **OPTS)
    assert list(t.columns[:3]) == ["chain", "eval_set", "benchmark"]
    s = routed_summary(t).set_index(["chain", "benchmark", "sampling"])
    assert s.loc[("math", "gsm8k", "routed"), "pass@1"] == pytest.approx((1 + 1 / 4) / 2)
    assert s.loc[("math", "gsm8k", "plain"), "pass@1"] == pytest.approx(1 / 8)
    assert s.loc[("math", "math500", "routed"), "k_max"] == 2
    old = plain[plain["benchmark"] == "gsm8k"].drop(columns="benchmark")
    t_old = routed_table(old, parse_files(routed_paths, tmp_path / "routed"), **OPTS)
    assert set(t_old.loc[t_old["sampling"] == "plain", "benchmark"]) == {"math"}


def test_prompts_of_different_n_are_each_counted_up_to_their_own_n(tmp_path):
    """Imported samples: one benchmark whose prompts have n = 2 and n = 4."""
    ragged = {"math": {"a": [1, 0], "b": [0, 0, 1, 0]}}
    t = passk_table(parse_files([write_benchmark_scores(tmp_path, "base", "math", ragged)], tmp_path), **OPTS)
    assert sorted(set(t["k"])) == [1, 2, 4]
    assert (_value(t, "math", "pass@k", 2)["n_prompts"], _value(t, "math", "pass@k", 4)["n_prompts"]) == (2, 1)
    assert _value(t, "math", "pass@k", 2)["mean"] == pytest.approx((1 + 1 / 2) / 2)  # b: 1 - C(3,2)/C(4,2)
    assert _value(t, "math", "pass@k", 4)["mean"] == 1.0 and _value(t, "math", "pass@k", 4)["n_samples"] == 4


def test_maj_at_k_rows_for_math_from_the_extracted_answers(tmp_path):
    rewards = {"math": {"p": [1, 0, 0, 0], "q": [1, 1, 0, 0]}}
    answers = {"p": ["4", "5", "5", None], "q": ["9", "9.0", "1", "2"]}
    paths = [write_benchmark_scores(tmp_path, "base", "math", rewards, answers=answers),
             write_benchmark_scores(tmp_path, "base", "if", {"if": {"i": [1, 0]}}, task="if")]
    t = passk_table(parse_files(paths, tmp_path), **OPTS)
    # p: 4 against 5 twice -> wrong at k=4; q: the two spellings of 9 against 1 and 2 -> right
    assert _value(t, "math", "maj@k", 4)["mean"] == pytest.approx(0.5)
    assert _value(t, "math", "maj@k", 1)["mean"] == pytest.approx(_value(t, "math", "pass@k", 1)["mean"])
    assert "maj@k" not in set(t[t["eval_set"] == "if"]["metric"])  # IF answers are not voted on


def test_the_headline_reads_the_largest_k_every_prompt_reaches(tmp_path):
    ragged = {"math": {"a": [1, 0], "b": [0, 0, 1, 0]}}
    t = passk_table(parse_files([write_benchmark_scores(tmp_path, "base", "math", ragged)], tmp_path), **OPTS)
    head = headline_table(t).iloc[0]
    assert (head["k_max"], head["n_prompts"]) == (2, 2)
    assert head["best@kmax"] == pytest.approx((1 + 1 / 2) / 2)
