"""The difficulty-bin table (analysis/difficulty_table.py): bins by the base's pass rate, hand-computed
values per bin, one k reached by every checkpoint, each prompt's own n."""

from __future__ import annotations

import numpy as np
import pytest

from rlvr_support.analysis.difficulty_table import BINS, bin_of, difficulty_table
from rlvr_support.analysis.runs import parse_files
from benchmark_scores import write_benchmark_scores

OPTS = dict(n_boot=50, ci=0.9, seed=0)


def test_pass_rates_fall_in_their_bins():
    rates = np.array([0.0, 0.1, 0.25, 0.3, 0.5, 0.75, 0.8, 1.0])
    assert [BINS[i][0] for i in bin_of(rates)] == ["0", "(0-0.25]", "(0-0.25]", "(0.25-0.5]", "(0.25-0.5]",
                                                    "(0.5-0.75]", "(0.75-1)", "1"]


def test_rows_per_bin_hold_each_checkpoints_values_on_the_bins_prompts(tmp_path):
    base = {"math": {"z": [0, 0, 0, 0], "h": [1, 0, 0, 0], "e": [1, 1, 1, 1], "m": [1, 1, 0, 0]}}
    rl = {"math": {"z": [0, 0, 0, 0], "h": [1, 1, 1, 0], "e": [1, 1, 1, 0], "m": [1, 1, 1, 1, 0, 0, 0, 0]}}
    paths = [write_benchmark_scores(tmp_path, "base", "math", base),
             write_benchmark_scores(tmp_path, "math/seed0", "math", rl)]
    t = difficulty_table(parse_files(paths, tmp_path), **OPTS)
    rows = {(r["chain"], r["bin"]): r for _, r in t.iterrows()}
    assert set(t["bin"]) == {"0", "(0-0.25]", "(0.25-0.5]", "1"}  # empty bins have no rows
    assert set(t["k"]) == {4}  # the smallest n of any prompt of any checkpoint: 4
    assert rows[("math", "(0-0.25]")]["pass@1"] == pytest.approx(3 / 4)  # h
    r = rows[("math", "(0.25-0.5]")]
    assert r["pass@1"] == pytest.approx(0.5) and r["pass@1_vs_base"] == pytest.approx(0.0)
    assert r["pass@k"] == pytest.approx(1 - 1 / 70)  # m at n = 8: 1 - C(4,4)/C(8,4)
    e = rows[("math", "1")]
    assert (e["pass@1"], e["pass@1_vs_base"], e["pass@k"]) == pytest.approx((3 / 4, -1 / 4, 1.0))
    assert (rows[("base", "0")]["n_prompts"], rows[("math", "0")]["n_prompts"]) == (1, 1)


def test_a_checkpoint_without_a_base_prompt_is_named(tmp_path):
    paths = [write_benchmark_scores(tmp_path, "base", "math", {"math": {"a": [1, 0], "b": [0, 0]}}),
             write_benchmark_scores(tmp_path, "math/seed0", "math", {"math": {"a": [1, 1]}})]
    with pytest.raises(ValueError, match="math/math \\[math\\]: no samples of the base's prompts b"):
        difficulty_table(parse_files(paths, tmp_path), **OPTS)
