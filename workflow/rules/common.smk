import functools
import json
import os
import re
import shlex
import sys
from pathlib import Path

# The package is the single source of logic; make it importable from a plain checkout too.
sys.path.insert(0, str(Path(workflow.basedir) / "src"))
# ... and in the jobs: `python -m rlvr_support` may run in a conda env from envs/ (--sdm conda)
# or on a cluster node, where the package is not installed; SLURM jobs inherit this (--export=ALL).
# (snakemake --lint asks for an `envvars:` assertion here: PYTHONPATH is extended, not required.)
if str(Path(workflow.basedir) / "src") not in os.environ.get("PYTHONPATH", "").split(os.pathsep):
    os.environ["PYTHONPATH"] = os.pathsep.join(
        p for p in (str(Path(workflow.basedir) / "src"), os.environ.get("PYTHONPATH")) if p
    )

from rlvr_support.analysis.budget import budget_config
from rlvr_support.cli.failed_jobs import failed_job_logs
from rlvr_support.config.chains import CHAIN_RE, TASKS, distill_teacher, parent_chain, parse_chain, stage_task
from rlvr_support.config.checkpoints import (
    external_checkpoints,
    externals_of,
    is_trajectory_point,
    kept_every,
    analysis_checkpoints,
    trajectory_runs,
)
from rlvr_support.config.import_models import import_models, import_tokenizers
from rlvr_support.config.imports import (
    ImportConfigError,
    check_import_files,
    hub_imports,
    import_bases,
    import_files,
    import_hub,
    import_labels,
    import_source,
    import_spec,
    imported_base,
    imports_world_config,
    study_benchmarks,
)
from rlvr_support.config.defaults import VARIANT_META, fill_defaults, gradient_checkpointing
from rlvr_support.config.numerics import ENV_VAR as NUMERICS_ENV
from rlvr_support.config.revisions import revision_warning
from rlvr_support.config.validate import ConfigError, check_duplicate_keys, validate_config
from rlvr_support.data.prompt_job import task_sources, world_prompts_cfg
from rlvr_support.data.toyworld.limits import check_toy_world
from rlvr_support.data.verifiers import task_verifiers, verifiers_arg
from rlvr_support.lineage.codehash import code_manifest
from rlvr_support.lineage.job_code import job_code
from rlvr_support.lineage.provenance import CONFIGFILES_ENV, configfiles_record
from rlvr_support.lineage.study_tree import record_study, study_conflict
from rlvr_support.planning.study import check_study
from rlvr_support.scoring.verifiers.families import INSTRUCTION_FAMILIES

for configfile_path in workflow.configfiles:
    check_duplicate_keys(configfile_path)
validate_config(config)
try:  # imported samples' files, where the study runs (the working directory): before any job
    check_import_files(config)
except ImportConfigError as e:
    raise ConfigError(str(e)) from None
if workflow.is_main_process:  # builds the world (0.1-0.3 s): once, not again in every job's parse
    check_toy_world(config)  # what the toy world can hold: needs the world, so not in validate_config
# Before any job, once (not again in every job's own run of this file): an unpinned hub source is
# a silent change of weights or data waiting to happen.
if workflow.is_main_process and revision_warning(config):
    print(revision_warning(config), file=sys.stderr)
# Defaults (analysis keys, remedy parameters) are filled in once, here, so every rule and its
# params see the same complete config (rlvr_support/config/defaults.py).
config.update(fill_defaults(imports_world_config(config)))
# Before any job, once: every GPU job's memory plan against its GPU, prompt + new tokens against each model's
# positions, the trainer's gradient accumulation against the accelerate config (planning/study.py).
if workflow.is_main_process:
    for note in check_study(config):
        print(note, file=sys.stderr)
# Every job computes with the config's numerics (config/numerics.py): `python -m rlvr_support` reads them
# from here before it loads torch, and they override what the user's environment says. The jobs' sidecars
# also name the config files of the run. Jobs inherit both, on SLURM too (--export=ALL), and a job's
# own parse of this file sets them again from the same config.
os.environ[NUMERICS_ENV] = json.dumps(config["numerics"], sort_keys=True, separators=(",", ":"))
os.environ[CONFIGFILES_ENV] = json.dumps(configfiles_record(workflow.configfiles, workflow.basedir))


# A failed job's log ends with the CLI's one-line error: show it on the terminal, where Snakemake itself only says
# "check log file(s)" (a hub failure in `prefetch` is otherwise explained only in the rule's log).
onerror:
    if shown := failed_job_logs(log):
        print(shown, file=sys.stderr)


# One starting model (`base:`): results/... . Several (`models:`, e.g. the paper's two bases): each
# is a wildcard, results/{model}/..., over one shared copy of the prompts.
MODELS = list(config.get("models", {}))
TOP = "results"
DATA = f"{TOP}/data"
RESULTS = f"{TOP}/{{model}}" if MODELS else TOP
PY = "python -m rlvr_support"
# One study per working directory (lineage/study_tree.py): refused before any job, recorded when the first starts.
STUDY_CONFIGFILES = [r["path"] for r in configfiles_record(workflow.configfiles, workflow.basedir)]
if workflow.is_main_process and (conflict := study_conflict(TOP, config["study"], STUDY_CONFIGFILES)):
    raise ConfigError(conflict)


onstart:
    record_study(TOP, config["study"], STUDY_CONFIGFILES)


ANALYSIS = config["analysis"]
EVAL_BENCHMARKS = study_benchmarks(config)  # {eval set: its benchmarks}
# checkpoints trained elsewhere, by name (config/checkpoints.py), and imported labels' weights (config/import_models.py)
EXTERNAL = {**external_checkpoints(config), **import_models(config)}
TRAJECTORY = config["trajectory"]
EXTERNAL_RE = "|".join(re.escape(name) for name in EXTERNAL) or "-"  # "-": no external checkpoint
IMPORTS = import_labels(config)  # labels whose samples another tool wrote (config/imports.py)
IMPORT_MODELS = list(import_models(config))  # ... of them, those with the weights the samples came from
IMPORT_TOKENIZERS = import_tokenizers(config)  # ... those naming a tokenizer of their own: {label: spec}
IMPORTED_BASE = imported_base(config)  # a study of imported samples only: no model runs
IMPORT_RE = "|".join(re.escape(name) for name in IMPORTS) or "-"
RUN_RE = rf"{CHAIN_RE}/seed\d+|{EXTERNAL_RE}"  # a trained run or an external one: trajectory points hang off it
BOOTSTRAP_KEYS = ("bootstrap", "ci", "seed")  # what every table with confidence intervals reads


