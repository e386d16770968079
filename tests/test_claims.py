import pandas as pd
import pytest

from rlvr_support.analysis.claims import COLUMNS, claims_markdown, claims_table
from rlvr_support.analysis.runs import parse_files
from support_helpers import write_scores

SOURCES = {"passk": "passk.csv", "support": "support.csv", "entropy": "entropy.csv", "js": "js.csv",
           "openings": "styles.csv", "perplexity": "ppl.csv", "intervention": {}}


def test_pass1_claims_follow_the_data(tmp_path):
    # 20 prompts, n = 4: base solves one sample of the first 10 prompts; `math` solves all 4 of them
    # (pass@1 up) and nothing else (best@4 unchanged): pass@1 agrees, best@kmax inconclusive.
    base = {f"p{i:02d}": ([1, 0, 0, 0] if i < 10 else [0, 0, 0, 0]) for i in range(20)}
    math = {f"p{i:02d}": ([1, 1, 1, 1] if i < 10 else [0, 0, 0, 0]) for i in range(20)}
    worse = {f"p{i:02d}": [0, 0, 0, 0] for i in range(20)}
    paths = [write_scores(tmp_path, "base", "math", base), write_scores(tmp_path, "math/seed0", "math", math),
             write_scores(tmp_path, "base", "if", base, task="if"), write_scores(tmp_path, "math/seed0", "if", worse, task="if")]
    t = claims_table(parse_files(paths, tmp_path), support_per_prompt=None, entropy=None, js_share=None, styles=None,
                     perplexity=None, decomposition={}, sources=SOURCES, m=3, n_boot=200, ci=0.95, seed=0)
    assert list(t.columns) == COLUMNS
    r = t.set_index("claim")
    assert r.loc["Math-RLVR raises pass@1 on the trained task", "effect"] == pytest.approx(0.75 * 0.5)
    assert r.loc["Math-RLVR raises pass@1 on the trained task", "verdict"] == "agree"
    assert r.loc["Math-RLVR lowers best@kmax on the trained task (sharpening)", "verdict"] == "inconclusive"
    # on IF the checkpoint lost every success: pass@1 fell (disagree), best@4 fell (agree)
    assert r.loc["Math-RLVR raises IF pass@1", "verdict"] == "disagree"
    assert r.loc["Math-RLVR lowers IF best@kmax", "verdict"] == "agree"
    assert "IF-RLVR lowers math best@kmax (searchability)" not in r.index  # no `if` chain in this study
    assert claims_markdown(t).count("\n") == len(t) + 2


def test_table_claims_are_read_from_the_analysis_tables(tmp_path):
    paths = [write_scores(tmp_path, "base", "math", {"a": [1, 0]}), write_scores(tmp_path, "math/seed0", "math", {"a": [1, 1]})]
    entropy = pd.DataFrame([{"chain": "math", "eval_set": "math", "metric": "answer_entropy", "n_seeds": 1,
                             "diff": -0.4, "diff_lo": -0.6, "diff_hi": -0.1},
                            {"chain": "math", "eval_set": "math", "metric": "token_entropy", "n_seeds": 1,
                             "diff": 0.1, "diff_lo": -0.1, "diff_hi": 0.3}])
    support = pd.DataFrame({"chain": "math", "seed": 0, "eval_set": "math", "prompt_id": ["a", "b", "c"],
                            "category": ["shrinkage", "shrinkage", "preservation"]})
    t = claims_table(parse_files(paths, tmp_path), support_per_prompt=support, entropy=entropy, js_share=None,
                     styles=None, perplexity=None, decomposition={}, sources=SOURCES, m=3, n_boot=100, ci=0.95, seed=0)
    r = t.set_index("claim")
    assert r.loc["Math-RLVR: answer-level entropy falls", "verdict"] == "agree"
    assert r.loc["Math-RLVR: token-level entropy rises", "verdict"] == "inconclusive"
    assert r.loc["Math-RLVR: empirical support shrinkage exceeds expansion", "effect"] == pytest.approx(2 / 3)
    assert r.loc["Math-RLVR: empirical support shrinkage exceeds expansion", "source"] == "support.csv"
