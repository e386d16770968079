import numpy as np
import pytest

from rlvr_support.analysis.runs import parse_files, relation
from rlvr_support.analysis.support_table import _ratios_from_counts, support_tables
from rlvr_support.metrics.support import support_epsilon, support_summary
from support_helpers import write_scores


def test_vectorised_ratios_match_support_summary():
    cats = ["preservation"] * 5 + ["shrinkage"] * 3 + ["expansion"] * 1 + ["out_of_support"] * 2
    s = support_summary(cats)
    r = _ratios_from_counts(np.array([5.0, 3.0, 1.0, 2.0]))
    assert r == pytest.approx([s["SRR"], s["NDR"], s["SDS"], s["NSCR"]])
    assert np.isnan(_ratios_from_counts(np.array([0.0, 0.0, 0.0, 4.0]))[:3]).all()


def test_relation_labels_use_the_last_stage():
    assert relation("math", "math") == "same-task"
    assert relation("math", "if") == "cross-task"
    assert relation("math-if", "if") == "same-task"
    assert relation("math-if", "math") == "cross-task"
    assert relation("math-if~kl", "if") == "same-task"


def test_support_categories_hand_example(tmp_path):
    # p0 both solve (P), p1 only base (S), p2 only RL (E), p3 neither (O), p4 only base (S)
    base = {"p0": [1, 0], "p1": [0, 1], "p2": [0, 0], "p3": [0, 0], "p4": [1, 1]}
    rl = {"p0": [1, 1], "p1": [0, 0], "p2": [0, 1], "p3": [0, 0], "p4": [0, 0]}
    paths = [write_scores(tmp_path, "base", "math", base), write_scores(tmp_path, "math/seed0", "math", rl)]
    summary, per_prompt = support_tables(parse_files(paths, tmp_path), delta=0.05, n_boot=200, ci=0.95, seed=0)
    row = summary.iloc[0]
    assert (row["P"], row["S"], row["E"], row["O"]) == (1, 2, 1, 1)
    assert row["SRR"] == pytest.approx(1 / 3) and row["NDR"] == pytest.approx(1 / 2)
    assert row["NSCR"] == pytest.approx((1 - 2) / 4)
    assert row["k"] == 2 and row["epsilon"] == pytest.approx(support_epsilon(2, 0.05))
    assert row["relation"] == "same-task"
    assert row["SRR_lo"] <= row["SRR"] <= row["SRR_hi"]
    assert list(per_prompt["category"]) == ["preservation", "shrinkage", "expansion", "out_of_support", "shrinkage"]


def test_two_seeds_average_counts_and_missing_base_is_an_error(tmp_path):
    base = {"a": [1], "b": [0]}
    p = [write_scores(tmp_path, "base", "math", base),
         write_scores(tmp_path, "if/seed0", "math", {"a": [1], "b": [1]}),
         write_scores(tmp_path, "if/seed1", "math", {"a": [0], "b": [0]})]
    summary, _ = support_tables(parse_files(p, tmp_path), delta=0.1, n_boot=50, ci=0.9, seed=0)
    r = summary.iloc[0]
    assert (r["P"], r["S"], r["E"], r["O"]) == (0.5, 0.5, 0.5, 0.5)
    assert r["n_seeds"] == 2 and r["relation"] == "cross-task"
    with pytest.raises(ValueError, match="base"):
        support_tables(parse_files(p[1:], tmp_path), delta=0.1, n_boot=10, ci=0.9, seed=0)