wildcard_constraints:
    model="|".join(re.escape(m) for m in MODELS) or "-",  # unused in a one-model study
    task="|".join(TASKS),
    eval_set="|".join(TASKS),
    chain=CHAIN_RE,
    seed=r"\d+",
    # base, a trained checkpoint, an external one, or a trajectory point of either (…/step<s>), or an imported label
    ckpt=rf"base|(({RUN_RE})(/step\d+)?)|{IMPORT_RE}",
    label=IMPORT_RE,
    ext=EXTERNAL_RE,
    run=RUN_RE,
    step=r"\d+",
    shard=r"\d+",


def results_dir(wildcards):
    """This job's results folder (for params and shell commands, which Snakemake does not fill in)."""
    return RESULTS.format(model=wildcards.get("model"))


def for_each_model(paths):
    """Paths with a {model} level, one per model; unchanged in a one-model study."""
    return expand(paths, model=MODELS) if MODELS else paths


def base_spec(wildcards):
    """The starting model's spec: `base`, or this model's entry of `models`."""
    return config["models"][wildcards.model] if MODELS else config["base"]


def compact_json(obj):
    """JSON for a rule's command line (quoted with :q); sorted keys keep params, and so reruns, stable."""
    return json.dumps(obj, sort_keys=True, separators=(",", ":"))


@functools.lru_cache(maxsize=None)
def code_of(names):
    """{file: hash} of the package modules `names` and their imports (lineage/codehash.py); many
    rules share a set, so each is hashed once per parse."""
    return code_manifest(*names)


def get_code(verb, verifiers=(), remedies=None):
    """A rule's code param: {file: hash} of the package code its job runs (lineage/job_code.py): its
    verb's module and what it imports, the verifier families and remedies the job loads. A changed
    value reruns the job; `python -m rlvr_support why <output>` names the files that changed."""
    return code_of(job_code(verb, verifiers, remedies))


def get_numerics():
    """The config's `numerics`, for the rules whose jobs run model code: they read it from the environment
    (RLVR_NUMERICS, above), and as a param a change of it reruns them (config/numerics.py)."""
    return compact_json(config["numerics"])


def get_conda_env(kind):
    """The conda environment of a job kind under `--sdm conda`: the CUDA build (envs/train.yaml) for
    a job that asks for GPUs, else the CPU build. vLLM runs in its own interpreter (envs/vllm.yaml,
    found through RLVR_VLLM_PYTHON), started by the sample job."""
    gpus = config["resources"].get(kind, {}).get("gpu", 0)
    return "../../envs/train.yaml" if gpus else "../../envs/cpu.yaml"


# ---- what each job reads: a rule's params are exactly these, so an edit elsewhere reruns nothing


def get_world_prompts_cfg(wildcards=None):
    """The toy world's prompt sets read the world's seed and per-task sizes, not its corpus (data/prompt_job.py:
    the budget checks a prompt file's provenance against the same keys)."""
    return compact_json(world_prompts_cfg(config))


def get_world_corpus_cfg(wildcards=None):
    """The corpus reads its own section, the seed and the math train levels (prompts are an input)."""
    w = config["world"]
    return compact_json({"seed": w["seed"], "corpus": w["corpus"], "math": {"train_levels": w["math"]["train_levels"]}})


def get_output_dir(wildcards, output):
    """The folder of a rule's outputs (the toy world writes one prompt file per task there)."""
    return str(Path(output[0]).parent)


def get_input_dir(wildcards, input):
    return str(Path(input[0]).parent)


def get_base_cfg(wildcards):
    return compact_json(base_spec(wildcards))


def get_pretrain_cfg(wildcards=None):
    """Pretraining reads the architecture and the optimiser schedule (its seed is a separate param)."""
    return compact_json({k: config["base"][k] for k in ("arch", "train")})


def get_train_cfg(wildcards):
    """The stage's RL keys: the whole `rl` section but `seeds` (the job trains one, its wildcard), and
    for a trajectory chain every how many steps it keeps its weights (no key for the others, so
    listing a chain in `trajectory` retrains that chain only). `rl.vllm` only under rollout_backend vllm;
    `gradient_checkpointing: auto` resolved for this stage's model (config/defaults.py). `rl.report_to` only
    when it names a tracker, so a study without training curves keeps the params it had."""
    skip = {"seeds"} | (set() if config["rl"].get("rollout_backend") == "vllm" else {"vllm"})
    skip |= {"report_to"} if config["rl"].get("report_to", "none") == "none" else set()
    cfg = {k: v for k, v in config["rl"].items() if k not in skip}
    cfg["gradient_checkpointing"] = gradient_checkpointing(config["rl"], base_spec(wildcards))
    if kept_every(config, wildcards.chain):
        cfg["keep_every"] = kept_every(config, wildcards.chain)
    return compact_json(cfg)


def uses_vllm():
    """The `sampling.vllm` engine options are read only by the vllm backend."""
    return config["sampling"]["backend"] == "vllm"


def sampling_keys(eval_set, n=None):
    """The `sampling` section a sample job of `eval_set` reads: without `routing` (read by routed jobs
    only), without the vLLM engine options unless the backend is vllm, with the per-benchmark budgets
    of the eval set's own benchmarks only; `n` (one shard) replaces every benchmark's n."""
    drop = {"routing"} | (set() if uses_vllm() else {"vllm"})
    cfg = {k: v for k, v in config["sampling"].items() if k not in drop}
    own = EVAL_BENCHMARKS.get(eval_set, [])
    cfg["benchmarks"] = {b: v for b, v in cfg["benchmarks"].items() if b in own}
    if n is not None:
        cfg["n"] = n
        cfg["benchmarks"] = {b: {**v, "n": n} for b, v in cfg["benchmarks"].items()}
    return cfg


