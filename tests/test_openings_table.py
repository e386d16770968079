import pytest

from rlvr_support.analysis.openings_table import opening_style, openings_tables
from rlvr_support.analysis.runs import parse_files
from support_helpers import write_samples


def test_opening_style_reads_the_first_word():
    assert opening_style("step : 4 + 5 = 9 . answer : 9") == "step"
    assert opening_style('" ANSWER : 9 "') == "answer"
    assert opening_style("the sea is calm") == "other"
    assert opening_style("") == "other"


def test_rank_shift_in_base_mass_and_styles(tmp_path):
    root = tmp_path
    base = write_samples(root, "base", "math", {"a": [[1, 2], [1, 2], [3, 4]], "b": [[1, 2], [3, 4], [3, 4]]},
                         texts={"a": ["step : x", "step : y", "answer : 1"], "b": ["step : z", "answer : 2", "answer : 3"]})
    rl = write_samples(root, "if/seed0", "math", {"a": [[3, 4], [3, 4], [5, 6]], "b": [[3, 4], [3, 4], [3, 4]]},
                       texts={"a": ["answer : 1", "answer : 1", "so : 1"], "b": ["answer : 2"] * 3})
    shift, summary, styles = openings_tables(parse_files([base, rl], root), m=2, top=2, n_boot=100, ci=0.95, seed=0)
    s = shift.set_index("opening")
    # base: "1 2" and "3 4" tie at 3 samples each; the tie goes to the smaller string
    assert s.loc["3 4", "rl_rank"] == 1 and s.loc["3 4", "base_rank"] == 2 and s.loc["3 4", "rank_shift"] == 1
    assert s.loc["3 4", "rl_prob"] == pytest.approx(5 / 6) and s.loc["3 4", "base_prob"] == pytest.approx(0.5)
    assert not s.loc["5 6", "in_base_support"]
    row = summary[summary["chain"] == "if"].iloc[0]
    assert row["in_base_mass"] == pytest.approx((2 / 3 + 1) / 2)
    assert row["top_in_base_support"]
    d = styles[(styles["chain"] == "if") & (styles["style"] == "answer")].iloc[0]
    assert d["share"] == pytest.approx((2 / 3 + 1) / 2)
    assert d["diff"] == pytest.approx((2 / 3 + 1) / 2 - (1 / 3 + 2 / 3) / 2)
