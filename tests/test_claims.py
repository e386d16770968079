import pandas as pd
import pytest

from rlvr_support.analysis.claims import COLUMNS, claims_markdown, claims_table
from rlvr_support.analysis.runs import parse_files
from support_helpers import write_scores

SOURCES = {"passk": "passk.csv", "support": "support.csv", "entropy": "entropy.csv", "js": "js.csv",
           "openings": "opening_modes.csv", "perplexity": "ppl.csv", "intervention": {}}


SEEDS = ("seed0", "seed1", "seed2")  # a verdict needs >= 3 RL seeds (analysis.resample.MIN_VERDICT_SEEDS)


def _pass1_study(tmp_path, seeds=SEEDS):
    # 20 prompts, n = 4: base solves one sample of the first 10 prompts; `math` solves all 4 of them
    # (pass@1 up) and nothing else (best@4 unchanged), on every seed; on IF it loses every success
    base = {f"p{i:02d}": ([1, 0, 0, 0] if i < 10 else [0, 0, 0, 0]) for i in range(20)}
    math = {f"p{i:02d}": ([1, 1, 1, 1] if i < 10 else [0, 0, 0, 0]) for i in range(20)}
    worse = {f"p{i:02d}": [0, 0, 0, 0] for i in range(20)}
    paths = [write_scores(tmp_path, "base", "math", base), write_scores(tmp_path, "base", "if", base, task="if")]
    for s in seeds:
        paths += [write_scores(tmp_path, f"math/{s}", "math", math),
                  write_scores(tmp_path, f"math/{s}", "if", worse, task="if")]
    return claims_table(parse_files(paths, tmp_path), support_per_prompt=None, entropy=None, js_share=None,
                        modes=None, perplexity=None, decomposition={}, sources=SOURCES, m=3, n_boot=200, ci=0.95,
                        seed=0)


def test_pass1_claims_follow_the_data(tmp_path):
    t = _pass1_study(tmp_path)
    assert list(t.columns) == COLUMNS
    r = t.set_index("claim")
    assert r.loc["Math-RLVR raises pass@1 on the trained task", "effect"] == pytest.approx(0.75 * 0.5)
    assert r.loc["Math-RLVR raises pass@1 on the trained task", "n_seeds"] == 3
    assert r.loc["Math-RLVR raises pass@1 on the trained task", "verdict"] == "agree"
    assert r.loc["Math-RLVR lowers best@kmax on the trained task (sharpening)", "verdict"] == "inconclusive"
    # on IF the checkpoint lost every success: pass@1 fell (disagree), best@4 fell (agree)
    assert r.loc["Math-RLVR raises IF pass@1", "verdict"] == "disagree"
    assert r.loc["Math-RLVR lowers IF best@kmax", "verdict"] == "agree"
    assert "IF-RLVR lowers math best@kmax (searchability)" not in r.index  # no `if` chain in this study
    assert claims_markdown(t).count("\n") == len(t) + 2


@pytest.mark.parametrize("seeds,label", [(("seed0",), "1 seed"), (("seed0", "seed1"), "2 seeds")])
def test_fewer_than_three_seeds_give_effects_not_verdicts(tmp_path, seeds, label):
    # the same effects as above, whose CIs over prompts lie clearly on one side of 0: still no verdict
    r = _pass1_study(tmp_path, seeds).set_index("claim")
    assert set(r["verdict"]) == {label} and set(r["n_seeds"]) == {len(seeds)}
    pass1 = r.loc["Math-RLVR raises pass@1 on the trained task"]
    assert pass1["effect"] == pytest.approx(0.375) and pass1["ci_low"] > 0
    assert r.loc["Math-RLVR raises IF pass@1", "ci_high"] < 0
    assert f"| {label} |" in claims_markdown(r.reset_index())


