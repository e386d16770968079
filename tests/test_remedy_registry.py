"""The remedy registry (config/remedies.py, training/remedies/): a new remedy is its declaration and its module,
nothing else. A test-only remedy, declared and registered here, gets its defaults filled in, its check run,
its code named for the code hash, and its hook called by the trainer in a real training step."""

from __future__ import annotations

from pathlib import Path

import pytest
import torch
import yaml
from test_trainer_values import G, assert_advantages, grouped, make_trainer, rewards_of

from rlvr_support.config import remedies as config_remedies
from rlvr_support.config.defaults import REMEDY_DEFAULTS, fill_defaults, with_remedy_defaults
from rlvr_support.training import advantages as adv
from rlvr_support.training import remedies
from rlvr_support.training.remedy_code import REMEDY_MODULES, modules_of
from rlvr_support.training.trainer import check_remedies, remedy_grpo_kwargs, resolve_remedies

SMOKE = Path(__file__).parent / "config" / "smoke.yaml"
BUILT_IN = ["kl", "routing", "distill", "inverse_success", "memory", "passk", "unlikeliness", "clip_higher",
            "entropy_bonus"]


class DoubleWinners(remedies.Remedy):
    """Test-only remedy: positive advantages times `factor` (a visible change of a step's advantages)."""

    name = "double_winners"

    @classmethod
    def check(cls, params, group_size):
        if params["factor"] <= 0:
            raise ValueError("remedies.double_winners.factor must be positive")

    def recomputes_advantages(self):
        return True

    def scale_advantages(self, trainer, batch, advantages):
        self.calls = getattr(self, "calls", 0) + 1
        return torch.where(advantages > 0, advantages * self.params["factor"], advantages)


@pytest.fixture
def double_winners(monkeypatch):
    """The test remedy declared (defaults; it runs training/advantages.py) and registered, for this test only."""
    spec = config_remedies.RemedySpec("double_winners", {"factor": 2.0}, ("advantages",))
    monkeypatch.setitem(config_remedies.REMEDIES, spec.name, spec)
    monkeypatch.setitem(remedies.REGISTRY, DoubleWinners.name, DoubleWinners)
    return DoubleWinners


def test_every_declared_remedy_has_its_module_and_the_views_keep_their_contents():
    assert list(config_remedies.REMEDIES) == BUILT_IN == list(REMEDY_DEFAULTS)
    assert set(remedies.REGISTRY) == set(BUILT_IN)
    assert all(remedies.REGISTRY[n].__module__ == f"rlvr_support.training.remedies.{n}" for n in BUILT_IN)
    assert REMEDY_DEFAULTS["passk"] == {"k": 4} and REMEDY_DEFAULTS["routing"] == {"gamma": 0.5, "tokens": 4}
    # the modules each remedy loads, as remedy_code.py listed them (kl loads advantages.py for k1 or the reward)
    assert dict(REMEDY_MODULES) == {"kl": ("advantages",), "distill": ("advantages",),
                                    "inverse_success": ("advantages",), "memory": ("memory_net",),
                                    "passk": ("advantages",), "unlikeliness": ("advantages",)}
    assert modules_of({"kl": {}}) == () and modules_of({"kl": {"where": "reward"}}) == ("training.advantages",)


def fill_defaults_of_variant(variant: dict) -> dict:
    """A variant as config/defaults.py fill_defaults fills it (the smoke config, with this variant added)."""
    cfg = yaml.safe_load(SMOKE.read_text())
    cfg["variants"] = {**cfg.get("variants", {}), "v": variant}
    return fill_defaults(cfg)["variants"]["v"]


def test_a_new_remedy_needs_only_its_declaration_and_its_registered_class(double_winners):
    filled = with_remedy_defaults({"double_winners": {}, "kl": {"beta": 0.1}})
    assert filled["double_winners"] == {"factor": 2.0} and "double_winners" in REMEDY_DEFAULTS
    assert resolve_remedies({"double_winners": {"factor": 3.0}}) == {"double_winners": {"factor": 3.0}}
    check_remedies(resolve_remedies({"double_winners": {}}), group_size=G)
    with pytest.raises(ValueError, match="double_winners.factor must be positive"):
        check_remedies(resolve_remedies({"double_winners": {"factor": 0.0}}), group_size=G)
    assert modules_of({"double_winners": {}}) == ("training.advantages",)  # its job's code hash covers them
    assert remedy_grpo_kwargs(resolve_remedies({"double_winners": {}})) == {}
    cfg = fill_defaults_of_variant({"double_winners": {"factor": 5.0}})
    assert cfg == {"double_winners": {"factor": 5.0}, "enabled": True}


def test_the_trainer_calls_the_new_remedys_hook_in_a_training_step(tmp_path, double_winners):
    t, _ = make_trainer(tmp_path, {"double_winners": {"factor": 2.0}}, steps=1)
    t.train()
    (hook,) = t._remedy_hooks
    assert hook.calls == 1 and "remedy/advantage_abs_mean" in t.state.log_history[0]
    groups = grouped(t.records[1]["rows"])
    plain = adv.group_advantages(rewards_of(groups), G)
    expected = torch.where(plain > 0, 2.0 * plain, plain)
    assert not torch.allclose(expected, plain), "the data must show the remedy's effect"
    assert_advantages(groups, expected, "double_winners")


def test_unknown_and_unimplemented_remedies_are_errors(monkeypatch):
    with pytest.raises(ValueError, match=r"remedies\.kll: unknown remedy \(known: kl, routing, distill, "):
        resolve_remedies({"kll": {}})
    with pytest.raises(ValueError, match="unknown remedy"):
        modules_of({"kll": {}})
    spec = config_remedies.RemedySpec("declared_only", {})
    monkeypatch.setitem(config_remedies.REMEDIES, spec.name, spec)
    with pytest.raises(ValueError, match="declared_only: declared but not implemented"):
        resolve_remedies({"declared_only": {}})


def test_registering_needs_a_declaration_and_a_name_once():
    class Undeclared(remedies.Remedy):
        name = "undeclared"

    with pytest.raises(ValueError, match="declare its defaults"):
        remedies.register(Undeclared)
    with pytest.raises(ValueError, match="registered twice"):
        remedies.register(remedies.REGISTRY["passk"])
    with pytest.raises(ValueError, match="declared twice"):
        config_remedies.declare(config_remedies.RemedySpec("passk", {"k": 4}))


def test_hooks_run_in_registry_order_where_it_matters():
    """The unlikeliness reward rescales the task reward before the KL penalty is subtracted (the trainer's
    arithmetic before the registry), and pass@k's check runs before routing's."""
    order = list(remedies.REGISTRY)
    assert order.index("unlikeliness") < order.index("kl")
    with pytest.raises(ValueError, match="passk.k"):
        check_remedies(resolve_remedies({"routing": {"gamma": 2.0}, "passk": {"k": 9}}), group_size=G)
