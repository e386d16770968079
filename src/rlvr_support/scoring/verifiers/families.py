"""Verifier families: the verifier modules a job loads, by name, and only the ones it names.

A job's code hash covers the verifier families its rule names (lineage/job_code.py), chosen from
the tasks and instruction ids its data uses (data/verifiers.py): a math stage covers the math
verifier only, an IF stage on IFEval-style data IFEval's checkers only. For that, no module
imports a family: scoring/score.py, the instruction protocol (instructions.py) and the data build
reach them through `load`, which refuses a family the job did not name. Every verb calls
`use_only` with its `--verifiers` (cli/main.py); without the call, as in tests and notebooks,
every family loads.

Module names are written here relative to scoring/verifiers, never as dotted `rlvr_support.`
strings, so lineage/codehash.py does not count them as imports of this module.
"""

from __future__ import annotations

import contextlib
import importlib
from types import ModuleType

# family -> its modules under scoring/verifiers, the one that defines the family last
FAMILIES: dict[str, tuple[str, ...]] = {
    "math": ("math",),  # math-verify in worker processes (_math_worker)
    "reasoning_gym": ("reasoning_gym",),  # reasoning_gym's own score_answer
    "ifeval": ("instructions", "ifeval"),  # IFEval's 25 instruction checkers
    "ifbench": ("instructions", "ifbench"),  # IFBench's 58 (their checkers in ifbench_checks)
    "iftrain": ("instructions", "iftrain"),  # IF-RLVR's 29 training constraints
}
TITLES = {"math": "math-verify", "reasoning_gym": "Reasoning Gym", "ifeval": "IFEval", "ifbench": "IFBench",
          "iftrain": "IFTrain"}
INSTRUCTION_FAMILIES = ("ifeval", "ifbench", "iftrain")
ALL = tuple(FAMILIES)

_allowed: frozenset[str] | None = None  # None: every family (no verb has said which)


def parse(spec: str) -> tuple[str, ...]:
    """`--verifiers` of a verb: comma-separated families (`math,ifeval`), `all`, or `none`."""
    if spec.strip() == "all":
        return ALL
    names = tuple(sorted({s.strip() for s in spec.split(",") if s.strip()} - {"none"}))
    unknown = [n for n in names if n not in FAMILIES]
    if unknown:
        raise ValueError(f"unknown verifier family {unknown[0]!r} (known: {', '.join(ALL)}, or all)")
    return names


def use_only(names) -> None:
    """From now on this process loads only the families `names`: a verb's `--verifiers`, the ones its
    rule hashes (cli/main.py calls this before the verb runs, so nothing is loaded before)."""
    global _allowed
    _allowed = frozenset(parse(",".join(names)))


@contextlib.contextmanager
def only(names):
    """use_only(names) inside the block, the previous restriction after it (a verb run in-process)."""
    global _allowed
    saved = _allowed
    use_only(names)
    try:
        yield
    finally:
        _allowed = saved


def allowed() -> frozenset[str] | None:
    return _allowed


def _module_name(module: str) -> str:
    return f"{__package__}.{module}"


def load(name: str) -> ModuleType:
    """The module of family `name`, imported on first use; refused when the job did not name it."""
    if name not in FAMILIES:
        raise ValueError(f"unknown verifier family {name!r} (known: {', '.join(ALL)})")
    if _allowed is not None and name not in _allowed:
        named = ", ".join(sorted(_allowed)) or "none"
        raise ValueError(f"this job's data needs the {TITLES[name]} verifier ({name}), which is not among the "
                         f"verifiers its rule named and hashed ({named}); data/verifiers.py derives them from the "
                         "config's tasks and source formats")
    out = None
    for module in FAMILIES[name]:
        out = importlib.import_module(_module_name(module))
    return out


def instruction_families() -> tuple[str, ...]:
    """The instruction families this job may load (all of them when no verb has restricted it)."""
    return tuple(f for f in INSTRUCTION_FAMILIES if _allowed is None or f in _allowed)


def instructions() -> ModuleType:
    """The instruction protocol (validation, strict/loose scoring: instructions.py), for a job that
    scores instructions; refused for one that named no instruction family."""
    if not instruction_families():
        raise ValueError("this job's data has instruction prompts, but its rule named no instruction verifier "
                         f"({', '.join(INSTRUCTION_FAMILIES)}) among its verifiers ({', '.join(sorted(_allowed))})")
    return importlib.import_module(_module_name("instructions"))


def owner(instruction_id: str) -> str | None:
    """The family whose instruction ids include `instruction_id`, whether or not the job may load it
    (for error messages only: it imports every instruction family)."""
    for name in INSTRUCTION_FAMILIES:
        if instruction_id in importlib.import_module(_module_name(FAMILIES[name][-1])).INSTRUCTION_IDS:
            return name
    return None


def modules(names) -> tuple[str, ...]:
    """The package modules (dotted, below rlvr_support) of the families `names`, for a job's code hash."""
    parse(",".join(names))  # unknown names are errors here too
    return tuple(dict.fromkeys(f"scoring.verifiers.{m}" for n in sorted(names) for m in FAMILIES[n]))