def get_sampling_cfg(wildcards):
    """What a sample job reads (sampling_keys); a trajectory point samples at the trajectory's smaller
    budget, the same for every benchmark."""
    n = TRAJECTORY["n"] if is_trajectory_point(wildcards.ckpt) else None
    return compact_json(sampling_keys(wildcards.eval_set, n))


def get_routing_args(wildcards):
    """A routed job's own keys: the share of samples routed and how many tokens come from the reference."""
    r = config["sampling"]["routing"]
    return f"--route-gamma {r['gamma']} --route-tokens {r['tokens']}"


def get_generation_cfg(wildcards=None):
    """Generation inside analyses (the opening intervention): backend, temperature, top-p, seed, batch."""
    keys = ["backend", "temperature", "top_p", "seed", "prompt_batch"] + (["vllm"] if uses_vllm() else [])
    return compact_json({k: config["sampling"][k] for k in keys})


def get_scoring_cfg(wildcards=None):
    """What a scoring job reads: the `scoring` section (timeout, workers, reasoning, math_extraction),
    its defaults filled in, so setting math_extraction to its default rescores nothing."""
    return compact_json(config["scoring"])


# ---- the verifier families a job loads (scoring/verifiers/families.py): its --verifiers and its code


def eval_verifiers(eval_set):
    """The families scoring an eval set's (eval-split) prompts need (data/verifiers.py)."""
    return task_verifiers(config, eval_set, "eval")


def get_eval_verifiers(wildcards):
    """`--verifiers` of a job that scores the eval set of its wildcards."""
    return verifiers_arg(eval_verifiers(wildcards.eval_set))


def get_eval_code(verb):
    """The code param of a job of `verb` that scores the eval set of its wildcards."""

    def code(wildcards):
        return get_code(verb, eval_verifiers(wildcards.eval_set))

    return code


def all_eval_verifiers():
    """The families of every eval set (base metrics score them all)."""
    return tuple(sorted({f for e in config["eval_sets"] for f in eval_verifiers(e)}))


def reasoning_if_verifiers():
    """The instruction families of the eval sets the reasoning-if table rescores (it checks constraints only)."""
    return tuple(f for e in get_reasoning_if_eval_sets() for f in eval_verifiers(e) if f in INSTRUCTION_FAMILIES)


def train_verifiers(chain):
    """A stage's reward scores its task's train split; its support monitor (when on) the eval split of
    every task of the chain so far (get_probe_prompts)."""
    out = set(task_verifiers(config, stage_task(chain), "train"))
    if config["rl"].get("monitor"):
        out |= {f for t in dict.fromkeys(parse_chain(chain)[0]) for f in eval_verifiers(t)}
    return tuple(sorted(out))


def get_train_verifiers(wildcards):
    return verifiers_arg(train_verifiers(wildcards.chain))


def get_train_code(wildcards):
    """The trainer, the stage's reward and monitor verifiers, and the remedies its variant turns on."""
    return get_code("train", train_verifiers(wildcards.chain), remedies=json.loads(get_remedies(wildcards)))


def get_source_verifiers(wildcards):
    """A data build validates every split of its task."""
    return verifiers_arg(task_verifiers(config, wildcards.task))


def get_source_code(wildcards):
    return get_code("data-sources", task_verifiers(config, wildcards.task))


def get_point_code(wildcards):
    """A trajectory point of an external run is declared by `checkpoint`, of a trained run by `trajectory-point`."""
    return get_code("checkpoint" if wildcards.run in EXTERNAL else "trajectory-point")


def get_task_prompt_args(wildcards=None):
    """`task=path` pairs of every eval set's prompt file (base metrics)."""
    return [f"{t}={DATA}/prompts/{t}.jsonl" for t in config["eval_sets"]]


def get_eval_prompt_files(wildcards=None):
    return [f"{DATA}/prompts/{t}.jsonl" for t in config["eval_sets"]]


def used_tasks():
    """The tasks whose prompts the study reads: its eval sets and every task a chain trains on."""
    trained = [t for c in config["chains"] for t in parse_chain(c)[0]]
    return [t for t in TASKS if t in config["eval_sets"] or t in trained]


def get_base_metrics_sampling(wildcards=None):
    """Base metrics generate through the sampling backend: backend, batch, token budget (and vllm)."""
    keys = ["backend", "prompt_batch", "max_new_tokens"] + (["vllm"] if uses_vllm() else [])
    return compact_json({k: config["sampling"][k] for k in keys})


def get_analyse_dtype(wildcards=None):
    """The weights dtype of the model-loading analyses (auto: bfloat16 on GPUs, float32 on CPU)."""
    return config["resources"]["analyse"]["dtype"]


def get_analysis_cfg(*keys):
    """The filled-in `analysis` section cut to the keys one table job reads."""
    return compact_json({k: ANALYSIS[k] for k in keys})


def get_analysis_part(part, *keys):
    """A model-based analysis' own section (without its `eval_sets`, which pick the jobs) plus `keys`."""
    own = {k: v for k, v in ANALYSIS[part].items() if k != "eval_sets"}
    return compact_json({part: own, **{k: ANALYSIS[k] for k in keys}})


def get_opening_tokens(wildcards=None):
    return ANALYSIS["opening_tokens"]


# ---- the DAG: checkpoints, chains and the files between rules


def model_of(wildcards=None):
    """The starting model of a job (None in a one-model study); at parse time, the only model."""
    if wildcards is not None and "model" in wildcards.keys():
        return wildcards.model
    return MODELS[0] if len(MODELS) == 1 else None


def checkpoints(wildcards=None):
    """Every checkpoint the study analyses at full budget: the base, each chain for each RL seed, the
    external checkpoints trained from this base and the imported labels (a one-model study's)."""
    return [c for c in model_checkpoints(wildcards) if c not in IMPORTS] + IMPORTS


def model_checkpoints(wildcards=None):
    """The checkpoints with weights here: what the analyses that run a model (JS, the intervention,
    perplexity) cover. Imported labels came as samples only, unless they name their weights (`model:`)."""
    trained = [f"{c}/seed{s}" for c in config["chains"] for s in config["rl"]["seeds"]]
    return ["base"] + trained + externals_of(config, model_of(wildcards)) + IMPORT_MODELS


