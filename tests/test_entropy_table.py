import math

import numpy as np
import pytest

from rlvr_support.analysis.entropy_table import (
    entropy_markdown,
    entropy_table,
    normalise_text,
    per_prompt_entropies,
    token_entropy_method,
)
from rlvr_support.analysis.runs import parse_files
from rlvr_support.figures.entropy_bars import plot_entropy
from benchmark_samples import sample, write_benchmark_files
from support_helpers import write_samples, write_scores


def _files(tmp_path, ckpt, answers, entropies, task="math", texts=None):
    ids = {p: [[1, 2]] * len(a) for p, a in answers.items()}
    s = write_samples(tmp_path / "samples", ckpt, "math", ids, texts=texts, entropies=entropies)
    c = write_scores(tmp_path / "scores", ckpt, "math", {p: [0.0] * len(a) for p, a in answers.items()},
                     task=task, answers=answers)
    return s, c


def test_per_prompt_values_hand_computed(tmp_path):
    answers = {"a": ["3", "3", "4", None], "b": ["7", "7", "7", "7"]}
    ent = {"a": [[1.0, 3.0], [2.0], [0.0, 0.0, 0.0], [4.0]], "b": [[1.0]] * 4}
    s, c = _files(tmp_path, "base", answers, ent)
    df = per_prompt_entropies(s, c)
    h_a = -(0.5 * math.log(0.5) + 2 * 0.25 * math.log(0.25))
    assert df.set_index("prompt_id").loc["a", "answer_entropy"] == pytest.approx(h_a)
    assert df.set_index("prompt_id").loc["b", "answer_entropy"] == 0.0
    assert df.set_index("prompt_id").loc["a", "token_entropy"] == pytest.approx((2.0 + 2.0 + 0.0 + 4.0) / 4)
    assert df["length"].tolist() == [3.0, 3.0]


def test_if_answers_are_normalised_texts(tmp_path):
    assert normalise_text("  Hello   WORLD ") == "hello world"
    answers = {"a": [None, None]}
    s, c = _files(tmp_path, "base", answers, {"a": [[1.0], [1.0]]}, task="if", texts={"a": ["Hi  there", "hi there"]})
    assert per_prompt_entropies(s, c)["answer_entropy"].iloc[0] == 0.0


def test_table_paired_difference(tmp_path):
    b = _files(tmp_path, "base", {"a": ["1", "2"], "b": ["1", "2"]}, {"a": [[1.0], [1.0]], "b": [[1.0], [1.0]]})
    m = _files(tmp_path, "math/seed0", {"a": ["1", "1"], "b": ["1", "2"]}, {"a": [[2.0], [2.0]], "b": [[1.0], [1.0]]})
    t = entropy_table(parse_files([b[0], m[0]], tmp_path / "samples"), parse_files([b[1], m[1]], tmp_path / "scores"),
                      n_boot=100, ci=0.95, seed=0)
    r = t[(t["chain"] == "math") & (t["metric"] == "answer_entropy")].iloc[0]
    assert r["diff"] == pytest.approx(-math.log(2) / 2)
    r = t[(t["chain"] == "math") & (t["metric"] == "token_entropy")].iloc[0]
    assert r["diff"] == pytest.approx(0.5)
    assert r["diff_lo"] <= r["diff"] <= r["diff_hi"]


# ---- benchmarks, token arrays and the entropy method (files written by benchmark_samples)

def _two_benchmarks(tmp_path, ckpt, topk=0, shift=0.0):
    """gsm8k: prompt g with answers 3 3 4 (the last without token arrays, its stale entropies 9.0
    kept in the file); math500: prompt m with answers 1 2."""
    rows = [sample("g", "gsm8k", [1, 2], entropies=[1.0 + shift] * 3, answer="3", topk=topk),
            sample("g", "gsm8k", [1, 2, 3], entropies=[3.0 + shift] * 4, answer="3", topk=topk),
            sample("g", "gsm8k", [1, 2, 3, 4, 5], entropies=[9.0] * 6, answer="4", arrays=False, lists_kept=True,
                   topk=topk),
            sample("m", "math500", [7], entropies=[0.5, 0.5], answer="1", topk=topk),
            sample("m", "math500", [7], entropies=[0.5, 0.5], answer="2", topk=topk)]
    return write_benchmark_files(tmp_path, ckpt, "math", rows)


