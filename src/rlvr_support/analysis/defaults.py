"""Defaults of the support-analysis keys of the config's `analysis` section.

config.yaml and the smoke config spell every key out; a config that predates them (or a
real-model study that does not care) gets these values, so old configs keep validating.
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
