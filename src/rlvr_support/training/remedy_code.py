"""The modules a remedy runs beyond the trainer itself, loaded by name only when the stage's chain
variant turns the remedy on.

training/trainer.py reaches them through `load` and imports neither, so a plain stage's code hash
(lineage/job_code.py) covers neither: editing the memory network reruns the memory variants only,
and editing the advantage remedies reruns the stages that recompute advantages or the k1 KL. The
remedies TRL implements itself (k3 KL in the loss, clip-higher, the entropy bonus) run inside the
trainer and TRL. Module names are relative to training/, never dotted `rlvr_support.` strings,
so lineage/codehash.py does not count them as imports of this module.
"""

from __future__ import annotations

import importlib
from types import ModuleType

from rlvr_support.config.defaults import with_remedy_defaults

# remedy -> its modules under training/ (kl: see modules_of)
REMEDY_MODULES: dict[str, tuple[str, ...]] = {
    "memory": ("memory_net",),  # distribution-level calibration (the memory network)
    "passk": ("advantages",),
    "inverse_success": ("advantages",),
    "unlikeliness": ("advantages",),
    "distill": ("advantages",),  # its per-token term rides on the recomputed group advantages
}


def modules_of(remedies: dict | None) -> tuple[str, ...]:
    """The modules (dotted, below rlvr_support) the switched-on `remedies` run, sorted."""
    r = with_remedy_defaults(remedies)
    names = {m for name in r for m in REMEDY_MODULES.get(name, ())}
    kl = r.get("kl")
    if kl and (kl["estimator"] == "k1" or kl["where"] == "reward"):  # k3 in the loss is TRL's own beta
        names.add("advantages")
    return tuple(f"training.{m}" for m in sorted(names))


def load(remedies: dict | None, module: str) -> ModuleType:
    """training/<module>, which only the remedies naming it may run (its code is hashed only then)."""
    if f"training.{module}" not in modules_of(remedies):
        raise RuntimeError(f"training/{module}.py runs only under the remedies that name it (REMEDY_MODULES); "
                           f"this stage's are {sorted(remedies or {})}")
    return importlib.import_module(f"{__package__}.{module}")
