r"""The instruction-following protocol every instruction family shares: kwargs validation, strict
and loose scoring (IFEval's, Zhou et al. 2023; IFBench and IF-RLVR score the same way).

A family module (`ifeval`, `ifbench`, `iftrain`) holds its checkers in `REGISTRY`
(id -> (checker, required kwargs {name: kind}, optional kwargs)), its ids in `INSTRUCTION_IDS`
and, where it has them, `check_kwargs(id, kw)` (its own value checks, after the name and type
checks here), `unavailable_reason(id)` (an id it knows but cannot score here) and
`prefetched(items)` (a context in which scoring `items` finds what it needs, e.g. IFEval's
batched language detection). The registry of a job is the union of the families it may load
(families.py): an id of a family the job did not name is an error naming that family, never a
checker its code hash does not cover. A checker takes (response, kwargs-without-None, prompt)
and returns bool. Deviations from upstream are listed in each family's module (`ifeval` for the
protocol's own).
"""

from __future__ import annotations

import contextlib
import functools
from dataclasses import dataclass
from typing import Any

from rlvr_support.scoring.reasoning import strip_reasoning
from rlvr_support.scoring.verifiers import families

RELATIONS = ("less than", "at least")
# kwarg kinds of the registries
STR, INT, LIST, REL = "str", "int", "list[str]", "relation"


class InstructionError(ValueError):
    """Bad instruction id or kwargs in the prompt data."""


@functools.lru_cache(maxsize=None)
def _registry(key: frozenset | None) -> dict:
    """id -> (checker, required, optional, family module) over the families the job may load."""
    out: dict = {}
    for name in families.instruction_families():
        fam = families.load(name)
        shared = set(out) & set(fam.REGISTRY)
        if shared:
            raise RuntimeError(f"instruction ids in two registries: {sorted(shared)}")
        out.update({iid: (*entry, fam) for iid, entry in fam.REGISTRY.items()})
    return out


def registry() -> dict:
    return _registry(families.allowed())


def _family_of(instruction_id: str):
    """The loaded family that knows `instruction_id` (scorable here or not), or None."""
    entry = registry().get(instruction_id)
    if entry is not None:
        return entry[3]
    for name in families.instruction_families():
        fam = families.load(name)
        if instruction_id in fam.INSTRUCTION_IDS:
            return fam
    return None


def _unknown(instruction_id: str) -> str:
    owner = families.owner(instruction_id)
    if owner is not None and owner not in families.instruction_families():
        named = ", ".join(families.instruction_families()) or "none"
        return (f"instruction id {instruction_id!r} is {families.TITLES[owner]}'s ({owner}), not among the instruction "
                f"verifiers this job's rule named and hashed ({named}); data/verifiers.py derives them from the "
                "config's source formats")
    return f"unknown instruction id {instruction_id!r}"


def unavailable_reason(instruction_id: str) -> str | None:
    """Why an id its family knows cannot be scored here (e.g. a checker's package is missing), or None."""
    fam = _family_of(instruction_id)
    reason = getattr(fam, "unavailable_reason", None)
    return reason(instruction_id) if reason else None


def check_bounds(required: dict, kw: dict, positive=(), non_empty=None) -> None:
    """Value checks families share: an int kwarg is >= 0 (>= 1 if named in `positive`), a str kwarg
    named in `non_empty` (None: every str kwarg) is not blank."""
    for name, kind in required.items():
        value = kw[name]
        low = 1 if name in positive else 0
        if kind == INT and value < low:
            raise ValueError(f"kwarg {name!r} must be >= {low}, got {value}")
        if kind == STR and (non_empty is None or name in non_empty) and not value.strip():
            raise ValueError(f"kwarg {name!r} must not be empty, got {value!r}")


# ---------------------------------------------------------------------------
# Validation and kwargs normalisation.


def _check_type(value: Any, kind: str) -> Any:
    """Return the normalised value, or raise TypeError/ValueError with a reason."""
    if kind == STR:
        if not isinstance(value, str):
            raise TypeError(f"expected a string, got {type(value).__name__}")
        return value
    if kind == REL:
        if value not in RELATIONS:
            raise ValueError(f"expected one of {RELATIONS}, got {value!r}")
        return value
    if kind == INT:
        # Data loaded through pandas may carry ints as floats (3.0): accept those.
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise TypeError(f"expected an integer, got {type(value).__name__}")
        if isinstance(value, float) and not value.is_integer():
            raise TypeError(f"expected an integer, got {value!r}")
        return int(value)
    if kind == LIST:
        if isinstance(value, str) or not all(isinstance(x, str) for x in value):
            raise TypeError("expected a list of strings")
        return tuple(value)
    raise AssertionError(kind)


def _normalise(instruction_id: str, kwargs: dict) -> dict:
    """Drop None-valued keys, check names and types. Raises (Key|Type|Value)Error."""
    fam = _family_of(instruction_id)
    if fam is None:
        raise KeyError(_unknown(instruction_id))
    reason = unavailable_reason(instruction_id)
    if reason is not None:
        raise KeyError(f"{families.TITLES[fam.__name__.rsplit('.', 1)[1]]} instruction {instruction_id!r} is not "
                       f"available here: {reason}")
    if kwargs is None:
        kwargs = {}
    if not isinstance(kwargs, dict):
        raise TypeError(f"kwargs must be a dict, got {type(kwargs).__name__}")
    _, required, optional, _ = registry()[instruction_id]
    given = {k: v for k, v in kwargs.items() if v is not None}
    out = {}
    for name, value in given.items():
        kind = required.get(name) or optional.get(name)
        if kind is None:
            raise KeyError(f"unknown kwarg {name!r} (expected {sorted(required) + sorted(optional)})")
        try:
            out[name] = _check_type(value, kind)
        except (TypeError, ValueError) as e:
            raise type(e)(f"kwarg {name!r}: {e}") from None
    missing = [name for name in required if name not in out]
    if missing:
        raise KeyError(f"missing required kwarg(s) {missing}")
    check = getattr(fam, "check_kwargs", None)
    if check is not None:
        check(instruction_id, out)
    return out


