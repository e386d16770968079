"""The per-benchmark figures: one file per eval set, one facet per benchmark titled with its name
(figures/passk_curves.py, figures/support_bars.py), benchmarks named in the trade-off's labels
(figures/remedy_tradeoff.py)."""

from __future__ import annotations

import pytest

from rlvr_support.analysis.passk_table import passk_table
from rlvr_support.analysis.runs import parse_files
from rlvr_support.analysis.support_table import support_tables
from rlvr_support.figures.passk_curves import plot_passk_curves
from rlvr_support.figures.remedy_tradeoff import plot_remedy_tradeoff
from rlvr_support.figures.support_bars import plot_support_bars
from benchmark_scores import write_benchmark_scores

MATH = {"gsm8k": {"g0": [1, 0, 0, 0], "g1": [0, 0, 1, 1]}, "math500": {"m0": [1, 1], "m1": [0, 1]}}


def _titles(fig) -> list[str]:
    return [ax.get_title() for ax in fig.axes]


@pytest.fixture
def score_files(tmp_path):
    paths = [write_benchmark_scores(tmp_path, "base", "math", MATH),
             write_benchmark_scores(tmp_path, "math/seed0", "math", {b: {p: r[::-1] for p, r in ps.items()}
                                                                     for b, ps in MATH.items()}),
             write_benchmark_scores(tmp_path, "base", "if", {"if": {"i0": [0, 1]}}, task="if", column=False),
             write_benchmark_scores(tmp_path, "math/seed0", "if", {"if": {"i0": [1, 1]}}, task="if", column=False)]
    return parse_files(paths, tmp_path)


def test_passk_figure_has_one_facet_per_benchmark_and_no_pooled_facet(score_files, drawn):
    t = passk_table(score_files, n_boot=20, ci=0.9, seed=0)
    plot_passk_curves(t, "math", "unused.png")
    assert _titles(drawn[0]) == ["gsm8k (2 prompts, n = 4)", "math500 (2 prompts, n = 2)"]
    plot_passk_curves(t.drop(columns="benchmark").query("eval_set == 'if'"), "if", "unused.png")
    assert _titles(drawn[1]) == ["if (1 prompts, n = 2)"]


def test_support_figure_has_one_facet_per_benchmark(score_files, drawn):
    summary, _ = support_tables(score_files, delta=0.05, n_boot=20, ci=0.9, seed=0)
    plot_support_bars(summary, "math", "unused.png")
    assert [t.split(" ")[0] for t in _titles(drawn[0])] == ["gsm8k", "math500"]
    with pytest.raises(ValueError, match="no support rows"):
        plot_support_bars(summary, "joint", "unused.png")


def test_tradeoff_labels_name_the_benchmark_pair(drawn):
    import pandas as pd

    rows = [{"chain": "math-if", "base_chain": "math-if", "variant": "baseline", "current_task": "if",
             "previous_task": "math", "parent": "math", "n_seeds": 1, "eval_set": ev, "benchmark": b, "metric": m,
             "mean": 0.1, "ci_low": 0.0, "ci_high": 0.2, "seed_std": float("nan")}
            for ev, b, m in (("if", "ifeval", "current_gain"), ("math", "gsm8k", "previous_best@k_loss"),
                             ("math", "math500", "previous_best@k_loss"))]
    plot_remedy_tradeoff(pd.DataFrame(rows), "unused.png")
    labels = drawn[0].axes[0].get_legend_handles_labels()[1]
    assert labels == ["math-if · baseline (ifeval / gsm8k)", "math-if · baseline (ifeval / math500)"]