def get_external_cfg(wildcards):
    """An external checkpoint's `checkpoints` entry; only under the results of its own base."""
    if wildcards.ext not in externals_of(config, model_of(wildcards)) + IMPORT_MODELS:
        raise ValueError(
            f"checkpoint {wildcards.ext!r} is analysed against {EXTERNAL[wildcards.ext]['base']!r}, "
            f"not {model_of(wildcards)!r}"
        )
    return compact_json(EXTERNAL[wildcards.ext])


def get_support_bases():
    """`--bases label=base ...` of the imported labels whose support is measured against another label."""
    pairs = import_bases(config)
    return "--bases " + " ".join(f"{c}={b}" for c, b in pairs.items()) if pairs else ""


def hub_manifest(label, eval_set):
    """The manifest of a hub entry's files, fetched by `import_hub_files` (imports/hub_files.py)."""
    return f"{RESULTS}/imports/{label}/{eval_set}.hub.json"


def get_import_files(wildcards):
    """The source files of an imported label's eval set (config/imports.py: globs expanded, in order), or for a
    hub entry the manifest of its fetched files."""
    label = wildcards.get("label", "base")
    if import_hub(config, label, wildcards.eval_set):
        return [hub_manifest(label, wildcards.eval_set)]
    return import_files(config, label, wildcards.eval_set)


def get_import_files_arg(wildcards):
    """How import-samples takes get_import_files: as the files, or as a hub entry's manifest of them."""
    hub = import_hub(config, wildcards.get("label", "base"), wildcards.eval_set)
    return "--files-manifest" if hub else "--files"


def get_import_hub(wildcards):
    """What a hub entry's fetch reads: its repo, revision and file patterns."""
    return compact_json(import_hub(config, wildcards.ckpt, wildcards.eval_set))


def get_import_tokenizer(wildcards):
    """An imported label with a model: its manifest, whose tokenizer splits the responses that came without
    token ids (imports/import_job.py)."""
    label = wildcards.get("label", "base")
    return {"tokenizer": f"{RESULTS}/checkpoints/{label}/manifest.json"} if label in IMPORT_MODELS else {}


def get_import_tokenizer_arg(wildcards, input):
    return f"--tokenizer {input.tokenizer}" if "tokenizer" in input.keys() else ""


def get_import_tokenizer_cfg(wildcards):
    """What an imported label's tokenizer manifest is made from: its `tokenizer:` (path, revision)."""
    return compact_json(IMPORT_TOKENIZERS[wildcards.label])


def label_tokenizer_manifests():
    """{imported label: the manifest of the tokenizer its openings are counted in}: its own `tokenizer:`'s or
    its model's, for the labels with either (config/import_models.py), in the config's order."""
    return {
        c: (
            f"{RESULTS}/imports/{c}/tokenizer.json"
            if c in IMPORT_TOKENIZERS
            else f"{RESULTS}/checkpoints/{c}/manifest.json"
        )
        for c in IMPORTS
        if c in IMPORT_TOKENIZERS or c in IMPORT_MODELS
    }


def get_import_spec(wildcards):
    return compact_json(import_spec(config, wildcards.get("label", "base"), wildcards.eval_set))


def get_import_match(wildcards):
    return import_source(config, wildcards.label, wildcards.eval_set)["match"]


def get_agreement_threshold(wildcards):
    return import_source(config, wildcards.ckpt, wildcards.eval_set)["agreement_threshold"]


def get_import_outputs():
    """The verifier-agreement table of each imported label and eval set: targets of `all`."""
    labels = (["base"] if IMPORTED_BASE else []) + IMPORTS
    return [f"{RESULTS}/tables/verifier_agreement/{c}/{e}.csv" for c in labels for e in config["eval_sets"]]


def sample_shards():
    """How many prompt blocks each (checkpoint, eval set) sample job is split into (sampling.shards)."""
    return config["sampling"].get("shards", 1)


def get_sample_shards(wildcards):
    """The shard files that `sample_merge` concatenates, in shard order."""
    return [
        f"{RESULTS}/samples/{wildcards.ckpt}/{wildcards.eval_set}.shards/{i}.parquet" for i in range(sample_shards())
    ]


def get_shard(wildcards):
    return wildcards.get("shard", 0)


def get_model(wildcards):
    return f"{RESULTS}/checkpoints/{wildcards.ckpt}/manifest.json"


def get_parent(wildcards):
    """`math-if` (and `math-if~kl`) continues from `math` (same seed); a one-stage chain starts from the base."""
    parent = parent_chain(wildcards.chain)
    if parent is None:
        return f"{RESULTS}/checkpoints/base/manifest.json"
    return f"{RESULTS}/checkpoints/{parent}/seed{wildcards.seed}/manifest.json"


def get_task_sources(wildcards):
    """A `datasets` world's sources for one task, as JSON for `data-sources --sources` (data/prompt_job.py)."""
    return compact_json(task_sources(config, wildcards.task))


def get_stage_task(wildcards):
    return stage_task(wildcards.chain)


def variant_spec(chain):
    """The (filled-in) `variants` entry of the chain's variant; {} for a plain chain."""
    _, variant = parse_chain(chain)
    return config["variants"][variant] if variant else {}


def get_remedies(wildcards):
    """The variant's remedies, defaults filled in, as JSON for `train --remedies` ({} for a plain chain)."""
    return compact_json({k: v for k, v in variant_spec(wildcards.chain).items() if k not in VARIANT_META})


def get_teacher(wildcards):
    """Distillation teacher (config/chains.distill_teacher): the stage's parent (default), its weights
    kept at `teacher_step` (a trajectory point), or the base policy; the parent when not distilling."""
    teacher = distill_teacher(config, wildcards.chain)
    if teacher is None or (teacher[0] != "base" and not teacher[2]):
        return get_parent(wildcards)
    if teacher[0] == "base":
        return f"{RESULTS}/checkpoints/base/manifest.json"
    return f"{RESULTS}/checkpoints/{teacher[0]}/seed{wildcards.seed}/step{teacher[1]}/manifest.json"


def get_probe_prompts(wildcards):
    """Prompt files of every task of the chain so far (current and previous): the monitor's probes."""
    stages, _ = parse_chain(wildcards.chain)
    return [f"{DATA}/prompts/{t}.jsonl" for t in dict.fromkeys(stages)]


