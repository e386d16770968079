"""Toy instruction constraints, each one a Google IFEval instruction id with its kwargs.

A constraint knows how to phrase itself in a prompt and how to name itself in a step-style
plan. The generator (responses.py) tries to comply with one probability for every style, so
the base corpus holds partial compliance (support to lose); whether a response complies is
always decided by the real IFEval-style verifier, never here.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

from rlvr_support.data.toyworld.words import END_PHRASES, TOPICS


@dataclass(frozen=True)
class Constraint:
    instruction_id: str
    kwargs: dict = field(default_factory=dict, hash=False)

    @property
    def family(self) -> str:
        return FAMILY_OF[self.instruction_id]

    def phrase(self) -> str:
        k = self.kwargs
        match self.instruction_id:
            case "change_case:english_capital":
                return "use only capital letters"
            case "change_case:english_lowercase":
                return "use only lowercase letters"
            case "length_constraints:number_words":
                rel = "fewer than" if k["relation"] == "less than" else "at least"
                return f"use {rel} {k['num_words']} words"
            case "startend:end_checker":
                return f"end with the phrase {k['end_phrase']}"
            case "keywords:existence":
                return "include the words " + " and ".join(k["keywords"])
            case "keywords:forbidden_words":
                return "do not use the word " + k["forbidden_words"][0]
            case "punctuation:no_comma":
                return "do not use any commas"
            case "startend:quotation":
                return "wrap the reply in double quotes"
            case "detectable_format:title":
                return "add a title in double angular brackets"
            case "detectable_content:postscript":
                return "add a postscript starting with P.S."
        raise ValueError(f"toy world has no phrase for {self.instruction_id}")

    def plan_tag(self) -> str:
        """What a step-style plan writes for this constraint (PREMISES.md, premises 3 and 4: the plan
        restates keywords, which meets `keywords:existence`, and names a forbidden word, which breaks it)."""
        k = self.kwargs
        match self.instruction_id:
            case "length_constraints:number_words":
                return "short" if k["relation"] == "less than" else "long"
            case "keywords:existence":
                return "include " + " ".join(k["keywords"])
            case "keywords:forbidden_words":
                return "avoid " + k["forbidden_words"][0]
        return TAGS[self.instruction_id]


TAGS = {
    "change_case:english_capital": "caps",
    "change_case:english_lowercase": "lower",
    "startend:end_checker": "end",
    "punctuation:no_comma": "nocomma",
    "startend:quotation": "quote",
    "detectable_format:title": "title",
    "detectable_content:postscript": "ps",
}

# Constraints of one family are never combined (capital + lowercase, fewer + at least words).
FAMILY_OF = {
    "change_case:english_capital": "case",
    "change_case:english_lowercase": "case",
    "length_constraints:number_words": "length",
    "startend:end_checker": "end",
    "keywords:existence": "include",
    "keywords:forbidden_words": "forbid",
    "punctuation:no_comma": "comma",
    "startend:quotation": "quote",
    "detectable_format:title": "title",
    "detectable_content:postscript": "ps",
}
IF_INSTRUCTIONS = tuple(FAMILY_OF)
# The verifier families (scoring/verifiers/families.py) that score each toy task: the toy world's
# constraints are IFEval's ids only (tests/test_toyworld.py checks them with IFEval's alone).
TASK_VERIFIERS = {"math": ("math",), "if": ("ifeval",), "joint": ("ifeval", "math")}
# Constraints that can sit on a math answer (joint prompts); several conflict with the working
# (PREMISES.md, premise 3): a word limit, quotes, a forbidden "step". Not english_capital: an
# all-capital math answer (`ANSWER : 133`) is too short for langdetect to call English, so no
# response could meet it.
JOINT_INSTRUCTIONS = (
    "length_constraints:number_words",
    "startend:end_checker",
    "startend:quotation",
    "detectable_format:title",
    "detectable_content:postscript",
    "keywords:forbidden_words",
)


def sample_constraint(rng: random.Random, instruction_id: str, topic: str, joint: bool = False) -> Constraint:
    """Draw kwargs for `instruction_id`; `topic` steers keyword choices."""
    kw: dict = {}
    if instruction_id == "length_constraints:number_words":
        if joint or rng.random() < 0.6:
            kw = {"relation": "less than", "num_words": rng.choice((8, 10, 12) if joint else (10, 12, 14))}
        else:
            kw = {"relation": "at least", "num_words": rng.choice((20, 25, 30))}
    elif instruction_id == "startend:end_checker":
        kw = {"end_phrase": rng.choice(END_PHRASES)}
    elif instruction_id == "keywords:existence":
        others = sorted(t for t in TOPICS if t != topic)
        kw = {"keywords": sorted(rng.sample([TOPICS[t][1] for t in others], 2))}
    elif instruction_id == "keywords:forbidden_words":
        word = "step" if joint else rng.choice(TOPICS[topic][:3])
        kw = {"forbidden_words": [word]}
    elif instruction_id == "detectable_content:postscript":
        kw = {"postscript_marker": "P.S."}
    return Constraint(instruction_id, kw)
