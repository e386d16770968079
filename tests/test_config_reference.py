"""The configuration reference: docs/configuration.md is what config/reference.py writes from the schema, every
key of the schema has a description, and the schema's defaults are the code's (config/defaults.py and the
other tables of defaults), so neither the page nor the schema can drift from the code."""

from __future__ import annotations

import copy

import jsonschema
import pytest

from rlvr_support.config.numerics import DEFAULTS as NUMERICS_DEFAULTS
import yaml

from conftest import REPO, SMOKE_CONFIG
from rlvr_support.cli.main import main
from rlvr_support.config.checkpoints import TRAJECTORY_DEFAULTS
from rlvr_support.config.defaults import (ANALYSIS_DEFAULTS, BUDGET_DEFAULTS, REMEDY_DEFAULTS, SCORING_DEFAULTS,
                                          VLLM_ROLLOUT_DEFAULTS, fill_defaults)
from rlvr_support.config.reference import (every_key, load_schema, missing_descriptions, reference_markdown,
                                           resolve, schema_keys, type_text)
from rlvr_support.config.validate import validate_config
from rlvr_support.planning.gpus import DEFAULT_GPU
from rlvr_support.sampling.backends import VLLM_DEFAULTS

PAGE = REPO / "docs" / "configuration.md"
SCHEMA = load_schema()
KEYS = {k.path: k for k in every_key(schema_keys(SCHEMA))}
MISSING = object()


def test_the_page_is_what_the_schema_gives():
    assert PAGE.read_text() == reference_markdown(SCHEMA), (
        "docs/configuration.md differs from the schema: run python -m rlvr_support config-reference "
        "--out docs/configuration.md")


def test_every_key_has_a_description():
    assert len(KEYS) > 300  # the walk reaches nested objects, maps, lists of objects and $refs
    assert missing_descriptions(SCHEMA) == []


def test_a_key_without_a_description_is_named_wherever_it_sits():
    thing = {"type": "object", "properties": {"a": {"type": "integer"}, "b": {"type": "string", "description": "b"}}}
    top = {"one": {"$ref": "#/$defs/thing", "description": "x"},
           "many": {"type": "array", "description": "m", "items": {"$ref": "#/$defs/thing"}},
           "named": {"type": "object", "description": "n", "additionalProperties": {"$ref": "#/$defs/thing"}},
           "sizes": {"type": "object", "description": "s", "additionalProperties": {"type": "number"}}}
    properties = {"top": {"type": "object", "description": "t", "properties": top}, "bare": {"type": "string"}}
    schema = {"$defs": {"thing": thing}, "properties": properties}
    # a map of numbers (`sizes`) is one key; a map's entry of objects is a key of its own
    assert missing_descriptions(schema) == ["top.one.a", "top.many[].a", "top.named.<name>", "top.named.<name>.a",
                                            "bare"]


def test_the_verb_writes_the_page_and_check_finds_a_stale_one(tmp_path, capsys):
    out = tmp_path / "configuration.md"
    assert main(["config-reference", "--out", str(out)]) == 0
    assert out.read_text() == PAGE.read_text()
    assert main(["config-reference", "--out", str(out), "--check"]) == 0
    schema = copy.deepcopy(SCHEMA)
    schema["properties"]["study"]["description"] = "a changed description"
    edited = tmp_path / "schema.yaml"
    edited.write_text(yaml.safe_dump(schema, sort_keys=False))
    assert main(["config-reference", "--schema", str(edited), "--out", str(out), "--check"]) == 1
    assert "is not what the schema gives" in capsys.readouterr().err
    del schema["properties"]["study"]["description"]
    edited.write_text(yaml.safe_dump(schema, sort_keys=False))
    assert main(["config-reference", "--schema", str(edited), "--out", str(out)]) == 1
    assert "1 keys have no description: study" in capsys.readouterr().err
    assert out.read_text() == PAGE.read_text()  # a refused page is not written


def _flat(prefix: str, table: dict) -> dict[str, object]:
    """A table of defaults as {schema key path: value}, nested where the schema has nested keys."""
    out = {}
    for name, value in table.items():
        path = f"{prefix}.{name}"
        if isinstance(value, dict) and path in KEYS and KEYS[path].node.get("properties"):
            out.update(_flat(path, value))
        else:
            out[path] = value
    return out


def code_defaults() -> dict[str, object]:
    """Every default the code's tables apply, by key path (None: computed when absent, so no schema default)."""
    out = {**_flat("analysis", ANALYSIS_DEFAULTS), **_flat("scoring", SCORING_DEFAULTS),
           **_flat("budget", BUDGET_DEFAULTS), **_flat("rl.vllm", VLLM_ROLLOUT_DEFAULTS),
           **_flat("sampling.vllm", VLLM_DEFAULTS), **_flat("trajectory", TRAJECTORY_DEFAULTS),
           **_flat("numerics", NUMERICS_DEFAULTS)}
    for remedy, params in REMEDY_DEFAULTS.items():
        out.update(_flat(f"variants.<name>.{remedy}", params))
    for kind in ("pretrain", "sample", "analyse", "train"):
        out[f"resources.{kind}.gpu_type"] = DEFAULT_GPU
    return out