def get_probe_args(wildcards):
    """`task=path` pairs for `train --probe`."""
    return " ".join(f"{Path(p).stem}={p}" for p in get_probe_prompts(wildcards))


def get_stage_prompts(wildcards):
    return f"{DATA}/prompts/{get_stage_task(wildcards)}.jsonl"


def get_all_scores(wildcards=None):
    return [f"{RESULTS}/scores/{c}/{e}.parquet" for c in checkpoints(wildcards) for e in config["eval_sets"]]


def get_all_samples(wildcards=None):
    return [f"{RESULTS}/samples/{c}/{e}.parquet" for c in checkpoints(wildcards) for e in config["eval_sets"]]


def sequential_chains():
    """Chains of two or more stages (variants included): the ones the remedy comparison covers."""
    return [c for c in config["chains"] if len(parse_chain(c)[0]) > 1]


def get_monitor_files(chain):
    return [f"{RESULTS}/checkpoints/{chain}/seed{s}/monitor.csv" for s in config["rl"]["seeds"]]


def reward_curves():
    """{chain/seedS: its stage's reward_curve.csv} for every trained run."""
    return {
        f"{c}/seed{s}": f"{RESULTS}/checkpoints/{c}/seed{s}/reward_curve.csv"
        for c in config["chains"]
        for s in config["rl"]["seeds"]
    }


def get_reward_curves(wildcards=None):
    return list(reward_curves().values())


def get_reward_curve_args(wildcards):
    """`chain/seedS=path` pairs for `trainability-table --curves`."""
    return " ".join(f"{run}={p.format(model=wildcards.get('model'))}" for run, p in reward_curves().items())


def get_all_monitor_files(wildcards=None):
    return [m for c in config["chains"] for m in get_monitor_files(c)]


def get_distill_teachers():
    """{chain: {teacher, teacher_step, teacher_fraction}} of the distilling chains, for the teacher table."""
    out = {}
    for chain in config["chains"]:
        t = distill_teacher(config, chain)
        if t:
            label = t[0] + (f" step {t[1]}" if t[2] else " (final)" if t[0] != "base" else "")
            out[chain] = {"teacher": label, "teacher_step": t[1], "teacher_fraction": t[1] / config["rl"]["steps"]}
    return compact_json(out)


def get_remedy_outputs():
    """Remedy table + trade-off figure (when a sequential chain exists) and one monitor figure per chain."""
    out = [f"{RESULTS}/figures/monitor/{c}.png" for c in config["chains"]]
    if sequential_chains():
        out += [f"{RESULTS}/tables/remedies.csv", f"{RESULTS}/figures/remedy_tradeoff.png"]
    return out


def get_figures():
    return [f"{RESULTS}/figures/passk_{e}.png" for e in config["eval_sets"]] + [
        f"{RESULTS}/figures/bestk_{e}.png" for e in config["eval_sets"]
    ]


# ---- support analyses (workflow/rules/support.smk)


def get_js_eval_sets():
    """The eval sets of the JS analysis; none when the base is imported (JS runs the base model)."""
    return [] if IMPORTED_BASE else [e for e in config["eval_sets"] if e in ANALYSIS["divergence"]["eval_sets"]]


def get_intervention_eval_sets():
    """The eval sets of the opening intervention; none when the base is imported (it samples the models)."""
    return [] if IMPORTED_BASE else [e for e in config["eval_sets"] if e in ANALYSIS["intervention"]["eval_sets"]]


def has_perplexity():
    """Reference solutions exist in the toy world only."""
    return config["world"]["kind"] == "toy"


def get_openings_tokenizer(wildcards):
    """The base's manifest, whose tokenizer decodes the openings (none for an imported base), and the tokenizers
    of the imported labels whose openings are counted in tokens of their own (label_tokenizer_manifests)."""
    out = {} if IMPORTED_BASE else {"tokenizer": f"{RESULTS}/checkpoints/base/manifest.json"}
    if label_tokenizer_manifests():
        out["label_tokenizers"] = list(label_tokenizer_manifests().values())
    return out


def get_openings_tokenizer_arg(wildcards, input):
    args = [f"--tokenizer {input.tokenizer}"] if "tokenizer" in input.keys() else []
    if "label_tokenizers" in input.keys():
        pairs = zip(label_tokenizer_manifests(), input.label_tokenizers, strict=True)
        args.append("--label-tokenizer " + " ".join(f"{label}={path}" for label, path in pairs))
    return " ".join(args)


def get_js_files(folder):
    """One Parquet file per JS eval set under `RESULTS/folder` (wildcards left for Snakemake to fill)."""
    return [f"{RESULTS}/{folder}/{e}.parquet" for e in get_js_eval_sets()]


def get_js_prompts(wildcards=None):
    return [f"{DATA}/prompts/{e}.jsonl" for e in get_js_eval_sets()]


def get_js_runs(wildcards=None):
    return [
        f"{RESULTS}/analysis/js/{c}/{e}.parquet" for c in model_checkpoints(wildcards)[1:] for e in get_js_eval_sets()
    ]


def get_perplexity_runs(wildcards=None):
    # an output list, fixed at parse time: the toy world has one starting model (config validation)
    return [f"{RESULTS}/analysis/perplexity/{c}/math.parquet" for c in model_checkpoints(wildcards)]


def get_checkpoint_manifests(wildcards=None):
    """Every model checkpoint's manifest, in model_checkpoints() order."""
    return [f"{RESULTS}/checkpoints/{c}/manifest.json" for c in model_checkpoints(wildcards)]


def get_intervention_samples(wildcards):
    return [f"{RESULTS}/samples/{c}/{wildcards.eval_set}.parquet" for c in model_checkpoints(wildcards)]


def get_intervention_scores(wildcards):
    return [f"{RESULTS}/scores/{c}/{wildcards.eval_set}.parquet" for c in model_checkpoints(wildcards)]


def get_intervention_labels(kind):
    """`label=path` pairs (label: base, chain/seedK or an external name) of the rule's input `kind`,
    in model_checkpoints() order."""

    def pairs(wildcards, input):
        return " ".join(f"{c}={p}" for c, p in zip(model_checkpoints(wildcards), input[kind], strict=True))

    return pairs


