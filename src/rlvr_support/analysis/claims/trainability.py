"""The future-trainability claim (Support reshaping): a later Math-RLVR stage learns only from mixed
groups of G rollouts, and IF-RLVR leaves fewer of them on math. Computed from the score files at the
RL group size G (cited: the trainability table, which measures the same at every G)."""

from __future__ import annotations

from rlvr_support.analysis.claims.claim import SCORES, Claim, Effect
from rlvr_support.analysis.claims.study import Where
from rlvr_support.analysis.papers import SUPPORT_RESHAPING
from rlvr_support.analysis.trainability import mixed_share_effects


def _mixed_share(scores, at, study):
    if not study.group_size or at.chain not in study.trained_chains:
        return
    files = [f for f in scores if f.chain in ("base", at.chain) and f.eval_set == at.eval_set]
    effects = mixed_share_effects(files, study.group_size, **study.boot).get((at.chain, at.eval_set), {})
    for bench, (d, lo, hi, n_seeds) in effects.items():
        yield Effect(bench, d, lo, hi, n_seeds)


CLAIMS = [
    Claim("IF-RLVR lowers the mixed-group share on math for a later Math-RLVR stage", (SUPPORT_RESHAPING,), -1,
          SCORES, _mixed_share, "share of mixed groups of G={group_size} rollouts, checkpoint - base (paired)",
          at=Where("if", "math"), cites="trainability"),
]
