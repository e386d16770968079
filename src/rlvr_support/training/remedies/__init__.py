"""The trainer's side of the remedies: one module per remedy, registered under its config key, in the style of
verl's registered advantage estimators (verl/trainer/ppo/core_algos.py, `register_adv_est`).

SupportGRPOTrainer (training/trainer.py) builds the remedies a stage switches on (`build`) and calls their hooks
at its override points, instead of testing each name. A remedy is declared with its defaults and the modules
its job loads in config/remedies.py (read when the workflow parses the config, before any training code), and
here subclasses `Remedy` (training/remedies/registry.py), sets `name`, overrides the hooks it needs (the base
class's do nothing) and is decorated with `register`; its import below puts it into the registry.
A remedy reaches training/advantages.py and training/memory_net.py only through training/remedy_code.py `load`,
so that a stage's code hash covers them only when its variant turns a remedy that names them on.

Hooks run in the order the remedies are imported at the bottom of this module (a remedy registered later runs
after them). Where two remedies act on the same thing the order matters: the unlikeliness reward rescales the
task reward before the KL penalty is subtracted from it; and `check_remedies` reports pass@k's error first.
"""

from __future__ import annotations

from rlvr_support.training.remedies.registry import (REGISTRY, Remedy, ScoredBatch, build, register,  # noqa: F401
                                                     registered)

# The built-in remedies, in hook order (see the top); each registers itself as it is imported.
from rlvr_support.training.remedies import passk, unlikeliness, routing, kl  # noqa: F401,I001
from rlvr_support.training.remedies import inverse_success, distill, memory  # noqa: F401,I001
from rlvr_support.training.remedies import clip_higher, entropy_bonus  # noqa: F401,I001
