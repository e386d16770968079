"""Load and validate a study config against workflow/schemas/config.schema.yaml.

Errors name the offending key by its path (`rl.steps`), so a wrong type, a typo or a missing
key stops the run before any job starts; a cross-key error names both keys. Checks that need the
toy world itself (its problem space, its prompt lengths) are in data/toyworld/limits.py: this
layer does not import the data layer; common.smk runs both before any job.
"""

from __future__ import annotations

from pathlib import Path

import jsonschema
import yaml

from rlvr_support.config.benchmarks import benchmark_sampling, eval_benchmarks, max_new_tokens_keys
from rlvr_support.config.batches import micro_batches
from rlvr_support.config.chains import distill_teacher, parent_chain, parse_chain
from rlvr_support.config.revisions import unpinned_revisions
from rlvr_support.config.checkpoints import (base_checkpoints, base_names, check_checkpoint_path,
                                             external_checkpoints, name_problem, remote_code_problem, trajectory_cfg)
from rlvr_support.config.defaults import ANALYSIS_DEFAULTS, vllm_rollout_cfg
from rlvr_support.config.import_models import check_import_models, import_models
from rlvr_support.config.imports import ImportConfigError, check_imports, study_benchmarks
from rlvr_support.config.schema import SCHEMA, config_schema


class ConfigError(ValueError):
    pass


def _path(error: jsonschema.ValidationError) -> str:
    return ".".join(str(p) for p in error.absolute_path) or "<top level>"


def validate_config(config: dict, schema_path: str | Path = SCHEMA) -> dict:
    schema = config_schema(schema_path)
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
    _check_rollout_backend(config)
    _check_subset_analyses(config)
    _check_distill_teachers(config)
    if config.get("revisions") == "require" and unpinned_revisions(config):
        raise ConfigError("revisions: require, but these are not pinned to a hub commit:\n  "
                          + "\n  ".join(unpinned_revisions(config)))
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
    rl = config.get("rl") or {}
    if rl.get("micro_batch"):
        try:
            micro_batches(rl)
        except ValueError as e:
            raise ConfigError(str(e)) from None
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
    for kind, spec in res.items():  # a retry never asks for less than the first attempt
        for cap, first in (("max_runtime", "runtime"), ("max_mem_mb", "mem_mb")):
            if cap in spec and spec[cap] < spec[first]:
                raise ConfigError(f"resources.{kind}.{cap}: {spec[cap]} is below {first} ({spec[first]}), what the "
                                  "first attempt asks for; a retry may ask for more, not less")
    _check_checkpoints(config)
    try:
        check_imports(config)
        check_import_models(config)
    except ImportConfigError as e:
        raise ConfigError(str(e)) from None
    if "base" in config and ("models" in config or base_checkpoints(config)):
        raise ConfigError("base / models: give exactly one: `base:` (one starting model) or `models:` and "
                          "`role: base` checkpoints (several)")
    if "base" not in config and "models" not in config and not base_checkpoints(config):
        raise ConfigError("base / models: no starting model: give `base:`, `models:` or a checkpoint with role: base")
    for where, base in base_models(config).items():
        if base["kind"] == "pretrain" and "models" in config:
            raise ConfigError(f"{where}.kind: pretrain is for a one-model toy study (`base:`); "
                              "`models:` lists real models (hf or gguf_wheel)")
        if base["kind"] == "pretrain" and config["world"]["kind"] != "toy":
            raise ConfigError(f"{where}.kind: pretrain needs the toy world's corpus (world.kind: toy); "
                              "a datasets world starts from a real model (base.kind: hf or gguf_wheel)")
        if base["kind"] == "pretrain" and base.get("prompt_format", "raw") != "raw":
            raise ConfigError(f"{where}.prompt_format: the toy model has no chat template; use raw")
        if base["kind"] in ("hf", "local") and Path(base["path"]).expanduser().is_dir():
            problem = remote_code_problem(base["path"])  # a hub id is checked by the base rule, once fetched
            if problem:
                raise ConfigError(f"{where}.path: cannot use the model: {problem}")
    for part in ("divergence", "intervention"):
        extra = sorted(set(config["analysis"].get(part, {}).get("eval_sets", [])) - set(config["eval_sets"]))
        if extra:
            raise ConfigError(f"analysis.{part}.eval_sets: {extra} not in eval_sets (no samples to analyse)")
    s = config["sampling"]
    if s["temperature"] == 0 and s["n"] != 1:
        raise ConfigError("sampling.n: greedy decoding (temperature 0) needs n: 1")
    known = {b for names in study_benchmarks(config).values() for b in names}
    for bench, own in (s.get("benchmarks") or {}).items():
        if bench not in known:
            raise ConfigError(f"sampling.benchmarks.{bench}: no eval source of the study's eval sets is named "
                              f"{bench!r} (benchmarks: {', '.join(sorted(known))})")
        if own.get("temperature", s["temperature"]) == 0 and own.get("n", s["n"]) != 1:
            raise ConfigError(f"sampling.benchmarks.{bench}.n: greedy decoding (temperature 0) needs n: 1")
    _check_trajectory(config)
    _check_shapes(config)
    js = config["analysis"].get("divergence", {})
    if s.get("token_arrays") is not None and js.get("eval_sets") and js["samples_per_prompt"] > s["token_arrays"]:
        raise ConfigError(f"analysis.divergence.samples_per_prompt: {js['samples_per_prompt']} samples per prompt "
                          f"need their token arrays, but sampling.token_arrays keeps {s['token_arrays']}")