def get_claims_inputs(wildcards=None):
    ins = {
        "scores": get_all_scores(wildcards),
        "passk": f"{RESULTS}/tables/passk.csv",
        "support": f"{RESULTS}/tables/support.csv",
        "support_per_prompt": f"{RESULTS}/tables/support_categories.csv",
        "entropy": f"{RESULTS}/tables/entropy.csv",
        "modes": f"{RESULTS}/tables/opening_modes.csv",
        "trainability": f"{RESULTS}/tables/trainability.csv",
        "decomposition": [f"{RESULTS}/tables/intervention_decomposition_{e}.csv" for e in get_intervention_eval_sets()],
    }
    if get_js_eval_sets():
        ins["js"] = f"{RESULTS}/tables/js_share.csv"
    if has_perplexity():
        ins["perplexity"] = f"{RESULTS}/tables/perplexity.csv"
    if has_trajectory(wildcards):
        ins["association"] = f"{RESULTS}/tables/association.csv"
    if get_reasoning_if_eval_sets():
        ins["reasoning_if"] = f"{RESULTS}/tables/reasoning_if.csv"
    if get_single_token_eval_sets():
        ins["single_token"] = f"{RESULTS}/tables/single_token.csv"
    return ins


def get_claims_args(wildcards, input):
    args = []
    if "js" in input.keys():
        args.append(f"--js-share {input.js}")
    if "perplexity" in input.keys():
        args.append(f"--perplexity {input.perplexity}")
    if "association" in input.keys():
        args.append(f"--association {input.association}")
    if "reasoning_if" in input.keys():
        args.append(f"--reasoning-if {input.reasoning_if}")
    if "single_token" in input.keys():
        args.append(f"--single-token {input.single_token}")
    if get_intervention_eval_sets():
        args.append(
            "--decomposition "
            + " ".join(f"{e}={p}" for e, p in zip(get_intervention_eval_sets(), input.decomposition, strict=True))
        )
    return " ".join(args)


def get_support_outputs():
    """Every table and figure of support.smk: targets of `all`."""
    out = [
        f"{RESULTS}/tables/{t}"
        for t in (
            "support.csv",
            "support.md",
            "support_categories.csv",
            "support_categories.md",
            "entropy.csv",
            "entropy.md",
            "openings.csv",
            "openings.md",
            "openings_summary.csv",
            "openings_styles.csv",
            "claims.csv",
            "seed_stability.csv",
            "seed_stability.md",
            "claims.md",
        )
    ]
    out += [f"{RESULTS}/figures/support_{e}.png" for e in config["eval_sets"]]
    out += [f"{RESULTS}/figures/openings_{e}.png" for e in config["eval_sets"]]
    out.append(f"{RESULTS}/figures/entropy.png")
    if get_js_eval_sets():
        out += [f"{RESULTS}/tables/js_share.csv", f"{RESULTS}/tables/js_positions.csv"]
        out += [f"{RESULTS}/figures/js_{e}.png" for e in get_js_eval_sets()]
    for e in get_intervention_eval_sets():
        out += [
            f"{RESULTS}/tables/intervention_{e}.csv",
            f"{RESULTS}/tables/intervention_decomposition_{e}.csv",
            f"{RESULTS}/figures/intervention_{e}.png",
        ]
    if has_perplexity():
        out += [f"{RESULTS}/tables/perplexity.csv", f"{RESULTS}/figures/perplexity.png"]
    return out


# ---- the support-reshaping paper's measurements (Verifier-Induced Support Reshaping) (workflow/rules/seed000.smk)


def get_rl_group_size():
    """The RL group size G (None in a study that trains nothing: then only analysis.trainability's sizes)."""
    return config["rl"].get("group_size")


def get_trainability_cfg(wildcards=None):
    """What the trainability table reads: G of the RL stages, analysis.trainability and the bootstrap keys."""
    return compact_json(
        {
            "group_size": get_rl_group_size(),
            "trainability": ANALYSIS["trainability"],
            **{k: ANALYSIS[k] for k in BOOTSTRAP_KEYS},
        }
    )


def get_claims_cfg(wildcards=None):
    """What the claims table reads: m, the bootstrap keys and G (the mixed-group claim)."""
    keys = ("opening_tokens", *BOOTSTRAP_KEYS)
    return compact_json({"group_size": get_rl_group_size(), **{k: ANALYSIS[k] for k in keys}})


def get_reasoning_if_eval_sets():
    """The eval sets whose prompts carry constraints (analysis/reasoning_if.py)."""
    return [e for e in config["eval_sets"] if e in ("if", "joint")]


def get_reasoning_if_samples(wildcards=None):
    return [f"{RESULTS}/samples/{c}/{e}.parquet" for c in checkpoints(wildcards) for e in get_reasoning_if_eval_sets()]


def get_reasoning_if_prompts(wildcards=None):
    return [f"{DATA}/prompts/{e}.jsonl" for e in get_reasoning_if_eval_sets()]


def get_seed000_outputs():
    """Every table and figure of seed000.smk: targets of `all`."""
    tables = ["trainability", "polarisation", "polarisation_transitions", "polarisation_histogram", "opening_modes"]
    if get_js_eval_sets():
        tables.append("route_entry")
    if get_reasoning_if_eval_sets():
        tables.append("reasoning_if")
    out = [f"{RESULTS}/tables/{t}.{ext}" for t in tables for ext in ("csv", "md")]
    out += [f"{RESULTS}/figures/polarisation_{e}.png" for e in config["eval_sets"]]
    return out


# ---- training trajectories (workflow/rules/trajectory.smk)


def has_trajectory(wildcards=None):
    return bool(trajectory_runs(config, model_of(wildcards)))


def get_trajectory_points(wildcards, root=None):
    """One entry per trajectory point and eval set: run, chain, seed, step and its samples and scores
    (the run's start and end are the full-budget files; the verb reads their first `n` samples)."""
    root = RESULTS if root is None else root
    return [
        {
            "run": r["run"],
            "chain": r["chain"],
            "seed": r["seed"],
            "step": step,
            "checkpoint": label,
            "samples": f"{root}/samples/{label}/{e}.parquet",
            "scores": f"{root}/scores/{label}/{e}.parquet",
        }
        for r in trajectory_runs(config, model_of(wildcards))
        for step, label, _ in r["points"]
        for e in TRAJECTORY["eval_sets"]
    ]


