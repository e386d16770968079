"""Checkpoints the study did not train, and the points of a training trajectory, defined once.

A config's `checkpoints:` block names models trained elsewhere (a hub id or a local folder):

    checkpoints:
      r1-distill-1.5b: {kind: hf, path: deepseek-ai/DeepSeek-R1-Distill-Qwen-1.5B, role: base}
      prorl-1.5b:      {kind: hf, path: nvidia/Nemotron-Research-Reasoning-Qwen-1.5B, base: r1-distill-1.5b}

A `role: base` entry is a starting model like an entry of `models:` (its results sit under
results/<name>/); every other entry names its `base` (a starting model: a `models` key, a
`role: base` checkpoint, or `base` in a one-model study) and is sampled, scored and analysed
beside that base's trained chains, with the label `<name>`. An external run's intermediate
checkpoints (`steps: [{step, path}]`, the checkpoint itself at `step`) are trajectory points.

Trajectory points (`trajectory: {chains, every, n, eval_sets}`) of a trained chain are the
weights its stage kept every `every` steps, labelled `<chain>/seed<k>/step<s>`; an external
run's are `<name>/step<s>`. Each run's curve starts at the checkpoint the stage started from
(step 0) and ends at the stage's own checkpoint: those two are read from the full-budget
samples (the first `n` samples of each prompt), the points between from their own, smaller one.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from rlvr_support.config.benchmarks import benchmark_sampling, eval_benchmarks
from rlvr_support.config.chains import CHAIN_RE, parent_chain

ONE_MODEL_BASE = "base"  # a one-model study's starting model (`base:`), as an external checkpoint names it
WEIGHT_SUFFIXES = (".safetensors", ".bin")
# The JSON files of a model folder that transformers reads, and through whose `auto_map` it would
# import and run Python files shipped with the folder (or fetched from another hub repository).
CODE_MAP_FILES = ("config.json", "tokenizer_config.json", "processor_config.json", "preprocessor_config.json")
HUB_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*/[A-Za-z0-9][A-Za-z0-9._-]*$")
TRAJECTORY_DEFAULTS = {"chains": [], "every": None, "n": None, "eval_sets": None}


def base_checkpoints(config: dict) -> dict[str, dict]:
    """{name: spec} of the `role: base` checkpoints (each a starting model)."""
    return {k: v for k, v in (config.get("checkpoints") or {}).items() if v.get("role") == "base"}


def external_checkpoints(config: dict) -> dict[str, dict]:
    """{name: spec} of the checkpoints to analyse against their base (not `role: base`)."""
    return {k: v for k, v in (config.get("checkpoints") or {}).items() if v.get("role") != "base"}


def as_base_spec(spec: dict) -> dict:
    """A checkpoint's spec as a starting model's (`models:` entry): where its weights are, how it is prompted."""
    return {k: spec[k] for k in ("kind", "path", "revision", "prompt_format", "max_positions") if k in spec}


def starting_models(config: dict) -> dict[str, dict]:
    """{name: base spec} of a study with several starting models (`models:` and `role: base`
    checkpoints); {} for a one-model study (`base:`)."""
    models = dict(config.get("models") or {})
    models.update({k: as_base_spec(v) for k, v in base_checkpoints(config).items()})
    return models


def base_names(config: dict) -> list[str]:
    """The names an external checkpoint's `base` may take."""
    return list(starting_models(config)) or ([ONE_MODEL_BASE] if "base" in config else [])


def externals_of(config: dict, model: str | None) -> list[str]:
    """The external checkpoints analysed against starting model `model` (None: the one-model study's base)."""
    own = model if model is not None else ONE_MODEL_BASE
    return [k for k, v in external_checkpoints(config).items() if v.get("base") == own]


def model_checkpoints(config: dict, model: str | None) -> list[str]:
    """The checkpoints of starting model `model` (None: the one-model study's) that have weights and are
    sampled at full budget: its base, each chain at each RL seed, the external checkpoints trained from it.
    One definition for the workflow's DAG (workflow/rules/common_dag.smk) and the budget (planning)."""
    trained = [f"{c}/seed{s}" for c in config["chains"] for s in config["rl"]["seeds"]]
    return ["base"] + trained + externals_of(config, model)


def trajectory_cfg(config: dict) -> dict:
    """The `trajectory` section with its defaults: no chains; `n` the smallest sampled n, capped at 8;
    every eval set."""
    t = {**TRAJECTORY_DEFAULTS, **(config.get("trajectory") or {})}
    if t["n"] is None:
        ns = [benchmark_sampling(config["sampling"], b)["n"] for bs in eval_benchmarks(config).values() for b in bs]
        t["n"] = min([8, *ns])
    if t["eval_sets"] is None:
        t["eval_sets"] = list(config["eval_sets"])
    return t


def kept_every(config: dict, chain: str) -> int:
    """Every how many steps the chain's stage keeps its weights for the trajectory (0: never)."""
    t = trajectory_cfg(config)
    return int(t["every"]) if chain in t["chains"] else 0