# vLLM 0.31's CPU attention kernels (vllm/v1/attention/backends/cpu_attn.py, get_supported_head_sizes)
VLLM_CPU_HEAD_SIZES = (32, 64, 80, 96, 112, 128, 160, 192, 224, 256, 512)


def _check_rollout_backend(config: dict) -> None:
    """rl.rollout_backend vllm: what TRL 1.16's vLLM rollouts cannot do on the configured resources."""
    rl = config.get("rl") or {}
    if rl.get("rollout_backend") != "vllm" or not config["chains"]:
        return
    v = vllm_rollout_cfg(rl)
    for chain in config["chains"]:
        variant = parse_chain(chain)[1]
        if variant and "memory" in config.get("variants", {}).get(variant, {}):
            raise ConfigError(f"variants.{variant}.memory: memory-calibrated sampling draws its rollouts through a "
                              "transformers logits processor, but rl.rollout_backend: vllm samples them in vLLM; "
                              "use rollout_backend auto or hf for this study, or drop the remedy")
    if v["max_model_len"] is not None and v["max_model_len"] <= rl["max_completion_tokens"]:
        raise ConfigError(f"rl.vllm.max_model_len: {v['max_model_len']} positions leave no room for a prompt before "
                          f"rl.max_completion_tokens = {rl['max_completion_tokens']}")
    train = config["resources"]["train"]
    gpus = train["gpu"]
    if gpus == 0:  # vLLM's CPU backend: colocated in the one training process
        for key, bad, why in (("enable_sleep_mode", v["enable_sleep_mode"], "vLLM's sleep mode needs CUDA"),
                              ("tensor_parallel_size", v["tensor_parallel_size"] != 1, "one CPU process trains")):
            if bad:
                raise ConfigError(f"rl.vllm.{key}: {v[key]} needs GPUs ({why}), but resources.train.gpu is 0")
        for where, base in base_models(config).items():
            arch = base.get("arch")
            if base["kind"] == "pretrain" and arch and arch["hidden_size"] // arch["num_heads"] not in VLLM_CPU_HEAD_SIZES:
                raise ConfigError(f"{where}.arch: head size hidden_size / num_heads = "
                                  f"{arch['hidden_size'] // arch['num_heads']}, but vLLM's CPU backend "
                                  f"(rl.rollout_backend: vllm) has kernels for {list(VLLM_CPU_HEAD_SIZES)} only")
        return
    if gpus % v["tensor_parallel_size"]:
        raise ConfigError(f"rl.vllm.tensor_parallel_size: {v['tensor_parallel_size']} must divide "
                          f"resources.train.gpu = {gpus} (each node's training processes form whole vLLM groups)")


def _check_distill_teachers(config: dict) -> None:
    """A `distill.teacher_step` names weights the parent chain's stage keeps (a trajectory point)."""
    from rlvr_support.config.checkpoints import trajectory_cfg

    for chain in config["chains"]:
        teacher = distill_teacher(config, chain)
        if not teacher or not teacher[2]:
            continue
        t, steps = trajectory_cfg(config), config["rl"]["steps"]
        parent, step = teacher[0], teacher[1]
        where = f"variants.{parse_chain(chain)[1]}.distill.teacher_step"
        if parent not in t["chains"]:
            raise ConfigError(f"{where}: {step} needs the weights of {parent!r} at step {step}, but trajectory.chains "
                              f"{t['chains']} does not keep {parent!r}'s weights")
        if step >= steps or step % t["every"]:
            raise ConfigError(f"{where}: {parent!r} keeps its weights every trajectory.every = {t['every']} steps "
                              f"below rl.steps = {steps}; {step} is not one of them")


