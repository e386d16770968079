"""Training trajectories (analysis.trajectory): hand-computed per-point values read at k, the
association of style shares with best@k across checkpoints, the figures and the CLI verbs."""

from __future__ import annotations

import argparse
import math

import numpy as np
import pandas as pd
import pytest

from rlvr_support.analysis.trajectory import (
    COLUMNS,
    METRICS,
    association_markdown,
    association_table,
    pearson_bootstrap,
    pearson_replicates,
    spearman_rho,
    trajectory_markdown,
    trajectory_table,
)
from rlvr_support.cli.verbs import figure_association as association_verb, figure_trajectory as curves_verb, \
    trajectory_table as table_verb
from rlvr_support.figures.association_scatter import plot_association_scatter
from rlvr_support.figures.trajectory_curves import plot_trajectory_curves
from benchmark_samples import sample, write_benchmark_files

OPTS = dict(n_boot=200, ci=0.9, seed=0)
STYLE_METRICS = ["share:step", "share:so", "share:answer", "share:other"]


def _point(root, run, chain, seed, step, eval_set, samples, task="math"):
    s, c = write_benchmark_files(root, f"{run}/step{step}", eval_set, samples, task=task)
    return {"run": run, "chain": chain, "seed": seed, "step": step, "samples": str(s), "scores": str(c)}


# gsm8k: prompt a (k = 4 samples, then 2 more the table must not read), prompt b; math500: prompt c
FIRST_FOUR = [("answer 3", 1.0, "3"), ("step one", 0.0, "5"), ("so then", 0.0, None), ("answer 3", 1.0, "3")]
BEYOND_K = [("answer 3", 1.0, "3"), ("answer 9", 1.0, "9")]


def _samples():
    out = [sample("a", "gsm8k", [1], text=t, reward=r, answer=ans) for t, r, ans in FIRST_FOUR + BEYOND_K]
    out += [sample("b", "gsm8k", [1], text="Step x", reward=1.0 if i >= 4 else 0.0, answer="7") for i in range(6)]
    out += [sample("c", "math500", [1], text=t, reward=0.0, answer=str(i))
            for i, t in enumerate(['"answer 1"', "well 2", "so 3", "step 4", "answer 5", "answer 6"])]
    return out


def _value(t, metric, bench="gsm8k", run="math/seed0", step=0):
    r = t[(t["run"] == run) & (t["step"] == step) & (t["benchmark"] == bench) & (t["metric"] == metric)]
    assert len(r) == 1, (run, step, bench, metric)
    return r.iloc[0]


def test_values_at_k_are_hand_computed_per_benchmark(tmp_path):
    t = trajectory_table([_point(tmp_path, "math/seed0", "math", 0, 0, "math", _samples())], k=4, **OPTS)
    assert list(t.columns) == COLUMNS
    assert list(dict.fromkeys(t["benchmark"])) == ["gsm8k", "math500"]  # no pooled rows
    assert list(t[t["benchmark"] == "gsm8k"]["metric"]) == list(METRICS)
    assert METRICS[4:] == tuple(STYLE_METRICS)
    assert set(t["eval_set"]) == {"math"} and set(t["k"]) == {4}
    assert _value(t, "pass@1")["n_prompts"] == 2 and _value(t, "pass@1", "math500")["n_prompts"] == 1
    # a: 2 of its first 4 correct, b: none of its first 4 (all 6 would give (4/6 + 2/6) / 2 = 0.5)
    assert _value(t, "pass@1")["value"] == pytest.approx((2 / 4 + 0) / 2)
    assert _value(t, "coverage@k")["value"] == pytest.approx(0.5)  # all 6: 1.0
    assert _value(t, "best@k")["value"] == pytest.approx(0.5)  # binary math rewards: best@k = pass@k
    # a: answers 3, 5, NA, 3 -> H = 1.5 ln 2 (the 9 beyond k would add a fourth answer); b: one answer
    assert _value(t, "answer_entropy")["value"] == pytest.approx((1.5 * math.log(2) + 0) / 2)
    shares = {m: _value(t, m)["value"] for m in STYLE_METRICS}
    assert shares == pytest.approx({"share:step": (1 / 4 + 1) / 2, "share:so": 1 / 8, "share:answer": 2 / 8,
                                    "share:other": 0.0})
    # c's first 4: '"answer' (quotes ignored), 'well' (other), 'so', 'step'
    assert {m: _value(t, m, "math500")["value"] for m in STYLE_METRICS} == pytest.approx(
        {"share:step": 0.25, "share:so": 0.25, "share:answer": 0.25, "share:other": 0.25})
    assert _value(t, "answer_entropy", "math500")["value"] == pytest.approx(math.log(4))
    for r in t.itertuples():
        assert r.ci_low <= r.value + 1e-12 and r.value <= r.ci_high + 1e-12