def test_two_benchmarks_give_separate_rows_and_token_entropy_reads_only_token_arrays(tmp_path):
    s, c = _two_benchmarks(tmp_path, "base")
    per = per_prompt_entropies(s, c).set_index("prompt_id")
    assert per.loc["g", "benchmark"] == "gsm8k" and per.loc["m", "benchmark"] == "math500"
    # answers 3 3 4 over all three samples; token entropy over the two with arrays; length over all
    assert per.loc["g", "answer_entropy"] == pytest.approx(-(2 / 3 * math.log(2 / 3) + 1 / 3 * math.log(1 / 3)))
    assert per.loc["g", "token_entropy"] == pytest.approx(2.0)
    assert per.loc["g", "length"] == pytest.approx((3 + 4 + 6) / 3)
    m = _two_benchmarks(tmp_path, "math/seed0", shift=1.0)
    t = entropy_table(parse_files([s, m[0]], tmp_path / "samples"), parse_files([c, m[1]], tmp_path / "scores"),
                      n_boot=20, ci=0.9, seed=0)
    assert list(t.columns[:3]) == ["chain", "eval_set", "benchmark"]
    assert set(zip(t["chain"], t["benchmark"])) == {(ch, b) for ch in ("base", "math") for b in ("gsm8k", "math500")}
    r = t[(t["chain"] == "math") & (t["benchmark"] == "gsm8k") & (t["metric"] == "token_entropy")].iloc[0]
    assert r["mean"] == pytest.approx(3.0) and r["diff"] == pytest.approx(1.0) and r["n_prompts"] == 1
    r = t[(t["chain"] == "math") & (t["benchmark"] == "math500") & (t["metric"] == "answer_entropy")].iloc[0]
    assert r["mean"] == pytest.approx(math.log(2)) and r["diff"] == 0.0


def test_entropy_method_column_and_markdown_note(tmp_path):
    assert token_entropy_method([0, 0]) == "exact" and token_entropy_method([-1, 0]) == "exact"
    assert token_entropy_method([20]) == "top-20 lower bound (vLLM)"
    b = _two_benchmarks(tmp_path, "base", topk=20)
    t = entropy_table(parse_files([b[0]], tmp_path / "samples"), parse_files([b[1]], tmp_path / "scores"),
                      n_boot=10, ci=0.9, seed=0)
    assert set(t["token_entropy_method"]) == {"top-20 lower bound (vLLM)"}
    note = entropy_markdown(t).rstrip().splitlines()[-1]
    assert note.startswith("Note: token_entropy is top-20 lower bound (vLLM) in every row") and "understates" in note


def test_files_without_the_new_columns_are_one_exact_benchmark(tmp_path):
    b = _files(tmp_path, "base", {"a": ["1", "2"]}, {"a": [[1.0], [3.0]]})
    t = entropy_table(parse_files([b[0]], tmp_path / "samples"), parse_files([b[1]], tmp_path / "scores"),
                      n_boot=10, ci=0.9, seed=0)
    assert set(t["benchmark"]) == {"math"} and set(t["token_entropy_method"]) == {"exact"}
    assert t.set_index("metric").loc["token_entropy", "mean"] == pytest.approx(2.0)
    assert "exact in every row" in entropy_markdown(t)


def test_a_benchmark_without_token_arrays_has_answer_entropy_but_no_token_entropy(tmp_path):
    # samples imported from another tool (imports/) may come without token ids: answers, not tokens
    s, c = write_benchmark_files(tmp_path, "base", "math", [
        sample("g", "gsm8k", [1], answer="1"), sample("m", "math500", [1], answer="1", arrays=False)])
    t = per_prompt_entropies(s, c).set_index("benchmark")
    assert np.isnan(t.loc["math500", "token_entropy"]) and not np.isnan(t.loc["gsm8k", "token_entropy"])
    assert not np.isnan(t.loc["math500", "answer_entropy"])


def test_entropy_figure_has_a_column_per_benchmark(tmp_path, drawn):
    b = _two_benchmarks(tmp_path, "base", topk=20)
    t = entropy_table(parse_files([b[0]], tmp_path / "samples"), parse_files([b[1]], tmp_path / "scores"),
                      n_boot=10, ci=0.9, seed=0)
    plot_entropy(t, "unused.png")
    axes = drawn[0].axes
    assert len(axes) == 3 * 2 and [a.get_title() for a in axes[:2]] == ["math: gsm8k", "math: math500"]
    assert any(txt.get_text() == "top-20 lower bound (vLLM)" for txt in axes[2].texts)  # the token-entropy row
