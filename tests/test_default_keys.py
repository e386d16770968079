"""Writing a documented default out changes nothing: every schema `default` is filled in once
(config/defaults.py with_schema_defaults), so the filled config, and with it every rule's params, is the same
whether a key is left out or written with its default. tests/test_rerun_plans.py plans a finished smoke run with
all of them written out at once."""

from __future__ import annotations

import copy

import pytest
import yaml

from conftest import SMOKE_CONFIG
from rlvr_support.config.defaults import fill_defaults
from rlvr_support.config.schema import config_schema, resolve
from rlvr_support.config.validate import validate_config


def written_out_defaults(raw: dict, filled: dict, schema: dict) -> list[tuple[tuple, object]]:
    """(path, default) of every schema property with a default that `raw` leaves out, in each mapping of the
    filled config (a mapping the config or fill_defaults creates; not one whose presence would turn a feature on)."""
    defs = schema.get("$defs", {})
    out = []

    def walk(node, value, raw_value, path):
        node = resolve(node, defs)[0]
        if isinstance(value, dict):
            props = node.get("properties", {})
            for key, sub in props.items():
                sub = resolve(sub, defs)[0]
                raw_sub = raw_value.get(key) if isinstance(raw_value, dict) else None
                if "default" in sub and not (isinstance(raw_value, dict) and key in raw_value):
                    out.append(((*path, key), sub["default"]))
                if key in value and isinstance(sub, dict):
                    walk(sub, value[key], raw_sub, (*path, key))
            if isinstance(node.get("additionalProperties"), dict):
                for key in value:
                    if key not in props:
                        raw_sub = raw_value.get(key) if isinstance(raw_value, dict) else None
                        walk(node["additionalProperties"], value[key], raw_sub, (*path, key))
        elif isinstance(value, list) and isinstance(node.get("items"), dict):
            for i, item in enumerate(value):
                raw_item = raw_value[i] if isinstance(raw_value, list) and i < len(raw_value) else None
                walk(node["items"], item, raw_item, (*path, i))

    walk(schema, filled, raw, ())
    return out


def with_written(raw: dict, path: tuple, value, filled: dict) -> dict:
    """`raw` with `path` set to `value`; a mapping on the way that `raw` leaves out is written as the filled config
    has it (its other keys' defaults written out too: a mapping such as resources.analyse must be whole)."""
    out = copy.deepcopy(raw)
    node, full = out, filled
    for key in path[:-1]:
        full = full[key]
        if key not in node:
            node[key] = {k: copy.deepcopy(v) for k, v in full.items() if k != path[-1]}
        node = node[key]
    node[path[-1]] = copy.deepcopy(value)
    return out


RAW = yaml.safe_load(SMOKE_CONFIG.read_text())
FILLED = fill_defaults(validate_config(copy.deepcopy(RAW)))
DEFAULTS = written_out_defaults(RAW, FILLED, config_schema())


def all_defaults_written(raw: dict = RAW) -> dict:
    out = raw
    for path, value in DEFAULTS:
        out = with_written(out, path, value, FILLED)
    return out


def test_the_smoke_config_leaves_defaults_to_write_out():
    """The walk finds keys in every kind of place: top-level sections, nested ones and map entries (a variant)."""
    paths = {".".join(map(str, p)) for p, _ in DEFAULTS}
    assert {"rl.rollout_backend", "rl.precision", "revisions", "budget.max_prompt_tokens",
            "variants.kl.kl.reset_every"} <= paths, sorted(paths)
    assert len(paths) >= 20


@pytest.mark.parametrize("path,value", DEFAULTS, ids=[".".join(map(str, p)) for p, _ in DEFAULTS])
def test_writing_a_default_out_gives_the_same_filled_config(path, value):
    written = with_written(RAW, path, value, FILLED)
    assert written != RAW
    assert fill_defaults(validate_config(written)) == FILLED


def test_a_value_other_than_the_default_changes_the_filled_config():
    """The comparison above can fail: a non-default value of the same key is a different config."""
    changed = with_written(RAW, ("rl", "precision"), "bf16", FILLED)
    assert fill_defaults(validate_config(changed))["rl"]["precision"] == "bf16" != FILLED["rl"]["precision"]