def test_if_answers_are_normalised_texts(tmp_path):
    texts = ["answer  Yes", "ANSWER yes", "step no", "answer yes"]
    smp = [sample("a", "if", [1], text=x, reward=r) for x, r in zip(texts, [0.5, 1.0, 0.25, 0.0])]
    t = trajectory_table([_point(tmp_path, "if/seed0", "if", 0, 0, "if", smp, task="if")], k=4, **OPTS)
    p = -(0.75 * math.log(0.75) + 0.25 * math.log(0.25))  # 3 x "answer yes", 1 x "step no"
    assert _value(t, "answer_entropy", "if", "if/seed0")["value"] == pytest.approx(p)
    assert _value(t, "best@k", "if", "if/seed0")["value"] == pytest.approx(1.0)  # graded: the IF share met
    assert _value(t, "pass@1", "if", "if/seed0")["value"] == pytest.approx(0.25)


def test_a_prompt_with_fewer_than_k_samples_is_an_error_naming_the_file(tmp_path):
    p = _point(tmp_path, "math/seed0", "math", 0, 0, "math", _samples())
    with pytest.raises(ValueError, match=r"math/seed0/step0/math\.parquet.*fewer than k=8"):
        trajectory_table([p], k=8, **OPTS)
    short = _samples()[:-1]  # c keeps 5
    p = _point(tmp_path, "math/seed1", "math", 1, 0, "math", short)
    trajectory_table([p], k=5, **OPTS)
    with pytest.raises(ValueError, match="'c' with 5"):
        trajectory_table([p], k=6, **OPTS)


def test_points_are_sorted_and_external_runs_have_no_seed(tmp_path):
    pts = [_point(tmp_path, "prorl", "prorl", None, 20, "math", _samples()),
           _point(tmp_path, "math/seed1", "math", 1, 0, "math", _samples()),
           _point(tmp_path, "math/seed0", "math", 0, 10, "math", _samples()),
           _point(tmp_path, "math/seed0", "math", 0, 0, "math", _samples())]
    t = trajectory_table(pts, k=4, **OPTS)
    g = t[(t["benchmark"] == "gsm8k") & (t["metric"] == "pass@1")]
    assert list(zip(g["run"], g["step"])) == [("math/seed0", 0), ("math/seed0", 10), ("math/seed1", 0), ("prorl", 20)]
    assert str(t["seed"].dtype) == "Int64" and t.loc[t["run"] == "prorl", "seed"].isna().all()
    assert list(t["benchmark"]) == ["gsm8k"] * (4 * len(METRICS)) + ["math500"] * (4 * len(METRICS))
    with pytest.raises(ValueError, match="given twice"):
        trajectory_table(pts + [pts[0]], k=4, **OPTS)


# ----------------------------------------------------------------------------- association
def test_pearson_bootstrap_matches_corrcoef_and_its_sign():
    rng = np.random.default_rng(1)
    x = rng.normal(size=40)
    y = -2 * x + rng.normal(size=40)
    r, lo, hi = pearson_bootstrap(x, y, n_boot=500, ci=0.95, seed=0)
    assert r == pytest.approx(np.corrcoef(x, y)[0, 1])
    assert lo <= r <= hi < 0
    r2, lo2, hi2 = pearson_bootstrap(x, -y, n_boot=500, ci=0.95, seed=0)
    assert (r2, lo2, hi2) == pytest.approx((-r, -hi, -lo))  # same resamples, mirrored
    # the resamples are the rows of default_rng(seed).integers(0, n, (n_boot, n)); brute force
    x3, y3 = np.array([0.0, 0.0, 1.0, 2.0]), np.array([1.0, 3.0, 2.0, 5.0])
    idx = np.random.default_rng(3).integers(0, 4, size=(300, 4))
    brute = [np.corrcoef(x3[i], y3[i])[0, 1] for i in idx if np.ptp(x3[i]) > 0 and np.ptp(y3[i]) > 0]
    reps = pearson_replicates(x3, y3, n_boot=300, seed=3)
    assert 0 < len(reps) < 300  # resamples with constant x or y are left out
    assert reps == pytest.approx(brute)


