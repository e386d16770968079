import pandas as pd
import pytest

from rlvr_support.analysis.claims import registry
from rlvr_support.analysis.claims.claim import Claim, Effect, by_benchmark
from rlvr_support.analysis.claims.study import Where
from rlvr_support.analysis.claims.table import claims_table
from rlvr_support.analysis.papers import PAPERS, SHARPENING_COLLAPSE
from rlvr_support.analysis.runs import parse_files
from support_helpers import write_scores


def _toy_rows(table, at, study):
    for bench, r in by_benchmark(table, at.eval_set, {"chain": at.chain}).items():
        r = r.iloc[0]
        yield Effect(bench, r["diff"], r["diff_lo"], r["diff_hi"], r["n_seeds"])


# a claim only this test knows, on a table no other claim reads: its declaration is all it takes
TOY = Claim("Math-RLVR lowers the toy measure", (SHARPENING_COLLAPSE,), -1, "toy_measure", _toy_rows,
            "toy measure, checkpoint - base (paired)", at=Where("math", "math"))
TOY_TABLE = pd.DataFrame([{"chain": "math", "benchmark": b, "diff": d, "diff_lo": d - 0.1, "diff_hi": d + 0.1,
                           "n_seeds": 3} for b, d in (("gsm8k", -0.3), ("math500", 0.3))])
OPTS = dict(m=3, n_boot=50, ci=0.9, seed=0)


@pytest.fixture
def toy_registered(monkeypatch):
    monkeypatch.setattr(registry, "CLAIMS", [*registry.CLAIMS, TOY])


def test_a_registered_claim_is_measured_with_its_declared_sign_and_paper(toy_registered):
    t = claims_table([], {"toy_measure": TOY_TABLE}, {"toy_measure": "toy.csv"}, **OPTS)
    assert list(t["claim"]) == ["Math-RLVR lowers the toy measure"] * 2
    r = t.set_index("benchmark")
    assert set(t["paper"]) == {PAPERS[SHARPENING_COLLAPSE].short} and set(t["expected_sign"]) == {"-"}
    # the effect falls on gsm8k (the sign the claim expects) and rises on math500
    assert r["verdict"].to_dict() == {"gsm8k": "agree", "math500": "disagree"}
    assert r.loc["gsm8k", "effect"] == pytest.approx(-0.3) and set(t["source"]) == {"toy.csv"}
    assert set(t["chain"]) == set(t["eval_set"]) == {"math"}
    assert registry.parse_tables(["toy_measure=toy.csv"]) == {"toy_measure": "toy.csv"}


def test_the_claims_verb_takes_a_registered_claims_table_by_its_name(toy_registered, tmp_path, monkeypatch):
    from rlvr_support.cli.main import main

    monkeypatch.chdir(tmp_path)
    score = write_scores(tmp_path / "scores", "base", "math", {"a": [1, 0]})
    TOY_TABLE.to_csv("toy.csv", index=False)
    cfg = '{"opening_tokens": 3, "bootstrap": 50, "ci": 0.9, "seed": 0}'
    assert main(["claims", "--scores", str(score), "--scores-root", "scores", "--tables", "toy_measure=toy.csv",
                 "--cfg", cfg, "--out", "claims.csv"]) == 0
    t = pd.read_csv("claims.csv")
    assert list(t["claim"]) == ["Math-RLVR lowers the toy measure"] * 2 and set(t["source"]) == {"toy.csv"}


def test_a_claim_whose_table_is_not_given_is_not_measured(toy_registered, tmp_path):
    rewards = {f"p{i}": [1, 0] for i in range(4)}
    files = parse_files([write_scores(tmp_path, "base", "math", rewards),
                         write_scores(tmp_path, "math/seed0", "math", rewards)], tmp_path)
    t = claims_table(files, {}, {"passk": "passk.csv", "toy_measure": "toy.csv"}, **OPTS)
    assert len(t) and "Math-RLVR lowers the toy measure" not in set(t["claim"])
    # only the claims of the score files remain, the pass@k claims
    assert set(t["source"]) == {"passk.csv"} and "Math-RLVR raises pass@1 on the trained task" in set(t["claim"])
    with_toy = claims_table(files, {"toy_measure": TOY_TABLE}, {"passk": "passk.csv"}, **OPTS)
    assert with_toy["claim"].tolist()[-2:] == ["Math-RLVR lowers the toy measure"] * 2
    assert with_toy["source"].tolist()[-2:] == ["", ""]  # a table not cited: no source cell, still a claim


@pytest.mark.parametrize("item, message", [
    ("js=js_share.csv", r"unknown table 'js': no claim reads or cites it \(the tables: passk, .*js_share"),
    ("decomposition_=x.csv", r"unknown table 'decomposition_'"),
    ("passk", r"expected name=path, got 'passk'"),
    ("=passk.csv", r"expected name=path, got '=passk.csv'"),
    ("passk=", r"expected name=path, got 'passk='"),
])
def test_the_table_pairs_name_a_malformed_pair_or_an_unknown_table(item, message):
    with pytest.raises(ValueError, match=message):
        registry.parse_tables(["support=support.csv", item])


def test_the_table_pairs_take_each_table_once_and_decompositions_by_eval_set():
    pairs = registry.parse_tables(["passk=p.csv", "intervention_decomposition_math=dm.csv", "intervention_decomposition_if=di.csv"])
    assert pairs == {"passk": "p.csv", "intervention_decomposition_math": "dm.csv", "intervention_decomposition_if": "di.csv"}
    assert registry.is_read("intervention_decomposition_math") and not registry.is_read("passk")  # passk is only cited
    with pytest.raises(ValueError, match=r"table 'passk' given twice \(a.csv, b.csv\)"):
        registry.parse_tables(["passk=a.csv", "passk=b.csv"])


def test_the_verb_names_an_unknown_table_in_one_line(tmp_path, monkeypatch, capsys):
    from rlvr_support.cli.main import main

    monkeypatch.chdir(tmp_path)
    score = write_scores(tmp_path / "scores", "base", "math", {"a": [1, 0]})
    assert main(["claims", "--scores", str(score), "--scores-root", "scores", "--tables", "jsshare=js.csv",
                 "--cfg", "{}", "--out", "claims.csv"]) == 1
    assert "error: --tables: unknown table 'jsshare'" in capsys.readouterr().err


def test_a_declaration_names_a_known_paper_and_a_sign():
    with pytest.raises(ValueError, match="'999'"):
        Claim("x", ("999",), +1, "toy_measure", _toy_rows, "m")
    with pytest.raises(ValueError, match="expected sign 0"):
        Claim("x", (SHARPENING_COLLAPSE,), 0, "toy_measure", _toy_rows, "m")
