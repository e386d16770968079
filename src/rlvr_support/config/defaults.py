"""The config's defaults, defined once: the support-analysis keys and each remedy's parameters.

config.yaml and the smoke config spell every key out; a config that predates them (or a
real-model study that does not care) gets these values, so old configs keep validating.
workflow/rules/common.smk applies `fill_defaults` once, right after validation, so every rule
(and its params) sees the same filled-in config; the train verb fills a variant's remedies
with the same function when it runs without Snakemake.
"""

from __future__ import annotations

import copy

ANALYSIS_DEFAULTS = {
    "support_delta": 0.05,
    "opening_tokens": 3,
    "openings_top": 8,
    "divergence": {"eval_sets": ["math", "if", "joint"], "prompts": 40, "samples_per_prompt": 2,
                   "max_positions": 48, "batch": 40},
    "intervention": {"eval_sets": ["math"], "top": 4, "prompts": 25, "n": 4, "max_new_tokens": 48},
    "perplexity": {"prompts": 100, "batch": 64},
}


def with_defaults(analysis: dict, eval_sets: list[str] | None = None) -> dict:
    """The analysis section with missing keys filled in (nested sections key by key).

    A defaulted ``eval_sets`` list is cut to the study's ``eval_sets``; an explicit one is
    left as written (config validation rejects eval sets the study does not sample).
    """
    out = copy.deepcopy(dict(analysis))
    for key, value in ANALYSIS_DEFAULTS.items():
        if isinstance(value, dict):
            given = out.get(key, {})
            merged = {**copy.deepcopy(value), **given}
            if "eval_sets" in value and "eval_sets" not in given and eval_sets is not None:
                merged["eval_sets"] = [e for e in value["eval_sets"] if e in eval_sets]
            out[key] = merged
        else:
            out.setdefault(key, value)
    return out


REMEDY_DEFAULTS: dict[str, dict] = {
    "kl": {"beta": 0.05, "estimator": "k3", "where": "loss", "reset_every": 0, "reset_optimizer": False},
    "routing": {"gamma": 0.5, "tokens": 4},
    "distill": {"coef": 0.5, "teacher": "parent"},
    "inverse_success": {"alpha": 1.0},
    "memory": {"mu": 0.3, "hidden": 64, "lr": 0.01, "steps": 1},
    "passk": {"k": 4},
    "unlikeliness": {"beta": 0.5},
    "clip_higher": {"epsilon_low": 0.2, "epsilon_high": 0.28},
    "entropy_bonus": {"coef": 0.01},
}
VARIANT_META = ("enabled", "description")  # keys of a `variants:` entry that are not remedies


def with_remedy_defaults(remedies: dict | None) -> dict[str, dict]:
    """Each named remedy with its parameters filled in from REMEDY_DEFAULTS; unknown names are errors."""
    out = {}
    for name, params in (remedies or {}).items():
        if name not in REMEDY_DEFAULTS:
            raise ValueError(f"remedies.{name}: unknown remedy (known: {', '.join(REMEDY_DEFAULTS)})")
        out[name] = {**REMEDY_DEFAULTS[name], **(params or {})}
    return out


def fill_defaults(config: dict) -> dict:
    """A copy of a validated config with the analysis keys and every variant's remedy parameters filled in."""
    out = copy.deepcopy(config)
    out["analysis"] = with_defaults(config["analysis"], config["eval_sets"])
    out["variants"] = {
        name: {**{k: v for k, v in spec.items() if k in VARIANT_META},
               **with_remedy_defaults({k: v for k, v in spec.items() if k not in VARIANT_META})}
        for name, spec in config.get("variants", {}).items()}
    return out