def test_pearson_is_nan_for_fewer_than_three_points_or_a_constant():
    assert all(math.isnan(v) for v in pearson_bootstrap([0.1, 0.2], [0.3, 0.1], **OPTS))
    assert all(math.isnan(v) for v in pearson_bootstrap([0.5, 0.5, 0.5], [0.3, 0.1, 0.2], **OPTS))
    assert math.isnan(spearman_rho([1.0, 2.0], [2.0, 1.0]))
    assert spearman_rho([1.0, 2.0, 3.0, 4.0], [1.0, 4.0, 9.0, 20.0]) == pytest.approx(1.0)


def _assoc_points(root, steps=9):
    """Point i: two IF prompts of 4 samples; 8 - i of the 8 samples open with `answer`, the rest
    with `step`; each prompt's best reward is i / 10 (+ 0.01 on odd i): answers go down as best@k
    goes up. Even i: run if/seed0, odd i: if/seed1."""
    pts = []
    for i in range(steps):
        texts = ["answer x"] * (8 - i) + ["step x"] * i
        best = i / 10 + 0.01 * (i % 2)
        smp = [sample(pid, "if", [1], text=texts[4 * j + s], reward=best if s == 0 else 0.0)
               for j, pid in enumerate(("p", "q")) for s in range(4)]
        pts.append(_point(root, f"if/seed{i % 2}", "if", i % 2, 10 * i, "if", smp, task="if"))
    return pts


def test_association_of_direct_answers_with_best_at_k_is_negative(tmp_path):
    traj = trajectory_table(_assoc_points(tmp_path), k=4, **OPTS)
    assert list(traj[traj["metric"] == "share:answer"]["value"]) == pytest.approx(
        [(8 - i) / 8 for i in (0, 2, 4, 6, 8, 1, 3, 5, 7)])  # seed0's steps, then seed1's
    a = association_table(traj, n_boot=500, ci=0.95, seed=0).set_index("x")
    assert list(a.index) == STYLE_METRICS and set(a["y"]) == {"best@k"}
    ans = a.loc["share:answer"]
    assert (ans["n_points"], ans["n_runs"], ans["n_seeds"], ans["n_boot_used"]) == (9, 2, 2, 500)
    share = traj[traj["metric"] == "share:answer"]["value"].to_numpy()
    best = traj[traj["metric"] == "best@k"]["value"].to_numpy()
    assert best == pytest.approx([i / 10 + 0.01 * (i % 2) for i in (0, 2, 4, 6, 8, 1, 3, 5, 7)])
    assert ans["pearson_r"] == pytest.approx(np.corrcoef(share, best)[0, 1])
    assert ans["pearson_r"] < -0.9 and ans["ci_high"] < 0
    assert ans["spearman_rho"] == pytest.approx(-1.0)  # strictly monotone
    assert a.loc["share:step", "pearson_r"] == pytest.approx(-ans["pearson_r"])  # step = 1 - answer
    for x in ("share:so", "share:other"):  # never used: zero variance, no r and no error
        assert math.isnan(a.loc[x, "pearson_r"]) and math.isnan(a.loc[x, "ci_low"]) and a.loc[x, "n_boot_used"] == 0
    md = association_markdown(a.reset_index())
    assert md.splitlines()[0].startswith("| eval_set | benchmark | x | y | n_points")
    assert f"{ans['pearson_r']:+.3f} [{ans['ci_low']:+.3f}, {ans['ci_high']:+.3f}]" in md