def _check_subset_analyses(config: dict) -> None:
    """analysis.large_k and analysis.single_token name checkpoints the study has and, in a toy world,
    no more prompts than it has; the single-token sweep's positions fit its responses."""
    known = {"base", *config["chains"], *(config.get("checkpoints") or {}), *import_models(config)}
    for part in ("large_k", "single_token"):
        spec = config["analysis"].get(part)
        if not spec:
            continue
        unknown = [c for c in spec["checkpoints"] if c not in known]
        if unknown:
            raise ConfigError(f"analysis.{part}.checkpoints: {unknown} are neither base, a chain, a checkpoint "
                              "nor an imported label with a model")
        eval_sets = spec.get("eval_sets", config["eval_sets"])
        if config["world"]["kind"] == "toy":
            for e in eval_sets:
                have = config["world"][e]["eval"]
                if spec["prompts"] > have:
                    raise ConfigError(f"analysis.{part}.prompts: {spec['prompts']} prompts, but world.{e}.eval "
                                      f"has only {have}")
    single = config["analysis"].get("single_token")
    if single:
        if "base" in single["checkpoints"]:
            raise ConfigError("analysis.single_token.checkpoints: the base is every pair's other model; "
                              "list the checkpoints to pair with it")
        extra = sorted(set(single["eval_sets"]) - set(config["eval_sets"]))
        if extra:
            raise ConfigError(f"analysis.single_token.eval_sets: {extra} not in eval_sets")
        if max(single["positions"]) >= single["max_new_tokens"]:
            raise ConfigError(f"analysis.single_token.positions: {max(single['positions'])} is not before "
                              f"max_new_tokens ({single['max_new_tokens']}): nothing would follow the swap")
        if config["sampling"]["temperature"] == 0:
            raise ConfigError("analysis.single_token: greedy decoding (sampling.temperature 0) has no "
                              "distribution to draw the swapped token from")


def _check_shapes(config: dict) -> None:
    """Sizes that must fit each other, which would otherwise fail (or cut) only inside a job."""
    for where, base in base_models(config).items():
        arch = base.get("arch")
        if arch and arch["hidden_size"] % arch["num_heads"]:
            raise ConfigError(f"{where}.arch.num_heads: {arch['num_heads']} heads do not divide "
                              f"{where}.arch.hidden_size ({arch['hidden_size']})")
    m = config["analysis"].get("opening_tokens", ANALYSIS_DEFAULTS["opening_tokens"])
    for key, n in max_new_tokens_keys(config["sampling"]).items():
        if m > n:
            # an opening longer than the response: every sample would have the same cut-short "opening"
            raise ConfigError(f"analysis.opening_tokens: {m} tokens, more than the {n} a response has ({key})")


def _check_checkpoints(config: dict) -> None:
    """External checkpoints: a name that is free, one base that exists, weights that can be read."""
    checkpoints = config.get("checkpoints") or {}
    models = set(config.get("models") or {})
    bases = base_names(config)
    for name, spec in checkpoints.items():
        where = f"checkpoints.{name}"
        why = name_problem(name)
        if why:
            raise ConfigError(f"{where}: choose another name: {why}")
        if name in models:
            raise ConfigError(f"{where}: duplicate name: models.{name} already names a starting model")
        if spec.get("role") == "base":
            if "base" in spec:
                raise ConfigError(f"{where}.base: a checkpoint has one base, and a `role: base` checkpoint is "
                                  f"its own; drop `base: {spec['base']}` or `role: base`")
            if spec.get("steps"):
                raise ConfigError(f"{where}.steps: a starting model has no trajectory (list the run's steps "
                                  "under the checkpoint trained from it)")
        else:
            if "base" not in spec:
                raise ConfigError(f"{where}.base: missing: name the starting model it was trained from "
                                  f"(one of: {', '.join(bases) or 'none defined'})")
            if spec["base"] not in bases:
                raise ConfigError(f"{where}.base: {spec['base']!r} is not a starting model of the study "
                                  f"(one of: {', '.join(bases) or 'none defined'})")
        if spec["kind"] != "hf" and "revision" in spec:
            raise ConfigError(f"{where}.revision: only a hub checkpoint (kind: hf) has a revision")
        problem = check_checkpoint_path(spec["kind"], spec["path"])
        if problem:
            raise ConfigError(f"{where}.path: cannot read the checkpoint: {problem}")
        steps = spec.get("steps") or []
        if steps and "step" not in spec:
            raise ConfigError(f"{where}.step: missing: with `steps`, give this checkpoint's own step number")
        seen = set()
        for i, point in enumerate(steps):
            if point["step"] in seen:
                raise ConfigError(f"{where}.steps[{i}].step: step {point['step']} is listed twice")
            seen.add(point["step"])
            if point["step"] >= spec["step"]:
                raise ConfigError(f"{where}.steps[{i}].step: {point['step']} is not before the checkpoint's "
                                  f"own step {spec['step']}")
            problem = check_checkpoint_path("local", point["path"])
            if problem:
                raise ConfigError(f"{where}.steps[{i}].path: cannot read the checkpoint: {problem}")
    if base_checkpoints(config) and config["world"]["kind"] == "toy" and len(base_names(config)) > 1:
        # the reference-perplexity job of the toy world covers one model's checkpoints
        raise ConfigError("checkpoints: a toy-world study has one starting model; "
                          f"got {', '.join(base_names(config))}")
    if not config["chains"] and not external_checkpoints(config) and not config.get("imports"):
        raise ConfigError("chains: empty, and no external checkpoint or import to analyse: list chains to train, "
                          "`checkpoints:` trained elsewhere or `imports:` sampled elsewhere")


