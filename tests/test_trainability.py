import itertools

import numpy as np
import pytest

from rlvr_support.metrics.trainability import group_outcome_probs


def _enumerate(n, c, G):
    """Share of the G-subsets of n samples (c successes) that are all fail / all success / mixed."""
    outcomes = [1] * c + [0] * (n - c)
    subsets = list(itertools.combinations(outcomes, G))
    fail = sum(sum(s) == 0 for s in subsets) / len(subsets)
    succ = sum(sum(s) == G for s in subsets) / len(subsets)
    return [fail, succ, 1 - fail - succ]


@pytest.mark.parametrize("n", [1, 2, 4, 5, 7])
def test_group_outcomes_match_enumeration_of_all_subsets(n):
    for G in range(1, n + 1):
        cs = np.arange(n + 1)
        got = group_outcome_probs(np.full(n + 1, n), cs, G)
        want = np.array([_enumerate(n, int(c), G) for c in cs])
        assert got == pytest.approx(want, abs=1e-12)
        assert got.sum(axis=1) == pytest.approx(np.ones(n + 1))


def test_group_outcomes_edges_and_errors():
    # G = 1: a single rollout is never mixed; G = n: mixed unless 0 < c < n fails
    assert group_outcome_probs(8, [0, 3, 8], 1) == pytest.approx(np.array([[1, 0, 0], [5 / 8, 3 / 8, 0], [0, 1, 0]]))
    assert group_outcome_probs(4, [0, 1, 4], 4)[:, 2] == pytest.approx([0, 1, 0])
    with pytest.raises(ValueError, match="G=5"):
        group_outcome_probs(4, 1, 5)
    with pytest.raises(ValueError, match="success counts"):
        group_outcome_probs(4, 5, 2)


def test_trainability_table_pools_seeds_and_pairs_the_mixed_share_with_the_base(tmp_path):
    from rlvr_support.analysis.runs import parse_files
    from rlvr_support.analysis.trainability import mixed_share_effects, trainability_table
    from support_helpers import write_scores

    # n = 4; base: a 2/4 (mixed at G = 2: 1 - 1/6 - 1/6), b 0/4; seed0 polarises a to 4/4, seed1 keeps it
    base = {"a": [1, 1, 0, 0], "b": [0, 0, 0, 0]}
    paths = [write_scores(tmp_path, "base", "math", base),
             write_scores(tmp_path, "if/seed0", "math", {"a": [1, 1, 1, 1], "b": [0, 0, 0, 0]}),
             write_scores(tmp_path, "if/seed1", "math", {"a": [1, 0, 1, 0], "b": [1, 0, 0, 0]})]
    files = parse_files(paths, tmp_path)
    t = trainability_table(files, rl_group_size=2, extra_group_sizes=[2, 4, 8], n_boot=50, ci=0.9, seed=0)
    assert sorted(set(t["G"])) == [2, 4], "G = 8 > n = 4 is left out"
    base_g2 = t[(t["chain"] == "base") & (t["G"] == 2)].iloc[0]
    assert base_g2["mixed"] == pytest.approx((2 / 3 + 0) / 2)
    assert base_g2["all_fail"] == pytest.approx((1 / 6 + 1) / 2) and base_g2["rl_group_size"]
    rl = t[(t["chain"] == "if") & (t["G"] == 2)].iloc[0]
    # seed0: a 4/4 -> 0, b -> 0; seed1: a 2/4 -> 2/3, b 1/4 -> 1/2; mean over prompts then seeds
    assert rl["mixed"] == pytest.approx(((0 + 0) / 2 + (2 / 3 + 1 / 2) / 2) / 2)
    assert rl["mixed_diff"] == pytest.approx(rl["mixed"] - base_g2["mixed"])
    assert rl["n_seeds"] == 2 and rl["relation"] == "cross-task"
    assert rl["mixed_lo"] <= rl["mixed"] <= rl["mixed_hi"]
    eff = mixed_share_effects(files, 2, n_boot=50, ci=0.9, seed=0)[("if", "math")]["math"]
    assert eff[0] == pytest.approx(rl["mixed_diff"]) and eff[3] == 2
    assert mixed_share_effects(files, 8, n_boot=10, ci=0.9, seed=0)[("if", "math")] == {}


