"""The remedies a chain variant may switch on, as the config and the code hash see them: each one's name, its
parameters' defaults and the modules under training/ its job loads by name. One entry per remedy, in the order
an unknown name's error lists them.

The trainer's side of a remedy (its checks and its hooks into rollouts, rewards, advantages and the loss) is one
module, training/remedies/<name>.py, registered under the same name. The two halves live in two layers because
they are read at different times: the workflow fills a variant's defaults (config/defaults.py) and names a train
job's code (lineage/job_code.py, through training/remedy_code.py) while it parses the config, before any training
code is imported, and config/ imports nothing from training/ (tests/test_import_graph.py). Keeping the hooks out
of here also keeps them out of the code of every job that imports config/defaults.py (score, pretrain, ...): an
edit of a hook reruns the train jobs only.

`REMEDY_DEFAULTS` and `REMEDY_MODULES` are live read-only views of the declared remedies, so a remedy declared
later (a test's) is in them too. Module names are relative to training/, never dotted `rlvr_support.` strings:
lineage/codehash.py would count those as imports of this module.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass


def _always(params: dict) -> bool:
    return True


@dataclass(frozen=True)
class RemedySpec:
    """`defaults`: every parameter's default (workflow/schemas/config.schema.yaml repeats them for the reader;
    tests/test_config_reference.py checks both agree); `modules`: the modules under training/ the remedy runs
    beyond the trainer, loaded by name (training/remedy_code.py) where `loads(params)` holds."""

    name: str
    defaults: dict
    modules: tuple[str, ...] = ()
    loads: Callable[[dict], bool] = _always


REMEDIES: dict[str, RemedySpec] = {}


def declare(spec: RemedySpec) -> RemedySpec:
    """Add `spec` to the remedies a variant may name; a name declared twice is an error."""
    if spec.name in REMEDIES:
        raise ValueError(f"remedy {spec.name!r} is declared twice")
    REMEDIES[spec.name] = spec
    return spec


class _View(Mapping):
    """name -> one field of each declared remedy, for the remedies where `keep(field)` holds."""

    def __init__(self, field: str, keep: Callable[[object], bool] = bool):
        self._field, self._keep = field, keep

    def _names(self) -> list[str]:
        return [n for n, s in REMEDIES.items() if self._keep(getattr(s, self._field))]

    def __getitem__(self, name: str):
        if name not in self._names():
            raise KeyError(name)
        return getattr(REMEDIES[name], self._field)

    def __iter__(self) -> Iterator[str]:
        return iter(self._names())

    def __len__(self) -> int:
        return len(self._names())

    def __repr__(self) -> str:
        return repr(dict(self))


# every remedy, even one without parameters
REMEDY_DEFAULTS: Mapping[str, dict] = _View("defaults", keep=_always)
REMEDY_MODULES: Mapping[str, tuple[str, ...]] = _View("modules")  # the remedies that load a module


def _kl_loads_advantages(params: dict) -> bool:
    return params["estimator"] == "k1" or params["where"] == "reward"  # k3 in the loss is TRL's own beta term


declare(RemedySpec("kl", {"beta": 0.05, "estimator": "k3", "where": "loss", "reset_every": 0, "reset_optimizer": False},
                   ("advantages",), loads=_kl_loads_advantages))
declare(RemedySpec("routing", {"gamma": 0.5, "tokens": 4}))
# its per-token term rides on the recomputed group advantages
declare(RemedySpec("distill", {"coef": 0.5, "teacher": "parent"}, ("advantages",)))
declare(RemedySpec("inverse_success", {"alpha": 1.0}, ("advantages",)))
# distribution-level calibration (the memory network)
declare(RemedySpec("memory", {"mu": 0.3, "hidden": 64, "lr": 0.01, "steps": 1}, ("memory_net",)))
declare(RemedySpec("passk", {"k": 4}, ("advantages",)))
declare(RemedySpec("unlikeliness", {"beta": 0.5}, ("advantages",)))
# the remedies TRL implements itself run inside TRL's trainer: no module of ours
declare(RemedySpec("clip_higher", {"epsilon_low": 0.2, "epsilon_high": 0.28}))
declare(RemedySpec("entropy_bonus", {"coef": 0.01}))