def trajectory_runs(config: dict, model: str | None) -> list[dict]:
    """The trajectory runs of one starting model: [{run, chain, seed, points: [(step, checkpoint
    label, is_own_point)]}]. An own point was sampled at the trajectory's budget; the others
    (the run's start and end) are full-budget checkpoints of the study."""
    t = trajectory_cfg(config)
    runs = []
    steps = config["rl"]["steps"] if t["chains"] else 0
    for chain in t["chains"]:
        parent = parent_chain(chain)
        for seed in config["rl"]["seeds"]:
            run = f"{chain}/seed{seed}"
            start = "base" if parent is None else f"{parent}/seed{seed}"
            mid = [(s, f"{run}/step{s}", True) for s in range(t["every"], steps, t["every"])]
            runs.append({"run": run, "chain": chain, "seed": seed,
                         "points": [(0, start, False), *mid, (steps, run, False)]})
    for name in externals_of(config, model):
        spec = external_checkpoints(config)[name]
        if spec.get("steps"):
            mid = [(p["step"], f"{name}/step{p['step']}", True) for p in sorted(spec["steps"], key=lambda p: p["step"])]
            runs.append({"run": name, "chain": name, "seed": None,
                         "points": [(0, "base", False), *mid, (spec["step"], name, False)]})
    return runs


def trajectory_point_labels(config: dict, model: str | None) -> list[str]:
    """The labels of the points sampled at the trajectory's budget."""
    return [label for r in trajectory_runs(config, model) for _, label, own in r["points"] if own]


def is_trajectory_point(label: str) -> bool:
    return re.search(r"/step\d+$", label) is not None


def external_step_path(spec: dict, step: int) -> str:
    """The folder of an external run's intermediate checkpoint at `step`."""
    for p in spec.get("steps") or []:
        if p["step"] == step:
            return p["path"]
    raise KeyError(f"no intermediate checkpoint at step {step}")


def remote_code_problem(path: str | Path) -> str | None:
    """Why loading the model folder `path` would need code shipped with the checkpoint, or None.

    The pipeline loads every model, tokenizer and config with `trust_remote_code=False`, so such a
    folder could only fail inside a job; it is refused here, before any job, naming the file and
    the key. A `model_type` transformers does not know is refused too: only custom code could load it."""
    p = Path(path).expanduser()
    for name in CODE_MAP_FILES:
        f = p / name
        if not f.is_file():
            continue
        try:
            spec = json.loads(f.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, json.JSONDecodeError) as e:
            return f"{f}: not a readable JSON file ({e})"
        if not isinstance(spec, dict):
            return f"{f}: expected a JSON object"
        if spec.get("auto_map"):
            return (f"{f}: key auto_map ({', '.join(sorted(spec['auto_map']))}) asks transformers to run code shipped "
                    "with the checkpoint; the pipeline never runs a checkpoint's own code (trust_remote_code=False): "
                    "use a checkpoint of an architecture transformers implements")
        if name == "config.json":
            from transformers.models.auto.configuration_auto import CONFIG_MAPPING_NAMES

            if spec.get("model_type") not in CONFIG_MAPPING_NAMES:
                return (f"{f}: key model_type {spec.get('model_type')!r} is not a model type transformers knows; "
                        "loading it would need the checkpoint's own code, which the pipeline never runs")
    return None


def model_folder_problem(path: str) -> str | None:
    """Why `path` is not a loadable model folder (config.json and weights, no custom code), or None."""
    p = Path(path).expanduser()
    if not p.exists():
        return f"{path} does not exist"
    if not p.is_dir():
        return f"{path} is not a directory"
    if not (p / "config.json").is_file():
        return f"{path} has no config.json"
    if not any(f.suffix in WEIGHT_SUFFIXES and f.name != "training_args.bin" for f in p.iterdir()):
        return f"{path} has no weights (*.safetensors or *.bin)"
    return remote_code_problem(p)


def check_checkpoint_path(kind: str, path: str) -> str | None:
    """Why a checkpoint's `path` cannot be read, or None. `local`: a model folder; `hf`: a model
    folder or a hub id (org/name; the base rule fetches it on the submit host)."""
    if kind == "local" or Path(path).expanduser().exists() or path.startswith((".", "/", "~")):
        return model_folder_problem(path)
    if not HUB_ID.match(path):
        return f"{path!r} is neither a model folder nor a hub id (org/name)"
    return None


RESERVED = ("data", "logs", "benchmarks")  # folders of results/ beside the models' own


def name_problem(name: str) -> str | None:
    """Why `name` cannot name a checkpoint, or None."""
    if name == ONE_MODEL_BASE:
        return "`base` names a one-model study's own starting model"
    if name in RESERVED:
        return f"results/{name}/ is a folder of the study"
    if re.fullmatch(CHAIN_RE, name):
        return "the name reads as a chain (stages joined by '-')"
    return None


def analysis_checkpoints(config: dict, labels: list[str], part: str) -> list[str]:
    """The checkpoint labels (`base`, `<chain>/seed<s>`, external names) that `analysis.<part>` (large_k,
    single_token) lists: those whose name, or whose chain, its `checkpoints` names; in the order of
    `labels`. [] when the part is off."""
    spec = config["analysis"].get(part)
    if not spec:
        return []
    named = set(spec["checkpoints"])
    return [c for c in labels if c in named or c.split("/")[0] in named]
