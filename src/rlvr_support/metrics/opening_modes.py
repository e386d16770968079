"""Opening modes of a response, read from its text: deliberative-reasoning initiation (DRI),
direct-answer initiation (DAI) or other.

Source: the support-reshaping paper distinguishes responses that open by starting to reason (DRI: "Let's",
"First", "To solve", "We need", "<think>", "Step 1") from responses that open with the answer
(DAI: "The answer is", "\\boxed", "Answer:", a bare number), and finds RLVR on one task moving the
other task's openings from DRI to DAI.

Rules (the patterns are configurable, `analysis.opening_modes`, defaults in config/defaults.py):

1. The text is stripped of leading whitespace and of leading quote and Markdown emphasis
   characters (``"'`*``); matching ignores case.
2. Each pattern is a regular expression matched at the start of what remains (``re.match``); a
   pattern of the ``dri`` list makes the response DRI, one of the ``dai`` list DAI.  DRI is
   tried first, so a response that opens "Let's see: the answer is 4" is DRI.
3. Anything else, the empty response included, is ``other``.

Toy world: a math response opens with its style word (data/toyworld/math_problems.py):
``step`` writes every operation before the answer (DRI), ``answer`` states the answer at once
(DAI).  ``so`` writes only the last operation and then the answer: an abbreviated derivation
that neither deliberates from the start nor opens with the answer, so it stays ``other``
rather than inflating either share (a reader who counts it as reasoning adds the two columns).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import numpy as np

__all__ = ["MODES", "compile_modes", "opening_modes"]

MODES = ("DRI", "DAI", "other")
_LEADING = " \t\r\n\"'`*"


def compile_modes(patterns: dict[str, Sequence[str]]) -> list[tuple[str, re.Pattern]]:
    """[(mode, one case-insensitive regex alternating the mode's patterns)], DRI before DAI; a bad
    pattern is a ValueError naming it."""
    out = []
    for mode, key in (("DRI", "dri"), ("DAI", "dai")):
        for p in patterns.get(key, []):
            try:
                re.compile(p)
            except re.error as e:
                raise ValueError(f"analysis.opening_modes.{key}: pattern {p!r} is not a regular expression: {e}")
        if patterns.get(key):
            out.append((mode, re.compile("|".join(f"(?:{p})" for p in patterns[key]), re.IGNORECASE)))
    return out


def opening_modes(texts: Sequence[str | None], patterns: dict[str, Sequence[str]]) -> np.ndarray:
    """The mode ("DRI", "DAI" or "other") of each response text; rules in the module docstring."""
    rules = compile_modes(patterns)
    out = []
    for t in texts:
        s = str(t or "").lstrip(_LEADING)
        out.append(next((mode for mode, rx in rules if rx.match(s)), "other"))
    return np.array(out, dtype=object)
