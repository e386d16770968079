"""Load and validate a study config against workflow/schemas/config.schema.yaml.

Errors name the offending key by its path (`rl.steps`), so a wrong type, a typo or a missing
key stops the run before any job starts.
"""

from __future__ import annotations

from pathlib import Path

import jsonschema
import yaml

from rlvr_support.config.benchmarks import eval_benchmarks
from rlvr_support.config.chains import parent_chain, parse_chain

SCHEMA = Path(__file__).resolve().parents[3] / "workflow" / "schemas" / "config.schema.yaml"


class ConfigError(ValueError):
    pass


def _path(error: jsonschema.ValidationError) -> str:
    return ".".join(str(p) for p in error.absolute_path) or "<top level>"


def validate_config(config: dict, schema_path: str | Path = SCHEMA) -> dict:
    schema = yaml.safe_load(Path(schema_path).read_text())
    validator = jsonschema.Draft202012Validator(schema)
    errors = sorted(validator.iter_errors(config), key=lambda e: (list(e.absolute_path), e.message))
    if errors:
        lines = []
        for e in errors:
            if e.validator == "additionalProperties":
                extra = sorted(set(e.instance) - set(e.schema.get("properties", {})))
                where = _path(e)
                for key in extra:
                    lines.append(f"{where + '.' if where != '<top level>' else ''}{key}: unknown key")
            elif e.validator == "required":
                missing = e.message.split("'")[1]
                where = _path(e)
                lines.append(f"{where + '.' if where != '<top level>' else ''}{missing}: missing required key")
            else:
                lines.append(f"{_path(e)}: {e.message}")
        raise ConfigError("invalid config:\n  " + "\n  ".join(lines))
    _check_semantics(config)
    return config


def base_models(config: dict) -> dict[str, dict]:
    """Config path -> base spec: {"base": ...} for a one-model study, {"models.<name>": ...} for several."""
    if "models" in config:
        return {f"models.{name}": spec for name, spec in config["models"].items()}
    return {"base": config["base"]} if "base" in config else {}


def _check_semantics(config: dict) -> None:
    """Cross-key rules that JSON schema cannot say."""
    chains = set(config["chains"])
    routing = config["sampling"].get("routing")
    if routing:
        unknown = [c for c in routing["chains"] if c not in chains]
        if unknown:
            raise ConfigError(f"sampling.routing.chains: {unknown} are not listed in chains")
        if routing["tokens"] >= config["sampling"]["max_new_tokens"]:
            raise ConfigError("sampling.routing.tokens: must be smaller than sampling.max_new_tokens")
    variants = config.get("variants", {})
    for name in sorted(chains):
        try:
            _, variant = parse_chain(name)
        except ValueError as e:
            raise ConfigError(f"chains: {e}") from None
        chain = name.partition("~")[0]
        if variant:
            if variant not in variants:
                raise ConfigError(f"chains: {chain}~{variant!r} names variant {variant!r}, which is not in variants")
            if variants[variant].get("enabled", True) is False:
                raise ConfigError(f"chains: {chain}~{variant} uses variant {variant!r}, which has enabled: false")
            if chain not in chains:
                # The comparison table sets a variant against its plain chain.
                raise ConfigError(f"chains: {chain}~{variant} needs the plain chain {chain!r} listed too")
            passk = variants[variant].get("passk")
            if passk and passk.get("k", 4) >= config["rl"]["group_size"]:
                raise ConfigError(f"variants.{variant}.passk.k must be below rl.group_size")
        parent = parent_chain(chain)
        if parent is not None and parent not in chains:
            # The prefix is trained anyway (the DAG needs it); listing it keeps the tables honest.
            raise ConfigError(f"chains: {chain!r} continues from {parent!r}, which is not listed in chains")
    res = config.get("resources", {})
    for kind in ("pretrain", "sample"):
        if res.get(kind, {}).get("nodes", 1) != 1:
            raise ConfigError(f"resources.{kind}.nodes: only training spans nodes; {kind} jobs run on one node")
    train = res.get("train", {})
    if train.get("nodes", 1) > 1 and train.get("launcher") != "accelerate":
        raise ConfigError("resources.train.nodes: more than one node needs launcher: accelerate")
    if train.get("nodes", 1) > 1 and train.get("tasks") != train.get("nodes"):
        # scripts/accelerate_multinode.sh starts one `accelerate launch` per node through srun
        raise ConfigError("resources.train.tasks: a multi-node job runs one launcher task per node; set tasks = nodes")
    if ("base" in config) == ("models" in config):
        raise ConfigError("base / models: give exactly one: `base:` (one starting model) or `models:` (several)")
    for where, base in base_models(config).items():
        if base["kind"] == "pretrain" and "models" in config:
            raise ConfigError(f"{where}.kind: pretrain is for a one-model toy study (`base:`); "
                              "`models:` lists real models (hf or gguf_wheel)")
        if base["kind"] == "pretrain" and config["world"]["kind"] != "toy":
            raise ConfigError(f"{where}.kind: pretrain needs the toy world's corpus (world.kind: toy); "
                              "a datasets world starts from a real model (base.kind: hf or gguf_wheel)")
        if base["kind"] == "pretrain" and base.get("prompt_format", "raw") != "raw":
            raise ConfigError(f"{where}.prompt_format: the toy model has no chat template; use raw")
    for part in ("divergence", "intervention"):
        extra = sorted(set(config["analysis"].get(part, {}).get("eval_sets", [])) - set(config["eval_sets"]))
        if extra:
            raise ConfigError(f"analysis.{part}.eval_sets: {extra} not in eval_sets (no samples to analyse)")
    s = config["sampling"]
    if s["temperature"] == 0 and s["n"] != 1:
        raise ConfigError("sampling.n: greedy decoding (temperature 0) needs n: 1")
    known = {b for names in eval_benchmarks(config).values() for b in names}
    for bench, own in (s.get("benchmarks") or {}).items():
        if bench not in known:
            raise ConfigError(f"sampling.benchmarks.{bench}: no eval source of the study's eval sets is named "
                              f"{bench!r} (benchmarks: {', '.join(sorted(known))})")
        if own.get("temperature", s["temperature"]) == 0 and own.get("n", s["n"]) != 1:
            raise ConfigError(f"sampling.benchmarks.{bench}.n: greedy decoding (temperature 0) needs n: 1")
    js = config["analysis"].get("divergence", {})
    if s.get("token_arrays") is not None and js.get("eval_sets") and js["samples_per_prompt"] > s["token_arrays"]:
        raise ConfigError(f"analysis.divergence.samples_per_prompt: {js['samples_per_prompt']} samples per prompt "
                          f"need their token arrays, but sampling.token_arrays keeps {s['token_arrays']}")


def load_config(path: str | Path) -> dict:
    config = yaml.safe_load(Path(path).read_text())
    if not isinstance(config, dict):
        raise ConfigError(f"{path}: a config must be a YAML mapping")
    return validate_config(config)
