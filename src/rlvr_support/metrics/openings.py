"""Response openings: the first m tokens of a response, their distribution and rank shift.

Source: Verifier-Induced Support Reshaping: RLVR mostly *re-ranks*
openings the base model already produced.  An opening key is a tuple of the first
m token ids (token input) or a string of the first m whitespace-separated words
(text input).  Ranks are ordinal: 1 = most frequent; ties are broken by the
opening's string form (ascending), so tables are deterministic.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Hashable, Mapping, Sequence

import numpy as np
import pandas as pd

__all__ = ["openings", "opening_distribution", "opening_rank_shift", "opening_decomposition"]


def openings(responses: Sequence[Sequence[int]] | Sequence[str], m: int) -> list[Hashable]:
    """First m tokens (tuple of ints) or first m whitespace words (joined by one space) per response.

    Responses shorter than m give their whole (shorter) opening.
    """
    if m < 1:
        raise ValueError(f"m must be >= 1, got {m}")
    out: list[Hashable] = []
    for r in responses:
        if isinstance(r, str):
            out.append(" ".join(r.split()[:m]))
        else:
            out.append(tuple(int(t) for t in list(r)[:m]))
    return out


def _key_str(k: Hashable) -> str:
    if isinstance(k, str):
        return k
    if isinstance(k, tuple):
        return " ".join(str(t) for t in k)
    return str(k)


def opening_distribution(keys: Sequence[Hashable]) -> pd.DataFrame:
    """Columns opening, count, prob, rank (1 = most frequent; ties by opening string)."""
    cnt = Counter(keys)
    total = sum(cnt.values())
    rows = sorted(cnt.items(), key=lambda kv: (-kv[1], _key_str(kv[0])))
    df = pd.DataFrame({
        "opening": pd.Series([k for k, _ in rows], dtype=object),
        "count": np.array([v for _, v in rows], dtype=np.int64),
    })
    df["prob"] = df["count"] / total if total else np.array([], dtype=float)
    df["rank"] = np.arange(1, len(df) + 1, dtype=np.int64)
    return df


def opening_rank_shift(base_keys: Sequence[Hashable], rl_keys: Sequence[Hashable], top: int) -> pd.DataFrame:
    """Compare the top openings of base and RL samples.

    Rows: the union of the ``top`` most frequent openings under base and under RL.
    Columns: opening, base_count, base_prob, base_rank, rl_count, rl_prob, rl_rank,
    rank_shift (= base_rank - rl_rank, positive when RL promotes the opening),
    in_base_support (opening seen at least once in the base samples).  An opening
    never seen under a model has count 0, prob 0 and rank NaN.  Sorted by rl_rank,
    then base_rank, then opening string.
    """
    if top < 1:
        raise ValueError(f"top must be >= 1, got {top}")
    b = opening_distribution(base_keys).set_index("opening")
    r = opening_distribution(rl_keys).set_index("opening")
    chosen = list(dict.fromkeys(list(r.index[:top]) + list(b.index[:top])))
    rows = []
    for o in chosen:
        inb, inr = o in b.index, o in r.index
        rows.append({
            "opening": o,
            "base_count": int(b.at[o, "count"]) if inb else 0,
            "base_prob": float(b.at[o, "prob"]) if inb else 0.0,
            "base_rank": float(b.at[o, "rank"]) if inb else np.nan,
            "rl_count": int(r.at[o, "count"]) if inr else 0,
            "rl_prob": float(r.at[o, "prob"]) if inr else 0.0,
            "rl_rank": float(r.at[o, "rank"]) if inr else np.nan,
            "in_base_support": bool(inb),
        })
    df = pd.DataFrame(rows, columns=["opening", "base_count", "base_prob", "base_rank",
                                     "rl_count", "rl_prob", "rl_rank", "in_base_support"])
    df["opening"] = df["opening"].astype(object)
    df["rank_shift"] = df["base_rank"] - df["rl_rank"]
    df["_s"] = [_key_str(o) for o in df["opening"]]
    df = df.sort_values(["rl_rank", "base_rank", "_s"], na_position="last", kind="mergesort")
    return df.drop(columns="_s").reset_index(drop=True)


def opening_decomposition(p_opening: Mapping[Hashable, float], success_given_opening: Mapping[Hashable, float]) -> float:
    """``sum_o P(o) * success(o)``: success rate implied by an opening distribution.

    With P the full opening distribution of a policy and success(o) the success rate of
    continuations forced to start with o, this is that policy's expected success; plugging
    RL's P into base's success(o) (or vice versa) separates re-ranking of openings from
    better continuations.  If P covers only some openings (e.g. the top ones) the result
    is their contribution only.  An opening with P(o) > 0 but no success rate raises
    ValueError; openings with a success rate but no probability contribute 0.
    """
    total = 0.0
    for o, p in p_opening.items():
        p = float(p)
        if p < 0:
            raise ValueError(f"negative probability {p} for opening {o!r}")
        if p == 0:
            continue
        if o not in success_given_opening:
            raise ValueError(f"no success rate for opening {o!r} (P = {p})")
        total += p * float(success_given_opening[o])
    return total
