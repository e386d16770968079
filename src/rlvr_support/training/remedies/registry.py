"""The remedy registry's mechanics: the `Remedy` base class whose hooks SupportGRPOTrainer calls, the
`register` decorator, and the switched-on remedies of a stage in hook order (training/remedies/__init__.py
says how a remedy is added). Kept apart from the package's __init__, which imports the built-in remedies, so
that a remedy's module imports this one without an import cycle.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from rlvr_support.config.remedies import REMEDIES


class Remedy:
    """One switched-on remedy of a trainer, `params` its parameters with the defaults filled in.

    The hooks get the SupportGRPOTrainer as `trainer` and may use what GRPOTrainer has (`accelerator`,
    `_metrics`, `num_generations`, ...) and what the subclass adds for its remedies: `remedies`, `_ref` and
    `_teacher` (the frozen reference and teacher, training/frozen.py), `kl_reference()`, `_logps(model, out)`
    (per-token log-probs of a scored batch) and `_sample_continuations`.
    """

    name = ""
    shapes_rollouts = False  # rollouts go through the remedy path: `rollout_prefixes`, `logits_processors`
    samples_with_processors = False  # its logits processors need HF generate (not the fast sampler)

    def __init__(self, params: dict):
        self.params = params

    # ---- parameters, before any model is loaded (training/stage.py)
    @classmethod
    def validate(cls, params: dict) -> None:
        """Raise ValueError for parameters that are wrong whatever the stage (`resolve_remedies`)."""

    @classmethod
    def check(cls, params: dict, group_size: int) -> None:
        """Raise ValueError for what the schema cannot check, e.g. against the group size (`check_remedies`)."""

    @classmethod
    def grpo_kwargs(cls, params: dict) -> dict:
        """GRPOConfig keys through which TRL itself implements the remedy (`remedy_grpo_kwargs`)."""
        return {}

    # ---- the trainer
    def setup(self, trainer) -> None:
        """After GRPOTrainer.__init__ (and the frozen models' placement): state the remedy keeps."""

    # ---- a training step's rollouts (`_generate_single_turn`)
    def rollout_prefixes(self, trainer, prompt_ids: list[list[int]], max_len: int) -> dict[int, list[int]]:
        """{row: prefix} of rollouts whose first tokens the remedy draws; the policy continues them."""
        return {}

    def logits_processors(self, trainer) -> list:
        """Factories `prompt_width -> LogitsProcessor` the policy's continuations are sampled through."""
        return []

    def after_rollouts(self, trainer, completions: list[list[int]], prefixes: list[list[int]]) -> None:
        """The step's completions (prefix included) and each one's remedy prefix."""

    # ---- a training step's scored batch (`_generate_and_score_completions`)
    def before_rollouts(self, trainer) -> None:
        """Before a training step's rollouts are generated."""

    def after_scoring(self, trainer, out: dict) -> None:
        """TRL's scored batch `out`, before the advantages are recomputed: add or mask what the loss reads."""

    def recomputes_advantages(self) -> bool:
        """Whether the step's advantages are recomputed (the hooks below run only then)."""
        return False

    def needs_policy_logps(self) -> bool:
        """Whether the advantage hooks read `batch.policy_logps`."""
        return False

    def shape_rewards(self, trainer, batch: ScoredBatch, rewards):
        """The whole batch's rewards (all processes, flat, group-major) before the group advantage."""
        return rewards

    def replace_advantages(self, trainer, batch: ScoredBatch, rewards):
        """Advantages replacing GRPO's group advantage of `rewards`, or None (at most one remedy may)."""
        return None

    def scale_advantages(self, trainer, batch: ScoredBatch, advantages):
        """The whole batch's sequence advantages, before NaNs are zeroed and this process's rows taken."""
        return advantages

    def token_advantages(self, trainer, batch: ScoredBatch, advantages):
        """This process's advantages, per sequence (N,) or per token (N, T); per token on return if it adds a term."""
        return advantages

    # ---- the loss (`_compute_loss`)
    def adds_loss_term(self) -> bool:
        return False

    def loss_term(self, trainer, inputs: dict, logps):
        """A term added to TRL's loss of the micro-batch `inputs`; `logps` the policy's per-token log-probs."""
        raise NotImplementedError


@dataclass
class ScoredBatch:
    """What the advantage hooks read: TRL's scored batch `out` (this process's rows), its completion mask (float),
    which rollouts of the whole batch succeeded, and the policy's per-token log-probs of this process's rows
    (None unless a switched-on remedy `needs_policy_logps`)."""

    out: dict
    mask: Any
    success: Any
    policy_logps: Any = None


REGISTRY: dict[str, type[Remedy]] = {}


def register(cls: type[Remedy]) -> type[Remedy]:
    """Class decorator: `cls` implements the remedy `cls.name`, which config/remedies.py must declare."""
    if cls.name not in REMEDIES:
        raise ValueError(f"remedy {cls.name!r}: declare its defaults and modules first (config/remedies.py)")
    if cls.name in REGISTRY:
        raise ValueError(f"remedy {cls.name!r} is registered twice")
    REGISTRY[cls.name] = cls
    return cls


def registered(remedies: dict) -> list[tuple[type[Remedy], dict]]:
    """(class, params) of each remedy in `remedies`, in hook order; a declared name without a class is an error."""
    missing = [name for name in remedies if name not in REGISTRY]
    if missing:
        raise ValueError(f"remedies.{missing[0]}: declared but not implemented "
                         "(no class registered in training/remedies/)")
    return [(cls, remedies[name]) for name, cls in REGISTRY.items() if name in remedies]


def build(remedies: dict) -> list[Remedy]:
    """The switched-on remedies (`remedies` with their defaults filled in), in hook order."""
    return [cls(params) for cls, params in registered(remedies)]
