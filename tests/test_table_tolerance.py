"""The audit's cell comparison (review/recompute.py): a recomputed table may round a boundary value the other way
in the last decimal it shows, and nothing more."""

from __future__ import annotations

from rlvr_support.review.recompute import same_value, text_differences


def test_one_unit_of_the_last_shown_decimal_is_a_rounding_not_an_edit():
    # the job wrote 0.09375 as 0.0938, an audit that summed in wider vectors got 0.09374999... -> 0.0937
    assert same_value("0.0938", "0.0937") and same_value("-0.0613", "-0.0612") and same_value("+0.094", "+0.093")
    assert same_value("0.093750", "0.093749")  # six decimals: inside ABS_TOL as before
    assert not same_value("0.0938", "0.0936")  # two units: an edit
    assert not same_value("0.093750", "0.093740")
    assert not same_value("1", "2") and not same_value("1e-4", "3e-4")  # integers and exponents: no decimals
    assert not same_value("0.0938", "nan") and same_value("nan", "nan")


def test_a_markdown_table_rounded_the_other_way_matches_and_an_edited_one_does_not(tmp_path):
    row = "| math-if~distill | joint | (0.5-0.75] | 0.4896 | {} | 1.0000 |"
    table, again = tmp_path / "table.md", tmp_path / "again.md"
    table.write_text(row.format("0.0938") + "\n")
    again.write_text(row.format("0.0937") + "\n")
    assert text_differences(table, again) == (0, [])
    table.write_text(row.format("0.0948") + "\n")
    n, shown = text_differences(table, again)
    assert n == 1 and "0.0948" in shown[0]