def test_the_mixed_group_claim_reads_chain_if_on_math_at_the_rl_group_size(tmp_path):
    from rlvr_support.analysis.claims.table import claims_table, seed_stability_table
    from rlvr_support.analysis.runs import parse_files
    from support_helpers import write_scores

    # base: every prompt 2/4 (mixed); IF-RLVR polarises them to 0/4 or 4/4 on every seed: mixed falls
    base = {f"p{i:02d}": [1, 1, 0, 0] for i in range(12)}
    pol = {f"p{i:02d}": [1, 1, 1, 1] if i % 2 else [0, 0, 0, 0] for i in range(12)}
    paths = [write_scores(tmp_path, "base", "math", base)]
    paths += [write_scores(tmp_path, f"if/seed{s}", "math", pol) for s in range(3)]  # 3 seeds: a verdict
    files = parse_files(paths, tmp_path)
    sources = {"passk": "passk.csv", "trainability": "trainability.csv"}
    opts = dict(sources=sources, m=3, n_boot=100, ci=0.95, seed=0)
    claim = "IF-RLVR lowers the mixed-group share on math for a later Math-RLVR stage"
    t = claims_table(files, {}, group_size=2, **opts)
    r = t.set_index("claim").loc[claim]
    assert r["effect"] == pytest.approx(0 - 2 / 3) and r["verdict"] == "agree" and r["expected_sign"] == "-"
    assert r["chain"] == "if" and r["eval_set"] == "math" and "G=2" in r["measure"]
    assert r["source"] == "trainability.csv" and r["n_seeds"] == 3
    st = seed_stability_table(files, t, {}, group_size=2, **opts).set_index("claim").loc[claim]
    assert st["per_seed"] and st["stable"] and st["seed0_ci_side"] == "below 0"
    without = claims_table(files, {}, **opts)
    assert claim not in set(without["claim"])


def test_observed_zero_variance_sits_beside_the_start_checkpoints_prediction():
    import pandas as pd

    from rlvr_support.analysis.trainability import observed_zero_variance

    table = pd.DataFrame([
        # the base and the `if` checkpoint on math at G = 8 (and a G = 4 row that must not be read)
        {"chain": "base", "eval_set": "math", "benchmark": "math", "G": 8, "mixed": 0.40, "mixed_lo": 0.3, "mixed_hi": 0.5},
        {"chain": "if", "eval_set": "math", "benchmark": "math", "G": 8, "mixed": 0.10, "mixed_lo": 0.05, "mixed_hi": 0.2},
        {"chain": "if", "eval_set": "math", "benchmark": "math", "G": 4, "mixed": 0.90, "mixed_lo": 0.8, "mixed_hi": 1.0},
    ])
    curve = pd.DataFrame({"step": [10, 20, 30], "frac_reward_zero_std": [0.8, 0.6, 0.4]})
    old = pd.DataFrame({"step": [10], "reward": [0.5]})  # a curve written before the column was kept
    out = observed_zero_variance(table, [("if-math", 0, curve), ("math", 1, curve), ("if-math", 2, old)], 8)
    row = out.iloc[0]
    assert (row["start"], row["task"], row["seed"]) == ("if", "math", 0)
    assert row["predicted"] == pytest.approx(0.90) and row["predicted_lo"] == pytest.approx(0.80)
    assert row["predicted_hi"] == pytest.approx(0.95)
    assert row["observed_first"] == pytest.approx(0.8) and row["observed_mean"] == pytest.approx(0.6)
    assert out.iloc[1]["start"] == "base" and out.iloc[1]["predicted"] == pytest.approx(0.60)
    assert np.isnan(out.iloc[2]["observed_first"]) and out.iloc[2]["predicted"] == pytest.approx(0.90)
