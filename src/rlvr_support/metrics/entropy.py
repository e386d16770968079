"""Answer-level and token-level entropy (The Invisible Leash, Wu et al. 2025).

* Answer-level entropy of one prompt's n samples: ``H = -sum_j p_j ln p_j`` over the
  unique extracted final answers j with empirical frequencies p_j; a sample with no
  extracted answer (None or empty / whitespace string) counts as the single answer
  "NA".  Natural log (nats): n distinct answers give ln n, one answer gives 0.
  Answers are compared as ``str(a).strip()`` so 1 and "1" are the same answer;
  normalise answers (e.g. math-verify canonical form) before calling.
* Token-level entropy: per sample the mean over its response positions of the
  next-token entropy H(p_t) (computed by the sampler from full distributions), then
  the mean over samples; empty samples are skipped.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Hashable, Sequence
from typing import Any

import numpy as np

__all__ = ["answer_entropy", "token_entropy", "sample_token_entropy", "mean_per_prompt",
           "per_prompt_answer_entropy", "NA"]

NA = "NA"


def _answer_key(a: Any) -> str:
    if a is None:
        return NA
    if isinstance(a, float) and np.isnan(a):
        return NA
    s = str(a).strip()
    return s if s else NA


def answer_entropy(answers: Sequence[str | None]) -> float:
    """Entropy (nats) of the empirical distribution of extracted answers; NaN for no samples."""
    keys = [_answer_key(a) for a in answers]
    if not keys:
        return float("nan")
    counts = np.fromiter(Counter(keys).values(), dtype=np.float64)
    p = counts / counts.sum()
    return float(-(p * np.log(p)).sum()) + 0.0  # + 0.0 turns -0.0 into 0.0


def sample_token_entropy(per_token_entropies: Sequence[np.ndarray]) -> np.ndarray:
    """Mean over positions per sample (NaN for an empty sample): shape (n_samples,)."""
    out = np.full(len(per_token_entropies), np.nan)
    for i, h in enumerate(per_token_entropies):
        h = np.asarray(h, dtype=np.float64).ravel()
        if h.size:
            out[i] = h.mean()
    return out


def token_entropy(per_token_entropies: Sequence[np.ndarray]) -> float:
    """Mean over samples of the mean over positions; empty samples skipped; NaN if none left."""
    per = sample_token_entropy(per_token_entropies)
    per = per[~np.isnan(per)]
    return float(per.mean()) if per.size else float("nan")


def mean_per_prompt(prompt_ids: Sequence[Hashable], values: Sequence[float] | np.ndarray
                    ) -> tuple[np.ndarray, np.ndarray]:
    """Group per-sample values by prompt: ``(unique_ids sorted, mean per prompt)``.

    NaN values (e.g. empty samples) are ignored; a prompt with only NaN gets NaN.
    The result feeds :func:`rlvr_support.metrics.bootstrap.bootstrap_ci`.
    """
    ids = np.asarray(prompt_ids)
    v = np.asarray(values, dtype=np.float64).ravel()
    if ids.ravel().size != v.size:
        raise ValueError(f"prompt_ids and values differ in length: {ids.size} vs {v.size}")
    uniq, inv = np.unique(ids.ravel(), return_inverse=True)
    ok = ~np.isnan(v)
    sums = np.bincount(inv[ok], weights=v[ok], minlength=uniq.size)
    cnt = np.bincount(inv[ok], minlength=uniq.size)
    with np.errstate(invalid="ignore", divide="ignore"):
        means = np.where(cnt > 0, sums / np.maximum(cnt, 1), np.nan)
    return uniq, means


def per_prompt_answer_entropy(prompt_ids: Sequence[Hashable], answers: Sequence[str | None]
                              ) -> tuple[np.ndarray, np.ndarray]:
    """Answer entropy of each prompt's samples: ``(unique_ids sorted, entropy per prompt)``."""
    ids = np.asarray(prompt_ids).ravel()
    if ids.size != len(answers):
        raise ValueError(f"prompt_ids and answers differ in length: {ids.size} vs {len(answers)}")
    uniq, inv = np.unique(ids, return_inverse=True)
    groups: list[list[Any]] = [[] for _ in range(uniq.size)]
    for g, a in zip(inv.tolist(), answers):
        groups[g].append(a)
    return uniq, np.array([answer_entropy(g) for g in groups], dtype=np.float64)
