"""Responses of the base corpus: a style opener, a body, and constraint compliance by chance.

Compliance probability depends on the style (a step-style plan restates the rules, so it
complies most often), but the plan's extra words count against word limits: the styles that
help one constraint hurt another, as real reasoning styles do.
"""

from __future__ import annotations

import random

from rlvr_support.data.toyworld.constraints import Constraint
from rlvr_support.data.toyworld.math_problems import MathProblem
from rlvr_support.data.toyworld.words import ADJECTIVES, TOPICS, VERBS

_SUBJECTS = ("i", "we")


def sentence(rng: random.Random, topic: str, avoid: frozenset[str] = frozenset()) -> list[str]:
    """One short sentence about `topic`, Title-cased first word, sometimes with a comma."""
    nouns = [w for w in TOPICS[topic] if w not in avoid]
    pattern = rng.randrange(4)
    if pattern == 0:
        words = [rng.choice(nouns), "are", rng.choice(ADJECTIVES)]
    elif pattern == 1:
        words = [rng.choice(_SUBJECTS), rng.choice(VERBS), rng.choice(nouns)]
    elif pattern == 2:
        words = ["many", rng.choice(nouns), "are", "very", rng.choice(ADJECTIVES)]
    else:
        words = [rng.choice(_SUBJECTS), rng.choice(VERBS), rng.choice(nouns), ",", "and",
                 rng.choice(nouns), "are", rng.choice(ADJECTIVES)]
    words[0] = words[0].capitalize()
    return words + ["."]


def _word_count(words: list[str]) -> int:
    # IFEval counts \w+ runs; symbols such as ':' or '<<' are not words, "P.S." is two.
    return sum(2 if w.upper() == "P.S." else int(any(c.isalnum() for c in w)) for w in words)


def if_response(rng: random.Random, topic: str, constraints: list[Constraint], style: str,
                p_comply: float, opener_words: list[str] | None = None) -> str:
    """A response to an instruction prompt (or, with `opener_words`, a math answer under constraints)."""
    comply = {c.instruction_id: rng.random() < p_comply for c in constraints}
    by_id = {c.instruction_id: c for c in constraints}
    ok = lambda iid: iid in by_id and comply[iid]  # noqa: E731

    if opener_words is not None:
        head = list(opener_words)
    elif style == "step":
        head = ["step", ":", topic] + sum(([";", c.plan_tag()] for c in constraints), []) + ["."]
        head = [w for tag in head for w in tag.split()]
    else:
        head = [style, ":"]

    avoid = frozenset(by_id["keywords:forbidden_words"].kwargs["forbidden_words"]) if ok("keywords:forbidden_words") else frozenset()
    body: list[str] = []
    if opener_words is None:
        n_sent = rng.randint(2, 3)
        for _ in range(n_sent):
            body += sentence(rng, topic, avoid)
    if ok("keywords:existence"):
        kws = by_id["keywords:existence"].kwargs["keywords"]
        body += ["We", "like", kws[0], "and", kws[1], "."]
    if ok("detectable_format:title"):
        head += ["<<", topic, ">>"]
    tail: list[str] = []
    if ok("detectable_content:postscript"):
        tail += ["P.S.", "we", "love", TOPICS[topic][0] if opener_words is None else "math", "."]
    if ok("startend:end_checker"):
        tail += by_id["startend:end_checker"].kwargs["end_phrase"].split()

    length = by_id.get("length_constraints:number_words")
    if length is not None and comply[length.instruction_id]:
        limit = length.kwargs["num_words"]
        if length.kwargs["relation"] == "less than":
            # Trim whole sentences; the head (style and plan) cannot be trimmed: a real conflict.
            while body and _word_count(head + body + tail) >= limit:
                cut = len(body) - 1 - body[-2::-1].index(".") if "." in body[:-1] else 0
                body = body[:cut]
        else:
            while _word_count(head + body + tail) < limit:
                body += sentence(rng, topic, avoid)

    words = head + body + tail
    if ok("punctuation:no_comma"):
        words = [w for w in words if w != ","]
    if ok("change_case:english_capital"):
        words = [w.upper() for w in words]
    elif ok("change_case:english_lowercase"):
        words = [w.lower() for w in words]
    if ok("startend:quotation"):
        words = ['"'] + words + ['"']
    return " ".join(words)


def joint_response(rng: random.Random, problem: MathProblem, constraints: list[Constraint], style: str,
                   p_comply: float) -> str:
    """A math solution in `style` with the prompt's constraints applied by chance."""
    # A forbidden "step" under the step style cannot comply: the opener itself breaks it.
    return if_response(rng, "sea", constraints, style, p_comply, opener_words=problem.solution(style).split())
