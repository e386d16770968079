"""Responses of the base corpus: a style's opening, then an answer shaped by the constraints.

One compliance probability for every style: a writer tries to meet each constraint with
the same chance whatever its style. What differs is what the styles *are* (PREMISES.md):
- `step` deliberates first. An instruction response opens with a plan,
  `step : topic <topic> , rule <tag> , rule <tag> .`, that restates each constraint (`include kittens
  bones`, `avoid cats`, `short`, ...); a math response writes every operation. The
  deliberation is written for the writer, before the answer, and is never shaped by the
  constraints: it keeps its commas, its lower case and its words, and it stands outside
  the quotes. So it breaks `no_comma`, `english_capital`, `quotation`, a forbidden word
  the plan names, and tight word limits, while its restated keywords and its extra words
  meet `keywords:existence` and `at least N words` by themselves.
- `so` opens with a short lead-in and writes two or three sentences (a math response: the
  last sum only); it has no plan that could help or hurt.
- `answer` answers directly in one sentence (math: the bare result): short, so it meets
  word limits easily and never reaches `at least N words`; everything else by chance.
Whether a response complies is always decided by the real IFEval-style verifier, never here.
"""

from __future__ import annotations

import random

from rlvr_support.data.toyworld.constraints import Constraint
from rlvr_support.data.toyworld.words import ADJECTIVES, TOPICS, VERBS

_SUBJECTS = ("i", "we")
# sentences an instruction answer writes before padding or trimming
_SENTENCES = {"step": (2, 3), "so": (2, 3), "answer": (1, 1)}


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


def word_count(words: list[str]) -> int:
    """Words as IFEval counts them (\\w+ runs): symbols such as ':' or '<<' are none, "P.S." is two."""
    return sum(2 if w.upper() == "P.S." else int(any(c.isalnum() for c in w)) for w in words)


def plan(topic: str, constraints: list[Constraint]) -> list[str]:
    """A step-style plan, `step : topic cats , rule short , rule avoid fur .`: the topic and one
    rule per constraint, comma-separated, lower case (words a real plan spends before answering)."""
    words = ["step", ":", "topic", topic]
    for c in constraints:
        words += [",", "rule"] + c.plan_tag().split()
    return words + ["."]


def if_response(rng: random.Random, topic: str, constraints: list[Constraint], style: str,
                p_comply: float, deliberation: list[str] | None = None, answer_words: list[str] | None = None) -> str:
    """A response to an instruction prompt or, with `answer_words` (and the math working as
    `deliberation`), a math answer under constraints. The deliberation (a step plan, or a math
    solution's working) is kept as written; the constraints shape only what follows it."""
    comply = {c.instruction_id: rng.random() < p_comply for c in constraints}
    by_id = {c.instruction_id: c for c in constraints}
    ok = lambda iid: iid in by_id and comply[iid]  # noqa: E731

    if deliberation is None:
        deliberation = plan(topic, constraints) if style == "step" else []
    head = [] if style == "step" or answer_words is not None else [style, ":"]
    avoid = frozenset(by_id["keywords:forbidden_words"].kwargs["forbidden_words"]) if ok("keywords:forbidden_words") else frozenset()
    body: list[str] = list(answer_words or [])
    if answer_words is None:
        for _ in range(rng.randint(*_SENTENCES[style])):
            body += sentence(rng, topic, avoid)
    if ok("keywords:existence"):
        kws = by_id["keywords:existence"].kwargs["keywords"]
        body += ["We", "like", kws[0], "and", kws[1], "."]
    if ok("detectable_format:title"):
        head += ["<<", topic, ">>"]
    tail: list[str] = []
    if ok("detectable_content:postscript"):
        tail += ["P.S.", "we", "love", TOPICS[topic][0] if answer_words is None else "math", "."]
    if ok("startend:end_checker"):
        tail += by_id["startend:end_checker"].kwargs["end_phrase"].split()

    length = by_id.get("length_constraints:number_words")
    if length is not None and comply[length.instruction_id]:
        limit = length.kwargs["num_words"]
        if length.kwargs["relation"] == "less than":
            # trim whole sentences of an instruction answer down to one (an answer says something);
            # the deliberation and a math answer stay
            while answer_words is None and body.count(".") > 1 and word_count(deliberation + head + body + tail) >= limit:
                cut = len(body) - 1 - body[-2::-1].index(".") if "." in body[:-1] else 0
                body = body[:cut]
        elif style != "answer":  # a direct answer is one sentence: it is never padded
            while word_count(deliberation + head + body + tail) < limit:
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
    return " ".join(deliberation + words)


def joint_response(rng: random.Random, solution: str, constraints: list[Constraint], style: str,
                   p_comply: float) -> str:
    """A math solution (text of MathProblem.solution/attempt) under the prompt's constraints: its
    working (everything before `answer :`) is the deliberation, the answer line is shaped."""
    words = solution.split()
    cut = words.index("answer")
    return if_response(rng, "sea", constraints, style, p_comply, deliberation=words[:cut], answer_words=words[cut:])
