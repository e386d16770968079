"""A response split into its reasoning and its answer, for instruction following inside reasoning.

ReasonIF (Kwon et al. 2025) asks whether a reasoning model keeps the user's constraints in its
reasoning trace, not only in the answer it shows. Here a response is cut, by the first rule that
applies, into (reasoning, answer):

1. `<think> ... </think>`: the reasoning is inside the last closed block, the answer after it;
2. the last match of an `answer_markers` regular expression (the final answer line: `\\boxed{`,
   "The answer is", "Answer:", the toy world's `answer :`): the reasoning is the text before it,
   the answer the text from it on;
3. a leading match of a `reasoning_prefixes` expression (the toy world's `step : ...` plan ahead
   of the text it plans): that match is the reasoning, the rest the answer;
4. else there is no reasoning: the answer is the whole response.

A response "has reasoning" when its reasoning segment is not blank.
"""

from __future__ import annotations

import re

THINK_OPEN, THINK_CLOSE = "<think>", "</think>"


def compile_rules(cfg: dict) -> tuple[list[re.Pattern], list[re.Pattern]]:
    """(answer markers, reasoning prefixes) of `analysis.reasoning_if`, compiled; a bad one names its key."""
    out = []
    for key in ("answer_markers", "reasoning_prefixes"):
        pats = []
        for i, p in enumerate(cfg.get(key, [])):
            try:
                pats.append(re.compile(p))
            except re.error as e:
                raise ValueError(f"analysis.reasoning_if.{key}[{i}] {p!r}: {e}") from None
        out.append(pats)
    return out[0], out[1]


def split_reasoning(text: str, markers: list[re.Pattern], prefixes: list[re.Pattern]) -> tuple[str, str]:
    """(reasoning, answer) of one response; see the module docstring for the rules and their order."""
    close = text.rfind(THINK_CLOSE)
    if close >= 0:
        start = text.rfind(THINK_OPEN, 0, close)
        return text[start + len(THINK_OPEN) if start >= 0 else 0:close], text[close + len(THINK_CLOSE):]
    cut = max((m.start() for p in markers for m in p.finditer(text)), default=-1)  # the last marker
    if cut >= 0:
        return text[:cut], text[cut:]
    for p in prefixes:
        m = p.match(text)
        if m:
            return text[:m.end()], text[m.end():]
    return "", text