def test_support_is_per_benchmark_at_its_own_k(tmp_path):
    from benchmark_scores import write_benchmark_scores

    # gsm8k at n = 2: g0 P, g1 S; math500 at n = 4: m0 E, m1 O, m2 P
    base = {"gsm8k": {"g0": [1, 0], "g1": [0, 1]}, "math500": {"m0": [0] * 4, "m1": [0] * 4, "m2": [0, 0, 0, 1]}}
    rl = {"gsm8k": {"g0": [0, 1], "g1": [0, 0]}, "math500": {"m0": [1, 0, 0, 0], "m1": [0] * 4, "m2": [1] * 4}}
    paths = [write_benchmark_scores(tmp_path, "base", "math", base),
             write_benchmark_scores(tmp_path, "math/seed0", "math", rl)]
    summary, per_prompt = support_tables(parse_files(paths, tmp_path), delta=0.05, n_boot=50, ci=0.9, seed=0)
    assert list(summary.columns[:3]) == ["chain", "eval_set", "benchmark"]
    rows = summary.set_index("benchmark")
    assert list(rows.index) == ["gsm8k", "math500"]  # no pooled row
    assert (rows.loc["gsm8k", "P"], rows.loc["gsm8k", "S"], rows.loc["gsm8k", "E"]) == (1, 1, 0)
    assert (rows.loc["math500", "P"], rows.loc["math500", "E"], rows.loc["math500", "O"]) == (1, 1, 1)
    assert rows["k"].to_dict() == {"gsm8k": 2, "math500": 4}
    assert rows.loc["math500", "epsilon"] == pytest.approx(support_epsilon(4, 0.05))
    assert rows.loc["gsm8k", "SRR"] == pytest.approx(1 / 2) and rows.loc["math500", "SRR"] == pytest.approx(1.0)
    assert list(per_prompt.columns[:4]) == ["chain", "seed", "eval_set", "benchmark"]
    cats = dict(zip(per_prompt["prompt_id"], zip(per_prompt["benchmark"], per_prompt["category"])))
    assert cats == {"g0": ("gsm8k", "preservation"), "g1": ("gsm8k", "shrinkage"), "m0": ("math500", "expansion"),
                    "m1": ("math500", "out_of_support"), "m2": ("math500", "preservation")}


def test_a_file_without_the_benchmark_column_is_one_benchmark(tmp_path):
    paths = [write_scores(tmp_path, "base", "if", {"a": [1], "b": [0]}, task="if"),
             write_scores(tmp_path, "math/seed0", "if", {"a": [0], "b": [0]}, task="if")]
    summary, per_prompt = support_tables(parse_files(paths, tmp_path), delta=0.1, n_boot=10, ci=0.9, seed=0)
    assert list(summary["benchmark"]) == ["if"] and set(per_prompt["benchmark"]) == {"if"}


def test_prompts_of_different_n_are_judged_at_their_own_budget(tmp_path):
    # imported samples: p0 has 4 samples on both sides, p1 2 in the base and 3 in the checkpoint.
    # p0's base success is its 4th sample, so it is in the base's support at budget 4 (P), not at 2;
    # p1 is judged at budget 2: the checkpoint's 3rd sample, its only success, is outside it (O)
    base = {"p0": [0, 0, 0, 1], "p1": [0, 0]}
    rl = {"p0": [1, 0, 0, 0], "p1": [0, 0, 1]}
    paths = [write_scores(tmp_path, "base", "math", base), write_scores(tmp_path, "math/seed0", "math", rl)]
    summary, per_prompt = support_tables(parse_files(paths, tmp_path), delta=0.05, n_boot=20, ci=0.9, seed=0)
    assert dict(zip(per_prompt["prompt_id"], per_prompt["category"])) == {"p0": "preservation", "p1": "out_of_support"}
    row = summary.iloc[0]
    assert row["k"] == 2 and row["epsilon"] == pytest.approx(support_epsilon(2, 0.05))


def test_a_checkpoint_compared_with_another_than_the_base(tmp_path):
    # an imported RL label measured against the imported SFT label it was trained from (`base:`)
    sft = {"p0": [1, 0], "p1": [0, 0], "p2": [1, 1]}
    rl = {"p0": [1, 1], "p1": [0, 1], "p2": [0, 0]}
    base = {"p0": [0, 0], "p1": [0, 0], "p2": [0, 0]}
    paths = [write_scores(tmp_path, "base", "math", base), write_scores(tmp_path, "sft", "math", sft),
             write_scores(tmp_path, "rl", "math", rl)]
    summary, per_prompt = support_tables(parse_files(paths, tmp_path), delta=0.05, n_boot=20, ci=0.9, seed=0,
                                         bases={"rl": "sft"})
    rows = summary.set_index("chain")
    assert rows.loc["rl", "base"] == "sft" and rows.loc["sft", "base"] == "base"
    assert (rows.loc["rl", "P"], rows.loc["rl", "S"], rows.loc["rl", "E"]) == (1, 1, 1)  # against the base: E = 2
    rl_cats = per_prompt[per_prompt["chain"] == "rl"].set_index("prompt_id")["category"].to_dict()
    assert rl_cats == {"p0": "preservation", "p1": "expansion", "p2": "shrinkage"}