def test_the_schema_defaults_are_the_codes():
    """Both ways: each default of the code's tables is the schema's (a computed one, None, has none there unless the
    key may be null), and each schema default under those sections is one the code applies."""
    code = code_defaults()
    problems = []
    for path, value in code.items():
        if path not in KEYS:
            problems.append(f"{path}: a default of the code, but no key of the schema")
            continue
        node = KEYS[path].node
        allows_null = node.get("type") == "null" or "null" in (node.get("type") or []) or any(
            resolve(a, SCHEMA["$defs"])[0].get("type") == "null" for a in node.get("oneOf", []))
        want = MISSING if value is None and not allows_null else value
        if node.get("default", MISSING) != want:
            problems.append(f"{path}: the code's default is {value!r}, the schema's {node.get('default', 'none')!r}")
    sections = ("analysis.", "scoring.", "budget.", "rl.vllm.", "sampling.vllm.", "trajectory.", "variants.<name>.")
    for path, key in KEYS.items():
        remedy = path.startswith("variants.<name>.") and path.count(".") == 3
        if "default" in key.node and path.startswith(sections) and (remedy or not path.startswith("variants")) \
                and path not in code:
            problems.append(f"{path}: a schema default ({key.node['default']!r}) that no table of the code applies")
    assert not problems, "\n".join(problems)


def test_fill_defaults_gives_the_schema_defaults_of_the_keys_it_fills():
    """The keys `fill_defaults` fills in a config that leaves them out come out at the schema's default."""
    raw = yaml.safe_load(SMOKE_CONFIG.read_text())
    for section, key in (("sampling", "token_arrays"), ("sampling", "benchmarks"), ("scoring", "math_extraction")):
        raw[section].pop(key, None)
    raw.pop("trajectory", None)
    raw.pop("budget", None)
    filled = fill_defaults(validate_config(raw))
    for path in ("sampling.token_arrays", "sampling.benchmarks", "scoring.math_extraction", "trajectory.chains",
                 "budget.response_fraction", "budget.params_b", "budget.throughput", "resources.analyse.dtype"):
        value = filled
        for part in path.split("."):
            value = value[part]
        assert value == KEYS[path].node["default"], path


def test_every_default_and_example_is_a_value_the_key_accepts():
    """A default or an example the schema would refuse is a wrong one. A required key has a default only inside an
    optional section whose defaults come whole (analysis.divergence: give it, and give all its keys)."""
    problems = []
    for path, key in KEYS.items():
        node = {**key.node, "$defs": SCHEMA["$defs"]}
        for what, values in (("default", [key.node["default"]] if "default" in key.node else []),
                             ("example", key.node.get("examples", []))):
            for value in values:
                errors = list(jsonschema.Draft202012Validator(node).iter_errors(value))
                if errors:
                    problems.append(f"{path}: {what} {value!r}: {errors[0].message}")
        parent = KEYS.get(path.rsplit(".", 1)[0])
        if key.required and "default" in key.node and (parent is None or parent.required or "default" in parent.node):
            problems.append(f"{path}: required, yet it has a default")
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("path, text", [
    ("rl.steps", "integer ≥ 1"), ("world.corpus.comply", "number in [0, 1]"),
    ("sampling.token_arrays", "null or integer ≥ 1"), ("sampling.vllm.entropy_topk", "integer ≥ -1, not 0"),
    ("rl.vllm.max_model_len", "integer ≥ 2 or null"),
    ("eval_sets", "list of one of `math`, `if`, `joint` (unique, at least 1)"),
    ("budget.params_b", "map: name → number > 0"), ("resources.analyse.nodes", "always `1`"),
    ("world.math.train_levels", "list of number ≥ 0 (3 to 4 items)")])
def test_types_in_words(path, text):
    assert type_text(KEYS[path].node, SCHEMA["$defs"]) == text


def test_the_page_tables_a_shared_structure_once_and_links_it():
    page = PAGE.read_text()
    assert page.count("| `world.tasks.math[].format` |") == 1 and "`world.tasks.if[].format`" not in page
    assert "| `world.tasks.if` | list of objects with the keys of [`world.tasks.math`](#worldtasksmath) |" in page
    assert "| `models.<name>` | object with the keys of [`base`](#base) |" in page
    assert [line for line in page.splitlines() if line.startswith("## ")] == [f"## `{k}`" for k in SCHEMA["properties"]]
