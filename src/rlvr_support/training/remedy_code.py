"""The modules a remedy runs beyond the trainer itself, loaded by name only when the stage's chain
variant turns the remedy on.

The trainer and the remedies' hooks (training/trainer.py, training/remedies/) reach them through
`load` and import neither, so a plain stage's code hash (lineage/job_code.py) covers neither:
editing the memory network reruns the memory variants only, and editing the advantage remedies
reruns the stages that recompute advantages or the k1 KL. The remedies TRL implements itself (k3
KL in the loss, clip-higher, the entropy bonus) run inside the trainer and TRL. Which remedy loads
which module is declared with the remedy (config/remedies.py, REMEDY_MODULES), where the workflow
reads it at parse time.
"""

from __future__ import annotations

import importlib
from types import ModuleType

from rlvr_support.config.defaults import with_remedy_defaults
from rlvr_support.config.remedies import REMEDIES, REMEDY_MODULES  # noqa: F401 (REMEDY_MODULES: read from here too)


def modules_of(remedies: dict | None) -> tuple[str, ...]:
    """The modules (dotted, below rlvr_support) the switched-on `remedies` run, sorted."""
    r = with_remedy_defaults(remedies)
    names = {m for name, params in r.items() if REMEDIES[name].loads(params) for m in REMEDIES[name].modules}
    return tuple(f"training.{m}" for m in sorted(names))


def load(remedies: dict | None, module: str) -> ModuleType:
    """training/<module>, which only the remedies naming it may run (its code is hashed only then)."""
    if f"training.{module}" not in modules_of(remedies):
        raise RuntimeError(f"training/{module}.py runs only under the remedies that name it (REMEDY_MODULES); "
                           f"this stage's are {sorted(remedies or {})}")
    return importlib.import_module(f"{__package__}.{module}")
