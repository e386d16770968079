import pandas as pd
import pytest

from rlvr_support.analysis.claims import COLUMNS, claims_markdown, claims_table
from rlvr_support.analysis.runs import parse_files
from support_helpers import write_scores

SOURCES = {"passk": "passk.csv", "support": "support.csv", "entropy": "entropy.csv", "js": "js.csv",
           "openings": "opening_modes.csv", "perplexity": "ppl.csv", "intervention": {}}


def test_pass1_claims_follow_the_data(tmp_path):
    # 20 prompts, n = 4: base solves one sample of the first 10 prompts; `math` solves all 4 of them
    # (pass@1 up) and nothing else (best@4 unchanged): pass@1 agrees, best@kmax inconclusive.
    base = {f"p{i:02d}": ([1, 0, 0, 0] if i < 10 else [0, 0, 0, 0]) for i in range(20)}
    math = {f"p{i:02d}": ([1, 1, 1, 1] if i < 10 else [0, 0, 0, 0]) for i in range(20)}
    worse = {f"p{i:02d}": [0, 0, 0, 0] for i in range(20)}
    paths = [write_scores(tmp_path, "base", "math", base), write_scores(tmp_path, "math/seed0", "math", math),
             write_scores(tmp_path, "base", "if", base, task="if"), write_scores(tmp_path, "math/seed0", "if", worse, task="if")]
    t = claims_table(parse_files(paths, tmp_path), support_per_prompt=None, entropy=None, js_share=None, modes=None,
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
                     modes=None, perplexity=None, decomposition={}, sources=SOURCES, m=3, n_boot=100, ci=0.95, seed=0)
    r = t.set_index("claim")
    assert r.loc["Math-RLVR: answer-level entropy falls", "verdict"] == "agree"
    assert r.loc["Math-RLVR: token-level entropy rises", "verdict"] == "inconclusive"
    assert r.loc["Math-RLVR: empirical support shrinkage exceeds expansion", "effect"] == pytest.approx(2 / 3)
    assert r.loc["Math-RLVR: empirical support shrinkage exceeds expansion", "source"] == "support.csv"


def test_claims_are_measured_per_benchmark(tmp_path):
    from benchmark_scores import write_benchmark_scores

    # gsm8k (n = 4): `math` gains on every prompt; math500 (n = 2): `math` loses every success
    base = {"gsm8k": {f"g{i}": [1, 0, 0, 0] for i in range(10)}, "math500": {f"m{i}": [1, 1] for i in range(10)}}
    ckpt = {"gsm8k": {f"g{i}": [1, 1, 1, 1] for i in range(10)}, "math500": {f"m{i}": [0, 0] for i in range(10)}}
    paths = [write_benchmark_scores(tmp_path, "base", "math", base),
             write_benchmark_scores(tmp_path, "math/seed0", "math", ckpt)]
    entropy = pd.DataFrame([{"chain": "math", "eval_set": "math", "benchmark": b, "metric": "answer_entropy",
                             "n_seeds": 1, "diff": d, "diff_lo": d - 0.1, "diff_hi": d + 0.1}
                            for b, d in (("gsm8k", -0.5), ("math500", 0.5), ("all", 0.0))])
    support = pd.DataFrame({"chain": "math", "seed": 0, "eval_set": "math", "benchmark": ["gsm8k", "math500", "math500"],
                            "prompt_id": ["g0", "m0", "m1"], "category": ["expansion", "shrinkage", "shrinkage"]})
    t = claims_table(parse_files(paths, tmp_path), support_per_prompt=support, entropy=entropy, js_share=None,
                     modes=None, perplexity=None, decomposition={}, sources=SOURCES, m=3, n_boot=100, ci=0.95, seed=0)
    assert list(t.columns) == COLUMNS and COLUMNS.index("benchmark") == COLUMNS.index("eval_set") + 1
    r = t.set_index(["claim", "benchmark"])
    pass1 = "Math-RLVR raises pass@1 on the trained task"
    assert r.loc[(pass1, "gsm8k"), "effect"] == pytest.approx(1 - 1 / 4)
    assert r.loc[(pass1, "gsm8k"), "verdict"] == "agree"
    assert r.loc[(pass1, "math500"), "effect"] == pytest.approx(-1.0)
    assert r.loc[(pass1, "math500"), "verdict"] == "disagree"
    ent = r.loc["Math-RLVR: answer-level entropy falls"]
    assert ent["verdict"].to_dict() == {"gsm8k": "agree", "math500": "disagree"}  # the pooled row is no claim
    shrink = r.loc["Math-RLVR: empirical support shrinkage exceeds expansion", "effect"]
    assert shrink.to_dict() == {"gsm8k": pytest.approx(-1.0), "math500": pytest.approx(1.0)}
    assert "| math | math | math500 |" in claims_markdown(t)