def validate_instructions(instruction_id_list: list[str], kwargs: list[dict], prompt_id: str) -> None:
    """Raise InstructionError naming the prompt and instruction if the spec is bad."""
    if isinstance(instruction_id_list, str) or not hasattr(instruction_id_list, "__len__"):
        raise InstructionError(f"prompt {prompt_id!r}: instruction_id_list must be a list")
    if kwargs is None or isinstance(kwargs, (str, dict)) or len(kwargs) != len(instruction_id_list):
        n = None if kwargs is None or isinstance(kwargs, (str, dict)) else len(kwargs)
        raise InstructionError(
            f"prompt {prompt_id!r}: kwargs must be a list with one dict per instruction "
            f"({len(instruction_id_list)} instructions {list(instruction_id_list)}, "
            f"got {n if n is not None else type(kwargs).__name__})"
        )
    for iid, kw in zip(instruction_id_list, kwargs):
        try:
            _normalise(iid, kw)
        except (KeyError, TypeError, ValueError) as e:
            msg = e.args[0] if e.args else str(e)
            raise InstructionError(f"prompt {prompt_id!r}, instruction {iid!r}: {msg}") from None


@functools.lru_cache(maxsize=4096)
def _normalise_cached(instruction_id: str, frozen: tuple, key: frozenset | None) -> dict:
    # `key` (the families the job may load) is part of the cache key: an id refused under one
    # restriction is not accepted from the cache under another.
    return _normalise(instruction_id, {k: (list(v) if isinstance(v, tuple) else v) for k, v in frozen})


def _freeze(kwargs: dict | None) -> tuple:
    if not kwargs:
        return ()
    return tuple(
        sorted((k, tuple(v) if isinstance(v, list) else v) for k, v in kwargs.items() if v is not None)
    )


def _prepared(instruction_id: str, kwargs: dict | None) -> dict:
    try:
        return _normalise_cached(instruction_id, _freeze(kwargs), families.allowed())
    except TypeError:  # unhashable value: fall back to the uncached path
        return _normalise(instruction_id, kwargs or {})


# ---------------------------------------------------------------------------
# Public scoring API.


def check_instruction(instruction_id: str, response: str, kwargs: dict, prompt: str) -> bool:
    """Strict check of one instruction. Raises InstructionError on bad id/kwargs."""
    try:
        kw = _prepared(instruction_id, kwargs)
    except (KeyError, TypeError, ValueError) as e:
        msg = e.args[0] if e.args else str(e)
        raise InstructionError(f"instruction {instruction_id!r}: {msg}") from None
    if not response.strip():  # upstream: `response.strip() and check(...)`
        return False
    return bool(registry()[instruction_id][0](response, kw, prompt))


def loose_variants(response: str) -> list[str]:
    """IFEval's 8 loose variants (lm-eval utils.test_instruction_following_loose)."""
    lines = response.split("\n")
    drop_first = "\n".join(lines[1:]).strip()
    drop_last = "\n".join(lines[:-1]).strip()
    drop_both = "\n".join(lines[1:-1]).strip()
    variants = [response, response.replace("*", ""), drop_first, drop_last, drop_both]
    variants += [drop_first.replace("*", ""), drop_last.replace("*", ""), drop_both.replace("*", "")]
    return variants


@contextlib.contextmanager
def prefetched(items: list[tuple[str, list[str], list[dict], str]]):
    """Within the block, score_if(*item) finds what each family prefetches for it (IFEval: the
    languages it needs detected, in one batch). items: (text, instruction_id_list, kwargs, prompt),
    text already stripped of reasoning. Only speed changes."""
    with contextlib.ExitStack() as stack:
        for name in families.instruction_families():
            hook = getattr(families.load(name), "prefetched", None)
            if hook is not None:
                stack.enter_context(hook(items))
        yield


@dataclass(frozen=True)
class IFResult:
    """Per-instruction strict and loose outcomes for one response."""

    strict: tuple[bool, ...]
    loose: tuple[bool, ...]

    @property
    def prompt_strict(self) -> bool:
        return all(self.strict)

    @property
    def prompt_loose(self) -> bool:
        return all(self.loose)

    @property
    def frac_strict(self) -> float:
        return sum(self.strict) / len(self.strict) if self.strict else 1.0

    @property
    def frac_loose(self) -> float:
        return sum(self.loose) / len(self.loose) if self.loose else 1.0


def score_if(
    response: str,
    instruction_id_list: list[str],
    kwargs: list[dict],
    prompt: str,
    reasoning: str = "none",
) -> IFResult:
    """Score one response against its instructions, strict and loose (IFEval)."""
    if len(kwargs) != len(instruction_id_list):
        raise InstructionError(
            f"kwargs has {len(kwargs)} entries for {len(instruction_id_list)} instructions"
        )
    text = strip_reasoning(response, reasoning)
    variants = None
    strict, loose = [], []
    for iid, kw in zip(instruction_id_list, kwargs):
        ok = check_instruction(iid, text, kw, prompt)
        strict.append(ok)
        if not ok:  # loose >= strict since variant 0 is the response itself
            if variants is None:
                variants = loose_variants(text)[1:]
            ok = any(check_instruction(iid, v, kw, prompt) for v in variants)
        loose.append(ok)
    return IFResult(strict=tuple(strict), loose=tuple(loose))
