import numpy as np
import pytest

from rlvr_support.analysis.polarisation import polarisation_tables
from rlvr_support.analysis.runs import parse_files
from rlvr_support.metrics.polarisation import BUCKETS, moves_to_extremes, success_bucket
from support_helpers import write_scores


def test_buckets_by_hand():
    assert list(success_bucket(np.arange(5), 4)) == [0, 1, 1, 2, 3]
    assert list(success_bucket(np.arange(6), 5)) == [0, 1, 1, 2, 2, 3]
    assert list(success_bucket([0, 1], 1)) == [0, 3]
    z, a = moves_to_extremes([0, 2, 4, 3, 1], [0, 0, 4, 4, 2], 4)
    assert list(z) == [0, 1, 0, 0, 0] and list(a) == [0, 0, 0, 1, 0]
    with pytest.raises(ValueError):
        success_bucket([5], 4)


def test_polarisation_tables_count_moves_transitions_and_histogram(tmp_path):
    base = {"a": [0, 0], "b": [1, 0], "c": [1, 1], "d": [1, 0]}
    rl = {"a": [0, 0], "b": [0, 0], "c": [1, 1], "d": [1, 1]}
    paths = [write_scores(tmp_path, "base", "if", base, task="if"),
             write_scores(tmp_path, "math/seed0", "if", rl, task="if")]
    summary, trans, hist = polarisation_tables(parse_files(paths, tmp_path), n_boot=50, ci=0.9, seed=0)
    r = summary.iloc[0]
    assert (r["base_zero"], r["ckpt_zero"], r["base_all"], r["ckpt_all"]) == (1, 2, 1, 2)
    assert (r["delta_zero"], r["delta_all"], r["to_zero"], r["to_all"]) == (1, 1, 1, 1)
    assert r["delta_zero_lo"] <= r["delta_zero"] <= r["delta_zero_hi"]
    cell = trans.set_index(["base_bucket", "ckpt_bucket"])["prompts"]
    assert len(cell) == 16 and cell.sum() == 4
    assert cell[("(0,n/2]", "0")] == 1 and cell[("(0,n/2]", "n")] == 1 and cell[("0", "0")] == 1
    assert cell[("n", "n")] == 1 and set(trans["base_bucket"]) == set(BUCKETS)
    h = hist.set_index(["chain", "successes"])["prompts"]
    assert list(h["base"]) == [1, 2, 1] and list(h["math"]) == [2, 0, 2]


def test_polarisation_figure_has_a_facet_per_benchmark_and_a_row_per_checkpoint(drawn):
    import pandas as pd

    from rlvr_support.figures.polarisation_hist import _columns, plot_polarisation

    rows = [{"chain": c, "eval_set": "if", "benchmark": b, "n": n, "successes": k, "prompts": 1.0, "share": 1 / (n + 1)}
            for b, n in (("ifeval", 4), ("ifbench", 64)) for c in ["base"] + [f"math/{i}" for i in range(11)]
            for k in range(n + 1)]
    plot_polarisation(pd.DataFrame(rows), "if", "unused.png")
    heat = [ax for ax in drawn[0].axes if ax.get_title()]
    assert [ax.get_title() for ax in heat] == ["ifeval", "ifbench"]
    assert [t.get_text() for t in heat[0].get_yticklabels()][0] == "base" and len(heat[0].get_yticklabels()) == 12
    labels, col = _columns(64)
    assert labels[0] == "0" and labels[-1] == "64" and len(labels) == 12  # 0 and n stay their own columns
    assert col[0] == 0 and col[64] == 11 and set(col[1:64]) == set(range(1, 11))
    with pytest.raises(ValueError, match="eval set"):
        plot_polarisation(pd.DataFrame(rows), "math", "unused.png")
