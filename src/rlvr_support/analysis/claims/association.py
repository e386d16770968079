"""The association claim (Support reshaping: Pearson r = -0.85 between direct-answer openings and math
best@k across checkpoints), read from the trajectories' association table."""

from __future__ import annotations

from rlvr_support.analysis.claims.claim import Claim, Effect, by_benchmark
from rlvr_support.analysis.claims.study import Where
from rlvr_support.analysis.papers import SUPPORT_RESHAPING


def _pearson_r(table, at, study):
    for bench, a in by_benchmark(table, at.eval_set, {"eval_set": at.eval_set, "x": "share:answer",
                                                      "y": "best@k"}).items():
        r = a.iloc[0]
        # an interval from fewer than half the resamples (most drew a constant share: few distinct
        # points) says little; the claim is then inconclusive, whatever the point estimate
        enough = r["n_boot_used"] >= study.n_boot / 2
        lo, hi = (r["ci_low"], r["ci_high"]) if enough else (float("nan"), float("nan"))
        # the RL seeds of its trajectory runs (several chains of one seed are one)
        yield Effect(bench, r["pearson_r"], lo, hi, int(r["n_seeds"]),
                     {"n_points": int(r["n_points"]), "n_runs": int(r["n_runs"])})


CLAIMS = [
    Claim("Direct-answer openings and math best@k are negatively associated across checkpoints",
          (SUPPORT_RESHAPING,), -1, "association", _pearson_r,
          "Pearson r over {n_points} trajectory points ({n_runs} runs), CI over points", at=Where("trajectory", "math")),
]
