"""The config's defaults, defined once: the support-analysis keys here, each remedy's parameters where the remedy
is declared (config/remedies.py, REMEDY_DEFAULTS).

config.yaml and the smoke config spell every key out; a config that predates them (or a
real-model study that does not care) gets these values, so old configs keep validating.
workflow/rules/common.smk applies `fill_defaults` once, right after validation, so every rule
(and its params) sees the same filled-in config; the train verb fills a variant's remedies
with the same function when it runs without Snakemake.
"""

from __future__ import annotations

import copy

from rlvr_support.config.checkpoints import base_checkpoints, starting_models, trajectory_cfg
from rlvr_support.config.numerics import with_numerics_defaults
from rlvr_support.config.remedies import REMEDY_DEFAULTS  # each remedy's defaults, declared with the remedy
from rlvr_support.config.schema import config_schema, resolve

ANALYSIS_DEFAULTS = {
    "support_delta": 0.05,
    "opening_tokens": 3,
    "openings_top": 8,
    "divergence": {"eval_sets": ["math", "if", "joint"], "prompts": 40, "samples_per_prompt": 2,
                   "max_positions": 48, "batch": 40},
    "intervention": {"eval_sets": ["math"], "top": 4, "prompts": 25, "n": 4, "max_new_tokens": 48},
    "perplexity": {"prompts": 100, "batch": 64},
    # group sizes G of the future-trainability table besides the RL `group_size` (analysis/trainability.py)
    "trainability": {"group_sizes": [2, 4, 8, 16]},
    # instruction following inside reasoning (metrics/reasoning_segments.py): the final-answer markers
    # that end a reasoning segment, and leading reasoning blocks (the toy world's `step : ...` plan;
    # config.yaml sets it)
    "reasoning_if": {
        "answer_markers": [r"\\boxed\{", r"(?i)\bthe (?:final )?answer is\b", r"(?i)\b(?:final )?answer\s*:"],
        "reasoning_prefixes": [],
    },
    # opening-mode rules, regular expressions matched at the start of a response (metrics/opening_modes.py):
    # the support-reshaping paper's deliberative-reasoning and direct-answer openings, and the toy world's `step` /
    # `answer : N`
    "opening_modes": {
        "dri": [r"<think>", r"let'?s\b", r"let us\b", r"first\b", r"to solve\b", r"we need\b", r"step\b"],
        "dai": [r"the (?:final )?answer is\b", r"\$*\\boxed", r"answer\s*:", r"[-+]?\$?\d[\d,]*(?:\.\d+)?(?![\d.)])"],
    },
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


VARIANT_META = ("enabled", "description")  # keys of a `variants:` entry that are not remedies


def with_remedy_defaults(remedies: dict | None) -> dict[str, dict]:
    """Each named remedy with its parameters filled in from REMEDY_DEFAULTS; unknown names are errors."""
    out = {}
    for name, params in (remedies or {}).items():
        if name not in REMEDY_DEFAULTS:
            raise ValueError(f"remedies.{name}: unknown remedy (known: {', '.join(REMEDY_DEFAULTS)})")
        out[name] = {**REMEDY_DEFAULTS[name], **(params or {})}
    return out


def gradient_checkpointing(rl: dict, base: dict) -> bool:
    """rl.gradient_checkpointing for a stage of a model with this base spec; `auto` (the default) is on for
    real models, where activations dominate a GPU's memory, and off for the toy world's model (`kind:
    pretrain`), where recomputing costs time and saves nothing that matters."""
    value = rl.get("gradient_checkpointing")
    return base["kind"] != "pretrain" if value in (None, "auto") else bool(value)


# `rl.vllm`, the engine options of rl.rollout_backend vllm (training/vllm_rollouts.py, TRL's colocate mode)
VLLM_ROLLOUT_DEFAULTS = {
    "gpu_memory_utilization": 0.3,  # vLLM's share of each training GPU (colocate): its weights + KV cache
    "tensor_parallel_size": 1,
    "enable_sleep_mode": False,
    "max_model_len": None,  # None: the model's own positions
    "importance_sampling": {"mode": "sequence_mask", "clip_max": 3.0},  # TRL 1.16's defaults
}


def vllm_rollout_cfg(rl: dict) -> dict:
    """`rl.vllm` with its defaults filled in (the importance_sampling block key by key)."""
    given = dict(rl.get("vllm") or {})
    out = {**copy.deepcopy(VLLM_ROLLOUT_DEFAULTS), **given}
    out["importance_sampling"] = {**VLLM_ROLLOUT_DEFAULTS["importance_sampling"], **given.get("importance_sampling", {})}
    return out


# `scoring` keys a config may leave out. Strict math extraction reads only marked answers (\\boxed,
# ####, "answer: X"), the toy world's and chat models' shape; see scoring/verifiers/math.py.
SCORING_DEFAULTS = {"math_extraction": "strict"}

# A study of external checkpoints only (chains: []) trains nothing and may leave `rl` out.
NO_TRAINING_RL = {"seeds": [], "steps": 0}


def fill_defaults(config: dict, schema: dict | None = None) -> dict:
    """A copy of a validated config with the analysis and scoring keys and every variant's remedy parameters filled
    in, `role: base` checkpoints added to `models` (each is a starting model), the trajectory's and the numerics'
    defaults (pinned unless a job asks for GPUs: config/numerics.py), then every other `default` of the schema
    (`with_schema_defaults`), so that a config which writes a default out is the same config as one that leaves it
    out, and plans the same jobs with the same params."""
    out = copy.deepcopy(config)
    if base_checkpoints(config):
        out["models"] = starting_models(config)
    out.setdefault("rl", copy.deepcopy(NO_TRAINING_RL))
    out.setdefault("checkpoints", {})
    out["analysis"] = with_defaults(config["analysis"], config["eval_sets"])
    out["scoring"] = {**SCORING_DEFAULTS, **config["scoring"]}
    out["resources"] = with_analyse_resources(config["resources"])
    out["sampling"] = {"token_arrays": None, "benchmarks": {}, **config["sampling"]}
    out["budget"] = with_budget_defaults(config.get("budget"))
    out["variants"] = {
        name: {**{k: v for k, v in spec.items() if k in VARIANT_META},
               **with_remedy_defaults({k: v for k, v in spec.items() if k not in VARIANT_META})}
        for name, spec in config.get("variants", {}).items()}
    out["trajectory"] = trajectory_cfg(out)
    out["numerics"] = with_numerics_defaults(config.get("numerics"), uses_gpus(config))
    return with_schema_defaults(out, schema if schema is not None else config_schema())


def with_schema_defaults(config: dict, schema: dict) -> dict:
    """`config` with the schema's `default` of every property it leaves out, in every mapping that exists.

    Only properties are filled, never a missing mapping created (unless the schema gives the mapping itself a
    `default`, e.g. `{}`): the presence of some mappings means something (a variant's `kl:` turns the remedy
    on). Runs after the special cases above (eval sets cut to the study's, remedy defaults), which it then
    leaves as they are. `$ref`s are followed; `if`/`then` branches are not (they only require keys)."""
    out = copy.deepcopy(config)
    _fill(out, schema, schema)
    return out


def _fill(instance, node: dict, root: dict) -> None:
    node = resolve(node, root.get("$defs", {}))[0]
    if isinstance(instance, dict):
        for key, sub in node.get("properties", {}).items():
            sub = resolve(sub, root.get("$defs", {}))[0]
            if key not in instance and isinstance(sub, dict) and "default" in sub:
                instance[key] = copy.deepcopy(sub["default"])
            if key in instance and isinstance(sub, dict):
                _fill(instance[key], sub, root)
        extra = node.get("additionalProperties")
        if isinstance(extra, dict):
            for key, value in instance.items():
                if key not in node.get("properties", {}):
                    _fill(value, extra, root)
    elif isinstance(instance, list) and isinstance(node.get("items"), dict):
        for item in instance:
            _fill(item, node["items"], root)


def uses_gpus(config: dict) -> bool:
    """Whether any kind of job asks for GPUs (then numerics are recorded, not pinned, by default)."""
    return any(spec.get("gpu", 0) for spec in config["resources"].values() if isinstance(spec, dict))


def with_analyse_resources(resources: dict) -> dict:
    """`resources` with `analyse` filled in: the `sample` job's resources (a job that loads the
    same models) and dtype auto, where the config does not give its own."""
    out = copy.deepcopy(dict(resources))
    sample = {k: v for k, v in resources["sample"].items() if k != "group"}  # analyses are never grouped
    out["analyse"] = {**sample, "nodes": 1, "tasks": 1, "dtype": "auto", **resources.get("analyse", {})}
    return out


# The `budget` verb's assumptions (python -m rlvr_support budget; planning/budget.py). Sequence
# counts come from the config; only these are assumed, and the budget table names each one.
BUDGET_DEFAULTS = {
    # mean response length as a share of the job's max_new_tokens (assumption; --measured replaces it)
    "response_fraction": 0.5,
    # UTF-8 bytes of response text per token: "1 token ~ 4 characters of English" (OpenAI, "What are
    # tokens and how to count them?", help.openai.com); --measured replaces it
    "text_bytes_per_token": 4.0,
    # billions of parameters per model (a key of `models`, or `base`) for the checkpoints' disk; the toy
    # model's are computed from base.arch
    "params_b": {},
    # per-GPU throughputs stated for a model (a key of `models`, or `base`), replacing the throughput model
    # (planning/throughput.py) for that model; none by default
    "throughput": {},
    # longest prompt in tokens, for the memory plan and the context-length check before the prompts exist
    "max_prompt_tokens": 1024,
    # a GPU job's start-up beyond reading its weights, in seconds per job kind (assumed; a pilot's measured
    # sample start-up replaces `sample`): sample, vLLM's engine: Python and CUDA initialisation (~10 s),
    # torch.compile of the model (~20-30 s on a first start, vLLM's compile cache after), the KV-cache
    # profiling run and CUDA-graph capture (~10 s for a 7-8B model), as vLLM's start-up log lines report them;
    # analyse, an HF load: imports, the CUDA context, moving the weights to the GPU; train: accelerate's
    # processes, NCCL and DeepSpeed ZeRO-3 initialisation and the colocated vLLM engine
    "startup_s": {"sample": 45, "analyse": 15, "train": 180},
    # the rate a job reads its weights from disk (assumed): a parallel file system's client reads about
    # 1-3 GB/s (Lustre, GPFS), a local NVMe 2-7 GB/s; 16.4 GB of Qwen3-8B in bf16 take about 8 s at 2 GB/s
    "weights_read_gb_per_s": 2.0,
}


def with_budget_defaults(budget: dict | None) -> dict:
    """The `budget` section with BUDGET_DEFAULTS filled in (a `throughput` entry replaces a default
    entry of the same key whole, keeping its `source` with its numbers)."""
    given = copy.deepcopy(dict(budget or {}))
    out = {**copy.deepcopy(BUDGET_DEFAULTS), **given}
    out["throughput"] = copy.deepcopy(given.get("throughput", {}))
    out["startup_s"] = {**BUDGET_DEFAULTS["startup_s"], **given.get("startup_s", {})}  # one kind given: the others kept
    return out