def _check_trajectory(config: dict) -> None:
    if "trajectory" not in config:
        return
    t = trajectory_cfg(config)
    unknown = [c for c in t["chains"] if c not in config["chains"]]
    if unknown:
        raise ConfigError(f"trajectory.chains: {unknown} are not listed in chains")
    if t["chains"] and t["every"] is None:
        raise ConfigError("trajectory.every: missing: every how many steps the chains keep their weights")
    if t["chains"] and t["every"] % config["rl"]["save_every"]:
        raise ConfigError(f"trajectory.every: {t['every']} is not a multiple of rl.save_every "
                          f"({config['rl']['save_every']}): the stage keeps weights only where it saves")
    extra = sorted(set(t["eval_sets"]) - set(config["eval_sets"]))
    if extra:
        raise ConfigError(f"trajectory.eval_sets: {extra} not in eval_sets")
    for e in t["eval_sets"]:
        for b in study_benchmarks(config).get(e, []):
            n = benchmark_sampling(config["sampling"], b)["n"]
            if t["n"] > n:
                raise ConfigError(f"trajectory.n: {t['n']} samples per prompt at each point, but benchmark {b!r} "
                                  f"is sampled with n = {n} at the run's start and end (sampling.n or "
                                  f"sampling.benchmarks.{b}.n); the curves compare the same k everywhere")


class _UniqueKeyLoader(yaml.SafeLoader):
    """A YAML loader that refuses a key given twice in one mapping (PyYAML keeps the last silently,
    so a second `checkpoints:` entry of the same name would replace the first without a word)."""

    def construct_mapping(self, node, deep=False):
        seen = set()
        for key_node, _ in node.value:
            key = self.construct_object(key_node, deep=deep)
            if key in seen:
                raise ConfigError(f"duplicate key {key!r} (line {key_node.start_mark.line + 1}): "
                                  "a name may appear once in a mapping")
            seen.add(key)
        return super().construct_mapping(node, deep=deep)


def read_yaml(path: str | Path):
    """A YAML file's content; a key given twice in one mapping, or text that is not YAML (a tab in
    the indentation), is a ConfigError naming the file and the line."""
    try:
        return yaml.load(Path(path).read_text(encoding="utf-8"), Loader=_UniqueKeyLoader)
    except ConfigError as e:
        raise ConfigError(f"{path}: {e}") from None
    except yaml.YAMLError as e:
        mark = getattr(e, "problem_mark", None)
        where = f"{path}:{mark.line + 1}:{mark.column + 1}" if mark is not None else str(path)
        what = getattr(e, "problem", None) or str(e)
        hint = " (YAML indents with spaces, never tabs)" if "\t" in str(e) or "tab" in what else ""
        raise ConfigError(f"{where}: not valid YAML: {what}{hint}") from None
    except UnicodeDecodeError as e:
        raise ConfigError(f"{path}: not a text file ({e.reason})") from None


def check_duplicate_keys(path: str | Path) -> None:
    """Raise ConfigError naming the file, key and line of a key given twice in one mapping, or of
    text that is not YAML."""
    read_yaml(path)


def load_config(path: str | Path, *overlays: str | Path) -> dict:
    """The validated config of `path`, with each overlay merged on top in order, as Snakemake merges
    several `--configfile`s (mappings key by key, any other value replaced)."""
    config: dict = {}
    for p in (path, *overlays):
        layer = read_yaml(p)
        if not isinstance(layer, dict):
            raise ConfigError(f"{p}: a config must be a YAML mapping")
        config = _merged(config, layer)
    return validate_config(config)


def _merged(base: dict, layer: dict) -> dict:
    out = dict(base)
    for key, value in layer.items():
        out[key] = _merged(out[key], value) if isinstance(value, dict) and isinstance(out.get(key), dict) else value
    return out