def test_table_claims_are_read_from_the_analysis_tables(tmp_path):
    paths = [write_scores(tmp_path, "base", "math", {"a": [1, 0]}), write_scores(tmp_path, "math/seed0", "math", {"a": [1, 1]})]
    entropy = pd.DataFrame([{"chain": "math", "eval_set": "math", "metric": "answer_entropy", "n_seeds": 3,
                             "diff": -0.4, "diff_lo": -0.6, "diff_hi": -0.1},
                            {"chain": "math", "eval_set": "math", "metric": "token_entropy", "n_seeds": 3,
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
    # the support rows of one seed: an effect, no verdict; a table's row says how many seeds it pools
    assert r.loc["Math-RLVR: empirical support shrinkage exceeds expansion", "verdict"] == "1 seed"
    one = entropy.assign(n_seeds=1)
    t1 = claims_table(parse_files(paths, tmp_path), support_per_prompt=support, entropy=one, js_share=None,
                      modes=None, perplexity=None, decomposition={}, sources=SOURCES, m=3, n_boot=100, ci=0.95, seed=0)
    assert t1.set_index("claim").loc["Math-RLVR: answer-level entropy falls", "verdict"] == "1 seed"


def test_claims_are_measured_per_benchmark(tmp_path):
    from benchmark_scores import write_benchmark_scores

    # gsm8k (n = 4): `math` gains on every prompt; math500 (n = 2): `math` loses every success
    base = {"gsm8k": {f"g{i}": [1, 0, 0, 0] for i in range(10)}, "math500": {f"m{i}": [1, 1] for i in range(10)}}
    ckpt = {"gsm8k": {f"g{i}": [1, 1, 1, 1] for i in range(10)}, "math500": {f"m{i}": [0, 0] for i in range(10)}}
    paths = [write_benchmark_scores(tmp_path, "base", "math", base)]
    paths += [write_benchmark_scores(tmp_path, f"math/{s}", "math", ckpt) for s in SEEDS]
    entropy = pd.DataFrame([{"chain": "math", "eval_set": "math", "benchmark": b, "metric": "answer_entropy",
                             "n_seeds": 3, "diff": d, "diff_lo": d - 0.1, "diff_hi": d + 0.1}
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


def test_seed_stability_gives_each_seeds_effect_beside_the_pooled_verdict(tmp_path):
    from rlvr_support.analysis.claims import seed_stability_markdown, seed_stability_table

    # math: seeds 0 and 1 solve every sample of the 10 first prompts (pass@1 up), seed 2 solves nothing
    # (down): each seed's CI lies clearly on one side, which the table must show beside the pooled row;
    # IF: every seed gains alike, a stable claim
    base = {f"p{i:02d}": ([1, 0, 0, 0] if i < 10 else [0, 0, 0, 0]) for i in range(20)}
    up = {f"p{i:02d}": ([1, 1, 1, 1] if i < 10 else [0, 0, 0, 0]) for i in range(20)}
    down = {f"p{i:02d}": [0, 0, 0, 0] for i in range(20)}
    paths = [write_scores(tmp_path, "base", "math", base), write_scores(tmp_path, "base", "if", base, task="if")]
    for s, math in zip(SEEDS, (up, up, down)):
        paths += [write_scores(tmp_path, f"math/{s}", "math", math), write_scores(tmp_path, f"math/{s}", "if", up,
                                                                                  task="if")]
    files = parse_files(paths, tmp_path)
    modes = pd.DataFrame([{"chain": "base", "eval_set": "math", "benchmark": "math", "seed": "all", "mode": "DAI",
                            "n_seeds": 1, "diff": 0.0, "diff_lo": 0.0, "diff_hi": 0.0}] +
                          [{"chain": "if", "eval_set": "math", "benchmark": "math", "seed": s, "mode": "DAI",
                            "n_seeds": n, "diff": d, "diff_lo": lo, "diff_hi": hi}
                           for s, n, d, lo, hi in (("all", 3, 0.1, -0.1, 0.3), ("0", 1, 0.3, 0.1, 0.5),
                                                   ("1", 1, -0.1, -0.3, 0.1), ("2", 1, 0.2, 0.1, 0.3))])
    opts = dict(sources=SOURCES, m=3, n_boot=200, ci=0.95, seed=0)
    pooled = claims_table(files, support_per_prompt=None, entropy=None, js_share=None, modes=modes, perplexity=None,
                          decomposition={}, **opts)
    st = seed_stability_table(files, pooled, support_per_prompt=None, modes=modes, **opts).set_index("claim")
    row = st.loc["Math-RLVR raises pass@1 on the trained task"]
    assert [row[f"seed{s}_ci_side"] for s in (0, 1, 2)] == ["above 0", "above 0", "below 0"]
    assert row["seed0_effect"] == pytest.approx(0.375) and row["seed2_effect"] == pytest.approx(-0.125)
    assert row["per_seed"] and not row["stable"] and row["n_seeds"] == 3
    assert row["pooled_verdict"] == pooled.set_index("claim").loc[row.name, "verdict"]
    assert "seed0_verdict" not in st.columns  # one seed gives no verdict, here neither
    gain = st.loc["Math-RLVR raises IF pass@1"]
    assert gain["pooled_verdict"] == "agree" and gain["stable"] and gain["seeds_agreeing_with_pooled"] == 3
    # an opening claim reads the per-seed rows of the opening-mode table (its chain `if` has no scores here)
    s = st.loc["IF-RLVR moves math openings toward direct answers"]
    assert (s["pooled_verdict"], s["seed0_ci_side"], s["seed1_ci_side"], s["seed2_ci_side"]) == (
        "inconclusive", "above 0", "spans 0", "above 0")
    md = seed_stability_markdown(st.reset_index())
    assert "seed0" in md and "seed2" in md and md.count("\n") == len(st) + 2
    assert "+0.375, CI above 0" in md


def test_seed_stability_of_one_seed_has_no_stable_claim(tmp_path):
    from rlvr_support.analysis.claims import seed_stability_markdown, seed_stability_table

    base = {f"p{i:02d}": ([1, 0, 0, 0] if i < 10 else [0, 0, 0, 0]) for i in range(20)}
    up = {f"p{i:02d}": ([1, 1, 1, 1] if i < 10 else [0, 0, 0, 0]) for i in range(20)}
    files = parse_files([write_scores(tmp_path, "base", "math", base), write_scores(tmp_path, "math/seed0", "math", up)],
                        tmp_path)
    opts = dict(sources=SOURCES, m=3, n_boot=100, ci=0.95, seed=0)
    pooled = claims_table(files, support_per_prompt=None, entropy=None, js_share=None, modes=None, perplexity=None,
                          decomposition={}, **opts)
    st = seed_stability_table(files, pooled, support_per_prompt=None, modes=None, **opts)
    row = st.set_index("claim").loc["Math-RLVR raises pass@1 on the trained task"]
    assert row["pooled_verdict"] == "1 seed" and row["seed0_ci_side"] == "above 0" and not row["stable"]
    assert "| n/a |" in seed_stability_markdown(st) and "| yes |" not in seed_stability_markdown(st)


def test_the_association_claim_counts_seeds_not_runs(tmp_path):
    # three trajectory runs (math, if, math-if) of one RL seed are one seed: no verdict
    assoc = pd.DataFrame([{"eval_set": "math", "benchmark": "math", "x": "share:answer", "y": "best@k", "n_points": 9,
                           "n_runs": 3, "n_seeds": 1, "pearson_r": -0.8, "ci_low": -0.9, "ci_high": -0.6,
                           "n_boot_used": 100, "spearman_rho": -0.8}])
    opts = dict(support_per_prompt=None, entropy=None, js_share=None, modes=None, perplexity=None, decomposition={},
                sources={**SOURCES, "association": "association.csv"}, m=3, n_boot=100, ci=0.95, seed=0)
    claim = "Direct-answer openings and math best@k are negatively associated across checkpoints"
    one = claims_table([], association=assoc, **opts).set_index("claim").loc[claim]
    assert (one["n_seeds"], one["verdict"], one["effect"]) == (1, "1 seed", pytest.approx(-0.8))
    three = claims_table([], association=assoc.assign(n_runs=9, n_seeds=3), **opts).set_index("claim").loc[claim]
    assert (three["n_seeds"], three["verdict"]) == (3, "agree")
