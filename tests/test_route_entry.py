import numpy as np
import pandas as pd
import pytest

from rlvr_support.analysis.js_sums import _per_prompt_sums
from rlvr_support.analysis.route_entry import route_entry_from_sums, route_entry_table
from rlvr_support.analysis.runs import parse_files
from rlvr_support.metrics.divergence import route_entry_ratio


def test_ratio_by_hand():
    assert route_entry_ratio(np.array([1.0, 0.1, 0.3])) == pytest.approx(5.0)
    assert route_entry_ratio(np.array([[2.0, np.nan, 0.5], [1.0, 0.0, 0.0]])) == pytest.approx(np.array([4.0, np.nan]),
                                                                                              nan_ok=True)
    assert np.isnan(route_entry_ratio(np.array([1.0])))


def _runs(rng, ratio, prompts=40, seqs=3, T=12, interior=0.01):
    """JS rows whose first position is `ratio` times the interior level, with multiplicative noise."""
    rows = []
    for p in range(prompts):
        for s in range(seqs):
            for t in range(T - rng.integers(0, 4)):  # sequences of different lengths
                level = interior * (ratio if t == 0 else 1.0)
                rows.append({"source": "base", "prompt_id": f"p{p:03d}", "sample_idx": s, "position": t,
                             "js": level * rng.uniform(0.8, 1.2)})
    return pd.DataFrame(rows)


def test_ratio_ci_covers_a_known_ratio_on_synthetic_js():
    rng = np.random.default_rng(0)
    for ratio in (10.0, 100.0):
        per_seed = [_per_prompt_sums(_runs(rng, ratio), 12) for _ in range(2)]
        r = route_entry_from_sums(per_seed, 12, n_boot=400, ci=0.95, seed=0)
        assert r["ratio_lo"] <= ratio <= r["ratio_hi"]
        assert r["ratio"] == pytest.approx(ratio, rel=0.05) and r["ratio_hi"] - r["ratio_lo"] < 0.1 * ratio
        # each is a mean over seeds, so the ratio of the means is close to, not equal to, the mean ratio
        assert r["js_first"] / r["js_interior"] == pytest.approx(r["ratio"], rel=1e-3)
    flat = [_per_prompt_sums(_runs(rng, 1.0), 12)]
    r = route_entry_from_sums(flat, 12, n_boot=200, ci=0.95, seed=0)
    assert r["ratio_lo"] <= 1.0 <= r["ratio_hi"] and np.isnan(r["ratio_seed_std"])


def test_route_entry_table_reads_positional_js_runs(tmp_path):
    rng = np.random.default_rng(1)
    for seed in (0, 1):
        df = pd.concat([_runs(rng, 20.0), _runs(rng, 5.0).assign(source="ckpt")])
        path = tmp_path / "math" / f"seed{seed}" / "math.parquet"
        path.parent.mkdir(parents=True, exist_ok=True)
        df.to_parquet(path)
    files = parse_files(sorted(tmp_path.rglob("*.parquet")), tmp_path)
    t = route_entry_table(files, n_boot=100, ci=0.95, seed=0).set_index("source")
    assert t.loc["base", "ratio"] == pytest.approx(20.0, rel=0.1) and t.loc["ckpt", "ratio"] == pytest.approx(5, rel=0.1)
    assert (t["n_seeds"] == 2).all() and (t["relation"] == "same-task").all() and (t["reference"] == "base").all()
