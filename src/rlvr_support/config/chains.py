"""The chain grammar, defined once: `math`, `math-if`, `math-if~kl`.

A chain is a sequence of RLVR stages (tasks), optionally with a mitigation variant that
applies to its LAST stage: `math-if~kl` trains `if` with variant `kl` from the `math`
checkpoint. workflow/rules/common.smk (wildcards, parents), config validation and the
analyses (same-task / cross-task rows, remedy comparison) all parse chains here.
"""

from __future__ import annotations

import re

TASKS = ("math", "if", "joint")
_TASK = "|".join(TASKS)
# a regex for Snakemake's wildcard constraints (no anchors) and for full matches below
CHAIN_RE = rf"({_TASK})(-({_TASK}))*(~[a-z][a-z0-9_-]*)?"


def parse_chain(chain: str) -> tuple[list[str], str | None]:
    """`math-if~kl` -> (["math", "if"], "kl"); the variant is None for a plain chain."""
    if not re.fullmatch(CHAIN_RE, chain):
        raise ValueError(f"chain {chain!r} is not stages of {'/'.join(TASKS)} joined by '-', "
                         "optionally followed by ~variant")
    stages, _, variant = chain.partition("~")
    return stages.split("-"), variant or None


def stages(chain: str) -> list[str]:
    """`math-if~kl` -> ['math', 'if'] (a mitigation variant does not change the tasks trained on)."""
    return parse_chain(chain)[0]


def variant(chain: str) -> str | None:
    return parse_chain(chain)[1]


def parent_chain(chain: str) -> str | None:
    """The chain whose checkpoint this one continues from (`math-if~kl` -> `math`); None: the base."""
    s = stages(chain)
    return "-".join(s[:-1]) if len(s) > 1 else None


def stage_task(chain: str) -> str:
    """The task the chain's last stage trains on."""
    return stages(chain)[-1]



def distill_teacher(config: dict, chain: str) -> tuple[str, int, bool] | None:
    """(teacher, its step along the teacher chain, whether it is a kept trajectory point) of a chain
    whose variant distils; None otherwise. `teacher` is `base` (step 0) or the parent chain: its final
    weights (step rl.steps), or with `distill.teacher_step: s` the weights its stage kept at step s,
    so teachers along the teacher chain's training can be compared (the support-reshaping paper's sweet spot)."""
    name = variant(chain)
    distill = (config.get("variants", {}).get(name) or {}).get("distill") if name else None
    if not distill:
        return None
    parent = parent_chain(chain)
    if distill.get("teacher", "parent") == "base" or parent is None:  # a one-stage chain's parent is the base
        return "base", 0, False
    step = distill.get("teacher_step")
    return (parent, step, True) if step else (parent, config.get("rl", {}).get("steps"), False)