def get_trajectory_inputs(wildcards):
    points = get_trajectory_points(wildcards)
    return {"samples": [p["samples"] for p in points], "scores": [p["scores"] for p in points]}


def get_trajectory_points_arg(wildcards):
    """The points as JSON, with this model's concrete paths."""
    return compact_json(get_trajectory_points(wildcards, root=results_dir(wildcards)))


def get_trajectory_cfg(wildcards=None):
    """What the trajectory table reads: k (the trajectory's n) and the bootstrap keys."""
    return compact_json({"k": TRAJECTORY["n"], **{k: ANALYSIS[k] for k in BOOTSTRAP_KEYS}})


def get_point_origin(wildcards):
    """What a trajectory point's manifest is made from: the trained run's manifest (its stage kept the
    weights), or nothing for an external run's (its folder was checked by config validation)."""
    return [] if wildcards.run in EXTERNAL else [f"{RESULTS}/checkpoints/{wildcards.run}/manifest.json"]


def get_point_command(wildcards, input, output):
    if wildcards.run in EXTERNAL:
        return (
            f"checkpoint --name {wildcards.run} --cfg {shlex.quote(compact_json(EXTERNAL[wildcards.run]))} "
            f"--step {wildcards.step} --out {output[0]}"
        )
    return f"trajectory-point --run {input[0]} --step {wildcards.step} --out {output[0]}"


def get_trajectory_outputs(wildcards=None):
    if not any(trajectory_runs(config, m) for m in (MODELS or [None])):
        return []
    out = [f"{RESULTS}/tables/{t}" for t in ("trajectory.csv", "trajectory.md", "association.csv", "association.md")]
    for e in TRAJECTORY["eval_sets"]:
        out += [f"{RESULTS}/figures/trajectory_{e}.png", f"{RESULTS}/figures/association_{e}.png"]
    return out


# ---- routing prior at sampling time (workflow/rules/routed.smk)


def routed_checkpoints():
    routing = config["sampling"].get("routing")
    if not routing:
        return []
    return [f"{c}/seed{s}" for c in routing["chains"] for s in config["rl"]["seeds"]]


def get_routed_scores(wildcards=None):
    return [f"{RESULTS}/routed/scores/{c}/{e}.parquet" for c in routed_checkpoints() for e in config["eval_sets"]]


def get_routed_outputs():
    return [f"{RESULTS}/tables/routed_passk.csv", f"{RESULTS}/tables/routed_passk.md"] if routed_checkpoints() else []


def get_prefetch_targets():
    """The outputs of the rules that download (data sources, real base models, imported files in hub dataset
    repos): all local rules. An imported base has no weights, and its files hold an imports world's prompts."""
    out = [f"{DATA}/prompts/{t}.jsonl" for t in used_tasks()] if config["world"]["kind"] == "datasets" else []
    if MODELS or config["base"]["kind"] not in ("pretrain", "import"):
        out += for_each_model([f"{RESULTS}/checkpoints/base/manifest.json"])
    out += [hub_manifest(label, e) for label, e, _ in hub_imports(config)]
    for name, spec in EXTERNAL.items():  # checkpoints trained elsewhere: hub ids are fetched here too
        folder = RESULTS.format(model=spec["base"]) if MODELS else RESULTS
        out.append(f"{folder}/checkpoints/{name}/manifest.json")
    out += [f"{RESULTS}/imports/{label}/tokenizer.json" for label in IMPORT_TOKENIZERS]  # imported labels' tokenizers
    return out


# ---- the budget (workflow/rules/budget.smk)


def get_budget_prompts():
    """The prompt files the budget counts eval prompts in: the eval sets' and the trained tasks'."""
    return [f"{DATA}/prompts/{t}.jsonl" for t in used_tasks()]


def get_budget_cfg():
    """The keys the budget reads (analysis/budget.py budget_config), as JSON."""
    return compact_json(budget_config(config))


def get_budget_outputs():
    """One budget for the whole study (every model), beside the models' folders; none for a study of
    imported samples only, which runs no model."""
    return [] if IMPORTED_BASE else [f"{TOP}/budget.md", f"{TOP}/budget.csv"]


# ---- best@k at a larger k (workflow/rules/large_k.smk)

LARGE_K = ANALYSIS.get("large_k")  # None: not run


def get_large_k_checkpoints(wildcards=None):
    """The checkpoints of analysis.large_k.checkpoints in this model's results: base, each listed chain
    at every RL seed, the listed external checkpoints of this base; in checkpoints() order."""
    return analysis_checkpoints(config, model_checkpoints(wildcards), "large_k")


def get_large_k_prompts(wildcards):
    return f"{DATA}/subsets/{LARGE_K['prompts']}/{wildcards.eval_set}.jsonl"


def get_large_k_sampling_cfg(wildcards):
    """The sample job's `sampling` keys at analysis.large_k.n for every benchmark, one shard."""
    return compact_json({**sampling_keys(wildcards.eval_set, LARGE_K["n"]), "shards": 1})


def get_large_k_scores(wildcards=None):
    return [
        f"{RESULTS}/large_k/scores/{c}/{e}.parquet"
        for c in get_large_k_checkpoints(wildcards)
        for e in config["eval_sets"]
    ]


def get_large_k_outputs():
    if not LARGE_K:
        return []
    return [f"{RESULTS}/tables/passk_large_k.csv", f"{RESULTS}/tables/headline_large_k.md"] + [
        f"{RESULTS}/figures/bestk_large_k_{e}.png" for e in config["eval_sets"]
    ]


# ---- single-token interventions (workflow/rules/single_token.smk)

SINGLE_TOKEN = ANALYSIS.get("single_token")  # None: not run


def get_single_token_eval_sets():
    return [e for e in config["eval_sets"] if SINGLE_TOKEN and e in SINGLE_TOKEN["eval_sets"]]


def get_single_token_checkpoints(wildcards=None):
    """The checkpoints of analysis.single_token.checkpoints (each paired with the base): every listed
    chain at every RL seed, the listed external checkpoints of this base; in checkpoints() order."""
    return analysis_checkpoints(config, model_checkpoints(wildcards), "single_token")


