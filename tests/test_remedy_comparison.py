"""Remedy comparison helpers (src/rlvr_support/analysis/remedy_comparison.py)."""

from __future__ import annotations

import numpy as np
import pytest

from rlvr_support.analysis.remedy_comparison import grouped_ratio_ci, split_chain


def test_split_chain():
    assert split_chain("math-if~inverse-success") == (["math", "if"], "inverse-success")
    assert split_chain("if-math") == (["if", "math"], "baseline")


def test_srr_ratio_point_and_ci():
    # base in support on 4 problems, RL keeps 3 of them: SRR = 3/4; a 5th problem is out of base support
    num = [np.array([1, 1, 1, 0, 0.0])]
    den = [np.array([1, 1, 1, 1, 0.0])]
    point, lo, hi = grouped_ratio_ci(num, den, n_boot=500, ci=0.9, seed=0)
    assert point == pytest.approx(0.75)
    assert 0 <= lo <= point <= hi <= 1
    # two seeds: the point is the mean of the per-seed ratios
    point2, _, _ = grouped_ratio_ci(num + [np.ones(5)], den + [np.ones(5)], n_boot=200, ci=0.9, seed=0)
    assert point2 == pytest.approx((0.75 + 1.0) / 2)


def _remedy_files(tmp_path):
    from benchmark_scores import write_benchmark_scores

    # math: gsm8k at n = 2, math500 at n = 4; if: one benchmark, in a file without the column
    files = {"base": ({"gsm8k": {"g0": [1, 0], "g1": [0, 1]}, "math500": {"m0": [0] * 4, "m1": [0] * 4}},
                      {"i0": [0, 0], "i1": [0, 0]}),
             "math/seed0": ({"gsm8k": {"g0": [1, 1], "g1": [1, 0]}, "math500": {"m0": [0, 0, 0, 1], "m1": [0] * 4}},
                            {"i0": [0, 0], "i1": [1, 0]}),
             "math-if/seed0": ({"gsm8k": {"g0": [1, 0], "g1": [0, 0]}, "math500": {"m0": [1] * 4, "m1": [0] * 4}},
                               {"i0": [1, 1], "i1": [1, 0]})}
    paths = []
    for ckpt, (math, ifs) in files.items():
        paths.append(write_benchmark_scores(tmp_path, ckpt, "math", math))
        paths.append(write_benchmark_scores(tmp_path, ckpt, "if", {"if": ifs}, task="if", column=False))
    return paths


def test_comparison_is_per_benchmark_of_the_task_each_metric_is_measured_on(tmp_path):
    from rlvr_support.analysis.remedy_comparison import comparison_markdown, comparison_table, tradeoff_pairs
    from rlvr_support.analysis.runs import parse_files

    t = comparison_table(parse_files(_remedy_files(tmp_path), tmp_path), n_boot=50, ci=0.9, seed=0)
    assert list(t.columns[t.columns.get_loc("eval_set"):][:3]) == ["eval_set", "benchmark", "metric"]
    v = t.set_index(["metric", "benchmark"])["mean"]
    assert set(t.loc[t["metric"].str.startswith("current"), "benchmark"]) == {"if"}
    assert set(t.loc[t["metric"].str.startswith("previous"), "benchmark"]) == {"gsm8k", "math500"}
    assert v[("current_pass@1", "if")] == pytest.approx(3 / 4)
    assert v[("current_gain", "if")] == pytest.approx(3 / 4 - 1 / 4)
    assert v[("previous_pass@1", "gsm8k")] == pytest.approx(1 / 4)
    assert v[("previous_best@k", "gsm8k")] == pytest.approx(1 / 2)        # k = 2 on gsm8k
    assert v[("previous_best@k_loss", "gsm8k")] == pytest.approx(1 - 1 / 2)
    assert v[("previous_best@k_loss", "math500")] == pytest.approx(0.0)  # k = 4 on math500: both 1/2
    assert v[("previous_SRR", "gsm8k")] == pytest.approx(1 / 2)
    assert np.isnan(v[("previous_SRR", "math500")])                      # base solves nothing there
    assert [(bc, bp) for _, bc, bp, _ in tradeoff_pairs(t)] == [("if", "gsm8k"), ("if", "math500")]
    md = comparison_markdown(t)
    assert md.count("\n") == 2 + 2 and "| math-if | baseline | if | math500 |" in md
