import pytest

from rlvr_support.analysis.opening_modes import opening_modes_table
from rlvr_support.analysis.runs import parse_files
from rlvr_support.config.defaults import ANALYSIS_DEFAULTS
from rlvr_support.metrics.opening_modes import opening_modes
from support_helpers import write_samples

DEFAULT = ANALYSIS_DEFAULTS["opening_modes"]


@pytest.mark.parametrize("text,mode", [
    ("Let's think step by step.", "DRI"), ("  **Step 1:** add", "DRI"), ("<think>\nhmm", "DRI"),
    ("First, note that", "DRI"), ("To solve this", "DRI"), ("We need to find", "DRI"),
    ("step : 3 + 4 = 7 ; 7 * 2 = 14 . answer : 14", "DRI"),
    ("The answer is 5.", "DAI"), ("$\\boxed{3}$", "DAI"), ("Answer: 7", "DAI"), ("42", "DAI"), ("-3.5 is it", "DAI"),
    ("answer : 14", "DAI"), ('"answer : 14"', "DAI"),
    ("so : 7 * 2 = 14 . answer : 14", "other"), ("1. Add the numbers", "other"), ("", "other"), (None, "other"),
    ("Firstly", "other"), ("Let's see: the answer is 4", "DRI"),
])
def test_default_rules_classify_openings(text, mode):
    assert opening_modes([text], DEFAULT)[0] == mode


def test_rules_are_configurable_and_bad_patterns_are_named():
    assert list(opening_modes(["Okay so", "Final: 3"], {"dri": ["okay\\b"], "dai": ["final:"]})) == ["DRI", "DAI"]
    assert opening_modes(["Let's"], {"dai": ["let"]})[0] == "DAI"
    with pytest.raises(ValueError, match="analysis.opening_modes.dri"):
        opening_modes(["x"], {"dri": ["("]})


def test_modes_table_shares_and_paired_difference(tmp_path):
    texts_b = {"p": ["step : 1", "answer : 1"], "q": ["step : 2", "step : 3"]}
    texts_r = {"p": ["answer : 1", "answer : 1"], "q": ["answer : 2", "so : 3"]}
    ids = {k: [[1], [2]] for k in texts_b}
    paths = [write_samples(tmp_path, "base", "math", ids, texts_b), write_samples(tmp_path, "if/seed0", "math", ids, texts_r)]
    t = opening_modes_table(parse_files(paths, tmp_path), patterns=DEFAULT, n_boot=50, ci=0.9, seed=0)
    rows = t[(t["chain"] == "if") & (t["seed"] == "all")].set_index("mode")
    assert rows.loc["DAI", "share"] == pytest.approx((1 + 0.5) / 2)
    assert rows.loc["DRI", "share"] == pytest.approx(0.0) and rows.loc["other", "share"] == pytest.approx(0.25)
    assert rows.loc["DAI", "diff"] == pytest.approx(0.75 - 0.25)
    assert rows.loc["DRI", "diff"] == pytest.approx(-0.75)
    assert set(t[t["chain"] == "if"]["seed"]) == {"all", "0"} and set(t[t["chain"] == "base"]["seed"]) == {"all"}