def get_single_token_prompts(wildcards):
    return f"{DATA}/subsets/{SINGLE_TOKEN['prompts']}/{wildcards.eval_set}.jsonl"


def get_single_token_cfg(wildcards=None):
    """What a single_token job reads; checkpoints, eval sets and prompts pick the jobs and their inputs.
    Evaluated when the rule is parsed, also where the analysis is off (then no job uses it)."""
    if not SINGLE_TOKEN:
        return compact_json({})
    return compact_json({"single_token": {k: SINGLE_TOKEN[k] for k in ("n", "positions", "max_new_tokens")}})


def get_single_token_runs(wildcards=None):
    return [
        f"{RESULTS}/single_token/{c}/{e}.parquet"
        for c in get_single_token_checkpoints(wildcards)
        for e in get_single_token_eval_sets()
    ]


def get_single_token_run_args(wildcards, input):
    """`label=path` per run, the label the checkpoint's (chain/seedK or an external name)."""
    labels = [c for c in get_single_token_checkpoints(wildcards) for _ in get_single_token_eval_sets()]
    return " ".join(f"{c}={p}" for c, p in zip(labels, input, strict=True))


def get_single_token_outputs():
    if not get_single_token_eval_sets():
        return []
    return [f"{RESULTS}/tables/single_token.csv", f"{RESULTS}/tables/single_token.md"] + [
        f"{RESULTS}/figures/single_token_{e}.png" for e in get_single_token_eval_sets()
    ]


def get_final_output():
    base_metrics = [] if IMPORTED_BASE else [f"{RESULTS}/checkpoints/base/metrics.json"]
    return get_budget_outputs() + for_each_model(
        [
            *base_metrics,
            f"{RESULTS}/tables/passk.csv",
            f"{RESULTS}/tables/headline.csv",
            f"{RESULTS}/tables/headline.md",
            f"{RESULTS}/tables/difficulty.csv",
            *get_figures(),
            *get_remedy_outputs(),
            *get_support_outputs(),
            *get_seed000_outputs(),
            *get_routed_outputs(),
            *get_single_token_outputs(),
            *get_trajectory_outputs(),
            *get_large_k_outputs(),
            *get_import_outputs(),
        ]
    )


# ---- What each job asks the scheduler for (config["resources"]; the SLURM profile is slurm/) ----
# Partition and account are never set here: they belong to the cluster, so they come from the
# profile or the command line. A retry (profile: retries) asks for more runtime (minutes) and mem_mb
# only up to max_runtime / max_mem_mb, which default to the first attempt's: a partition rejects a job
# that asks for more than it grants, so nothing grows unless the config allows it.


def get_threads(kind):
    """A job's threads = the CPU cores it asks SLURM for (cpus_per_task)."""
    return config["resources"][kind]["cpus_per_task"]


def get_resource(kind, key):
    """A fixed resource of a job kind: nodes, tasks, cpus_per_task."""
    return config["resources"][kind][key]


def get_gpus_per_node(kind):
    """GPUs one node of the job must see; the job's `--gpus` check (rlvr_support.models.devices) enforces it."""
    return config["resources"][kind].get("gpu", 0)


def get_gpus(kind):
    """GPUs the whole job asks SLURM for (`--gpus` is a per-job total): per node times nodes."""
    return get_gpus_per_node(kind) * config["resources"][kind].get("nodes", 1)


def get_runtime(kind):
    """Wall time in minutes: `runtime` on attempt 1, k times that on retry attempt k, at most `max_runtime`."""
    res = config["resources"][kind]
    minutes, most = res["runtime"], res.get("max_runtime", res["runtime"])

    def runtime(wildcards, attempt):
        return min(minutes * attempt, most)

    return runtime


def get_mem_mb(kind):
    """Memory in MB (per node): `mem_mb` on attempt 1, k times that on attempt k, at most `max_mem_mb`."""
    res = config["resources"][kind]
    mem_mb, most = res["mem_mb"], res.get("max_mem_mb", res["mem_mb"])

    def mem(wildcards, attempt):
        return min(mem_mb * attempt, most)

    return mem


def get_mpi(kind):
    """'srun' for a multi-node job, else None (unset). The SLURM plugin then runs the job's shell
    command on the first node without wrapping it in `srun -n1`, so the command's own `srun`
    (scripts/accelerate_multinode.sh) can start one launcher per node."""
    return "srun" if config["resources"][kind].get("nodes", 1) > 1 else None


def get_main_process_port(output):
    """The rendezvous port of a one-node multi-GPU job, as bash: RLVR_MAIN_PROCESS_PORT when set, else 20000 +
    the SLURM job id mod 20000 (scripts/accelerate_multinode.sh's), so that two jobs sharing a node do not both
    take accelerate's 29500; outside SLURM a number from the job's output path stands in for the id."""
    import hashlib

    own = int(hashlib.sha256(str(output.manifest).encode()).hexdigest(), 16) % 20000
    return f"${{RLVR_MAIN_PROCESS_PORT:-$((20000+${{SLURM_JOB_ID:-{own}}}%20000))}}"  # one shell word


def get_train_launcher(wildcards, output):
    """How the train verb is started: plain python (toy, one process), `accelerate launch` with the
    configured DeepSpeed/FSDP file on one node, or one `accelerate launch` per node through srun; each
    training process gets cpus_per_task / processes threads, and a one-node job a port of its own."""
    res = config["resources"]["train"]
    if res["launcher"] == "python":
        return PY
    accelerate_config = Path(res["accelerate_config"])
    if not accelerate_config.is_absolute():
        accelerate_config = Path(workflow.basedir) / accelerate_config
    if not accelerate_config.is_file():
        raise ValueError(f"resources.train.accelerate_config: {accelerate_config} does not exist")
    processes = max(1, res["gpu"])
    threads = f"--num_cpu_threads_per_process {max(1, res['cpus_per_task'] // processes)}"
    if res["nodes"] == 1:
        return (
            f"accelerate launch --config_file {accelerate_config} --num_machines 1 "
            f"--num_processes {processes} --main_process_port {get_main_process_port(output)} "
            f"{threads} -m rlvr_support"
        )
    script = Path(workflow.basedir) / "scripts" / "accelerate_multinode.sh"
    return f"bash {script} {accelerate_config} {processes} {threads} -m rlvr_support"
