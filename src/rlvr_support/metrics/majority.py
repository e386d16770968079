"""maj@k: whether the most frequent extracted answer among k samples is correct (majority voting,
self-consistency: Wang et al. 2023), estimated over k-subsets of a prompt's n samples.

Answer classes (`answer_classes`): every answer the verifier judged correct is one class (they
are all equal to the gold answer, whatever their spelling: "1/2" and "0.5"); each other answer is
its own class, compared as metrics.entropy compares answers (str, stripped); a sample with no
extracted answer does not vote. A subset with no answer at all counts as wrong; a tie between
the top classes counts as the share of them that is correct (the expectation of a random
tie-break), so maj@1 equals pass@1.

maj@k of a prompt is the mean over its k-subsets drawn uniformly without replacement, as pass@k
is. k = n has one subset; where a prompt has at most EXACT_SUBSETS k-subsets every one is
counted (exact); otherwise DRAWS random subsets are, drawn from a generator seeded by the
analysis seed and the prompt's position, so a table is the same on every machine (Monte-Carlo
error per prompt at most 0.5 / sqrt(DRAWS) = 0.016, and far less on a mean over prompts). An
exact sum over subsets is combinatorial in the number of distinct answers, which at paper
scale (n in the thousands, hundreds of distinct answers) is out of reach.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import combinations
from math import comb

import numpy as np

# one definition of when two answers are the same (metrics.entropy; its private name stays: the
# module is in the training jobs' code, whose hash a rename would change)
from rlvr_support.metrics.entropy import NA, _answer_key as answer_key

__all__ = ["answer_classes", "maj_at_k_matrix", "DRAWS", "EXACT_SUBSETS"]

NO_ANSWER, CORRECT = -1, 0
DRAWS = 1024
EXACT_SUBSETS = 4096


def answer_classes(answers: Sequence, correct: Sequence[bool]) -> np.ndarray:
    """One prompt's samples as answer classes: 0 = a correct answer, 1, 2, ... = each distinct wrong
    answer, -1 = no extracted answer (a correct sample counts as correct even without one)."""
    codes, wrong = np.empty(len(answers), dtype=np.int64), {}
    for i, (a, ok) in enumerate(zip(answers, correct)):
        key = answer_key(a)
        codes[i] = CORRECT if ok else NO_ANSWER if key == NA else wrong.setdefault(key, len(wrong) + 1)
    return codes


def _votes(classes: np.ndarray, subsets: np.ndarray) -> np.ndarray:
    """maj of each subset (rows of sample indices): 1, 0 or the correct share of a tie."""
    d, m = subsets.shape[0], max(int(classes.max()), CORRECT) + 2
    votes = np.bincount((np.arange(d)[:, None] * m + classes[subsets] + 1).ravel(),
                        minlength=d * m).reshape(d, m)
    votes[:, 0] = 0  # samples without an answer do not vote
    top = votes.max(axis=1)
    tied = (votes == top[:, None]).sum(axis=1)
    return np.where((top > 0) & (votes[:, CORRECT + 1] == top), 1.0 / tied, 0.0)


def _maj_of_prompt(classes: np.ndarray, ks: Sequence[int], rng: np.random.Generator) -> list[float]:
    n, drawn = classes.size, None
    out = []
    for k in ks:
        if k == n:
            subsets = np.arange(n)[None, :]
        elif comb(n, k) <= EXACT_SUBSETS:
            subsets = np.array(list(combinations(range(n), k)), dtype=np.int64)
        else:  # the first k of DRAWS random orders (one set of orders for every k of the prompt)
            if drawn is None:
                drawn = rng.permuted(np.broadcast_to(np.arange(n), (DRAWS, n)), axis=1)
            subsets = drawn[:, :k]
        out.append(float(_votes(classes, subsets).mean()))
    return out


def maj_at_k_matrix(classes: np.ndarray, ks: Sequence[int], *, seed: int, first: int = 0) -> np.ndarray:
    """maj@k of prompts sharing n: `classes` (P, n) from answer_classes, every k <= n; shape (P, len(ks)).
    `first`: the position of the first row among the table's prompts, which seeds each prompt's draws."""
    classes = np.asarray(classes, dtype=np.int64)
    P, n = classes.shape
    if any(k > n or k < 1 for k in ks):
        raise ValueError(f"maj@k needs 1 <= k <= n={n}, got k={list(ks)}")
    out = np.empty((P, len(ks)))
    for p in range(P):
        rng = np.random.default_rng([seed, first + p])
        out[p] = _maj_of_prompt(classes[p], ks, rng)
    return out
