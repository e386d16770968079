"""Jensen-Shannon divergence between next-token distributions, by response position.

Source: Verifier-Induced Support Reshaping, position-wise JS divergence
between the base and RL policies' next-token distributions on the same prefixes.

    M = (P + Q) / 2,   JS(P, Q) = 1/2 KL(P || M) + 1/2 KL(Q || M)

natural log, so 0 <= JS <= ln 2 (reached for disjoint supports).  Inputs are
log-probabilities (e.g. ``log_softmax`` of logits); zero-probability entries
(-inf) contribute 0 (convention 0 log 0 = 0) and never produce NaN.  ``log M`` is
formed as ``logaddexp(logp, logq) - ln 2`` so nothing is exponentiated before
it is needed.  Works on numpy arrays and on torch tensors (returning the same type;
torch is only touched if a tensor is passed).
"""

from __future__ import annotations

import math
import warnings
from typing import Any

import numpy as np

__all__ = ["js_divergence", "positional_js", "share_in_first_m", "route_entry_ratio"]

LN2 = math.log(2.0)


def _is_torch(x: Any) -> bool:
    return type(x).__module__.split(".")[0] == "torch"


def js_divergence(logp: Any, logq: Any, axis: int = -1) -> Any:
    """JS divergence (nats) between distributions given as log-probs, reduced over ``axis``."""
    if _is_torch(logp) or _is_torch(logq):
        import torch

        lp = logp if _is_torch(logp) else torch.as_tensor(logp)
        lq = logq if _is_torch(logq) else torch.as_tensor(logq)
        lp, lq = torch.broadcast_tensors(lp.to(torch.promote_types(lp.dtype, lq.dtype)),
                                         lq.to(torch.promote_types(lp.dtype, lq.dtype)))
        lm = torch.logaddexp(lp, lq) - LN2
        zero = torch.zeros((), dtype=lp.dtype, device=lp.device)
        tp = torch.where(lp > -math.inf, lp.exp() * (lp - lm), zero)
        tq = torch.where(lq > -math.inf, lq.exp() * (lq - lm), zero)
        js = 0.5 * (tp.sum(dim=axis) + tq.sum(dim=axis))
        return js.clamp(0.0, LN2)
    lp = np.asarray(logp, dtype=np.float64)
    lq = np.asarray(logq, dtype=np.float64)
    lp, lq = np.broadcast_arrays(lp, lq)
    lm = np.logaddexp(lp, lq) - LN2
    with np.errstate(invalid="ignore"):  # (-inf) - (-inf) where both are 0; masked out below
        tp = np.where(lp > -np.inf, np.exp(lp) * (lp - lm), 0.0)
        tq = np.where(lq > -np.inf, np.exp(lq) * (lq - lm), 0.0)
    js = 0.5 * (tp.sum(axis=axis) + tq.sum(axis=axis))
    return np.clip(js, 0.0, LN2)


def positional_js(base_logprobs: Any, rl_logprobs: Any, mask: Any) -> np.ndarray:
    """Mean JS divergence at each response position: shape (T,).

    ``base_logprobs``, ``rl_logprobs``: (B, T, V) log-probs of the two policies from
    teacher-forced passes on the same B prefixes (sequence b's position t is the
    distribution of response token t); ``mask`` (B, T), true for real response tokens.
    Position t averages over the sequences with a real token there; NaN where none has.
    To bound memory with a large vocabulary, call per batch and combine with the
    per-position token counts ``mask.sum(0)``.
    """
    js = js_divergence(base_logprobs, rl_logprobs, axis=-1)
    if _is_torch(js):
        js = js.detach().to("cpu", dtype=__import__("torch").float64).numpy()
    js = np.asarray(js, dtype=np.float64)
    m = np.asarray(mask.detach().cpu().numpy() if _is_torch(mask) else mask).astype(bool)
    if js.ndim != 2 or m.shape != js.shape:
        raise ValueError(f"expected log-probs (B, T, V) and mask (B, T); got JS shape {js.shape}, mask {m.shape}")
    cnt = m.sum(axis=0)
    tot = np.where(m, js, 0.0).sum(axis=0)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(cnt > 0, tot / np.maximum(cnt, 1), np.nan)


def share_in_first_m(js_by_position: np.ndarray, m: int) -> float:
    """Share of the total (summed over positions) divergence in positions < m.

    NaN positions (no tokens) are ignored; NaN when the total is 0.
    """
    if m < 0:
        raise ValueError(f"m must be >= 0, got {m}")
    js = np.asarray(js_by_position, dtype=np.float64).ravel()
    total = np.nansum(js)
    if total == 0:
        return float("nan")
    return float(np.nansum(js[:m]) / total)


def route_entry_ratio(curve: np.ndarray) -> np.ndarray:
    """JS at the first response position over the mean JS of the interior positions, per curve.

    the support-reshaping paper ("route entry"): the divergence between base and RLVR policy is largest where the
    response starts, 9.8x to 106.7x the interior level on AIME.  With the mean JS curve J_t over
    positions t = 0..T-1 (last axis; NaN where no sequence has a token)::

        ratio = J_0 / mean_{1 <= t < T, J_t not NaN} J_t

    NaN when J_0 is NaN, when no interior position has a value, or when the interior mean is 0.
    """
    c = np.asarray(curve, dtype=np.float64)
    with np.errstate(invalid="ignore", divide="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # an all-NaN interior gives NaN, as intended
        interior = np.nanmean(c[..., 1:], axis=-1) if c.shape[-1] > 1 else np.full(c.shape[:-1], np.nan)
        return np.where(interior > 0, c[..., 0] / interior, np.nan)
