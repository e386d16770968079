"""The verifier families a task's prompts need, read from the config before any data exists.

A job that scores (or builds) prompts loads only these families and its code hash covers only
these (scoring/verifiers/families.py, lineage/job_code.py): the toy world's tasks use math-verify
and IFEval's checkers (data/toyworld/constraints.py TASK_VERIFIERS); a `datasets` world's task uses
the families of its sources' formats (data/sources/formats.py VERIFIERS), of one split or of all; an
`imports` world's, those its imported base's entry names (`verifiers`), else the toy world's.
"""

from __future__ import annotations

from rlvr_support.data.sources.build import source_verifiers
from rlvr_support.data.toyworld.constraints import TASK_VERIFIERS


def task_verifiers(config: dict, task: str, split: str | None = None) -> tuple[str, ...]:
    """The families scoring `task`'s prompts of `split` (train | eval; None: both) need, sorted."""
    world = config["world"]
    if world["kind"] == "toy":
        return TASK_VERIFIERS[task]
    if world["kind"] == "imports":  # the imported base's entry names them, else the toy world's per task
        if split == "train" or task not in config["base"]["eval_sets"]:
            return ()
        return tuple(sorted(config["base"]["eval_sets"][task].get("verifiers") or TASK_VERIFIERS[task]))
    sources = world.get("tasks", {}).get(task, [])
    return tuple(sorted({f for src in sources if split in (None, src["split"]) for f in source_verifiers(src)}))


def verifiers_arg(names) -> str:
    """`--verifiers` of a verb: the families comma-separated, `none` for none."""
    return ",".join(sorted(set(names))) or "none"