def test_association_with_two_points_is_nan(tmp_path):
    traj = trajectory_table(_assoc_points(tmp_path, steps=2), k=4, **OPTS)
    a = association_table(traj, **OPTS)
    assert (a["n_points"] == 2).all() and a["pearson_r"].isna().all() and a["ci_high"].isna().all()
    assert a["spearman_rho"].isna().all()


def test_trajectory_markdown_has_one_row_per_point(tmp_path):
    pts = [_point(tmp_path, "math/seed0", "math", 0, s, "math", _samples()) for s in (0, 10)]
    t = trajectory_table(pts, k=4, **OPTS)
    lines = trajectory_markdown(t).splitlines()
    assert lines[0] == "| eval_set | benchmark | run | step | k | n_prompts | " + " | ".join(METRICS) + " |"
    assert len(lines) == 2 + 4  # 2 points x 2 benchmarks
    r = _value(t, "pass@1")
    assert lines[2].startswith(f"| math | gsm8k | math/seed0 | 0 | 4 | 2 | {r['value']:.3f} [{r['ci_low']:.3f}, ")


# ----------------------------------------------------------------------------- figures and CLI
def test_figures_write_png_and_pdf(tmp_path):
    traj = trajectory_table(_assoc_points(tmp_path) + [_point(tmp_path, "prorl", "prorl", None, 0, "if", [
        sample(pid, "if", [1], text="answer x", reward=0.5) for pid in ("p", "q") for _ in range(4)], task="if")],
        k=4, **OPTS)
    assoc = association_table(traj, **OPTS)
    plot_trajectory_curves(traj, "if", str(tmp_path / "fig" / "trajectory_if.png"))
    plot_association_scatter(traj, assoc, "if", str(tmp_path / "fig" / "association_if.png"))
    for name in ("trajectory_if", "association_if"):
        for ext in ("png", "pdf"):
            assert (tmp_path / "fig" / f"{name}.{ext}").stat().st_size > 1000
    with pytest.raises(ValueError, match="eval set 'math'"):
        plot_trajectory_curves(traj, "math", str(tmp_path / "fig" / "x.png"))


def _parser():
    p = argparse.ArgumentParser()
    sub = p.add_subparsers(dest="verb", required=True)

    def verb(name, fn, help_):
        s = sub.add_parser(name, help=help_)
        s.set_defaults(fn=fn)
        return s

    for module in (table_verb, curves_verb, association_verb):
        module.register(verb)
    return p


def test_cli_verbs_write_tables_twins_and_figures(tmp_path):
    import json

    pts = _assoc_points(tmp_path / "runs", steps=4)
    out, out_a = tmp_path / "t" / "trajectory.csv", tmp_path / "t" / "association.csv"
    a = _parser().parse_args(["trajectory-table", "--points", json.dumps(pts), "--out", str(out),
                              "--out-association", str(out_a),
                              "--cfg", json.dumps({"k": 4, "bootstrap": 50, "ci": 0.9, "seed": 0})])
    assert a.point_files == [f for p in pts for f in (p["samples"], p["scores"])]  # the provenance inputs
    assert a.prov_inputs == ["point_files"]
    a.fn(a)
    traj, assoc = pd.read_csv(out), pd.read_csv(out_a)
    assert len(traj) == 4 * len(METRICS) and list(assoc["x"]) == STYLE_METRICS
    assert list(traj["seed"]) == [0] * (2 * len(METRICS)) + [1] * (2 * len(METRICS))  # integers in the CSV
    assert out.with_suffix(".md").read_text().startswith("| eval_set | benchmark | run | step")
    assert "pearson r [CI]" in out_a.with_suffix(".md").read_text()
    for verb, extra in (("figure-trajectory", []), ("figure-association", ["--association", str(out_a)])):
        png = tmp_path / "f" / f"{verb}.png"
        a = _parser().parse_args([verb, "--table", str(out), *extra, "--eval-set", "if", "--out", str(png)])
        a.fn(a)
        assert png.stat().st_size > 0 and png.with_suffix(".pdf").stat().st_size > 0
    with pytest.raises(SystemExit):
        _parser().parse_args(["trajectory-table", "--points", '{"run": 1}', "--cfg", "{}", "--out", "x",
                              "--out-association", "y"])