def test_seed_stability_gives_each_seeds_verdict_and_the_pooled_one(tmp_path):
    from rlvr_support.analysis.claims import seed_stability_markdown, seed_stability_table

    # seed 0 solves every sample of the 10 first prompts (pass@1 up), seed 1 solves nothing (down):
    # each seed alone gives a clear and opposite verdict, which the table must show beside the pooled one
    base = {f"p{i:02d}": ([1, 0, 0, 0] if i < 10 else [0, 0, 0, 0]) for i in range(20)}
    up = {f"p{i:02d}": ([1, 1, 1, 1] if i < 10 else [0, 0, 0, 0]) for i in range(20)}
    down = {f"p{i:02d}": [0, 0, 0, 0] for i in range(20)}
    paths = [write_scores(tmp_path, "base", "math", base), write_scores(tmp_path, "math/seed0", "math", up),
             write_scores(tmp_path, "math/seed1", "math", down)]
    files = parse_files(paths, tmp_path)
    modes = pd.DataFrame([{"chain": "base", "eval_set": "math", "benchmark": "math", "seed": "all", "mode": "DAI",
                            "n_seeds": 1, "diff": 0.0, "diff_lo": 0.0, "diff_hi": 0.0}] +
                          [{"chain": "if", "eval_set": "math", "benchmark": "math", "seed": s, "mode": "DAI",
                            "n_seeds": n, "diff": d, "diff_lo": lo, "diff_hi": hi}
                           for s, n, d, lo, hi in (("all", 2, 0.1, -0.1, 0.3), ("0", 1, 0.3, 0.1, 0.5),
                                                   ("1", 1, -0.1, -0.3, 0.1))])
    opts = dict(sources=SOURCES, m=3, n_boot=200, ci=0.95, seed=0)
    pooled = claims_table(files, support_per_prompt=None, entropy=None, js_share=None, modes=modes, perplexity=None,
                          decomposition={}, **opts)
    st = seed_stability_table(files, pooled, support_per_prompt=None, modes=modes, **opts).set_index("claim")
    row = st.loc["Math-RLVR raises pass@1 on the trained task"]
    assert (row["seed0_verdict"], row["seed1_verdict"]) == ("agree", "disagree")
    assert row["seed0_effect"] == pytest.approx(0.375) and row["seed1_effect"] == pytest.approx(-0.125)
    assert row["per_seed"] and not row["stable"] and row["n_seeds"] == 2
    assert row["pooled_verdict"] == pooled.set_index("claim").loc[row.name, "verdict"]
    # an opening claim reads the per-seed rows of the opening-mode table (its chain `if` has no scores here)
    s = st.loc["IF-RLVR moves math openings toward direct answers"]
    assert (s["pooled_verdict"], s["seed0_verdict"], s["seed1_verdict"]) == ("inconclusive", "agree", "inconclusive")
    md = seed_stability_markdown(st.reset_index())
    assert "seed0" in md and "seed1" in md and md.count("\n") == len(st) + 2
