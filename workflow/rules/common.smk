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

from rlvr_support.planning.budget import budget_config
from rlvr_support.cli.failed_jobs import failed_job_logs
from rlvr_support.cli.warm_server import close_for_run, open_for_run
from rlvr_support.config.chains import CHAIN_RE, TASKS, distill_teacher, parent_chain, parse_chain, stage_task
from rlvr_support.config.checkpoints import (
    external_checkpoints,
    externals_of,
    is_trajectory_point,
    kept_every,
    model_checkpoints as study_model_checkpoints,
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
from rlvr_support.config.defaults import VARIANT_META, fill_defaults, gradient_checkpointing, uses_gpus
from rlvr_support.config.numerics import ENV_VAR as NUMERICS_ENV
from rlvr_support.config.revisions import revision_warning
from rlvr_support.config.validate import ConfigError, check_duplicate_keys, validate_config
from rlvr_support.data.prompt_job import task_sources, world_prompts_cfg
from rlvr_support.data.toyworld.limits import check_toy_world
from rlvr_support.data.verifiers import task_verifiers, verifiers_arg
from rlvr_support.lineage.codehash import code_manifest
from rlvr_support.lineage.job_code import job_code, monitor_moves_weights
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
    close_for_run()
    if shown := failed_job_logs(log):
        print(shown, file=sys.stderr)


onsuccess:
    close_for_run()


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
    # a local run of a CPU study: its jobs fork from warm processes that have imported torch (cli/warm_server.py)
    open_for_run(workflow.local_exec and not workflow.dryrun, not uses_gpus(config))


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
@functools.lru_cache(maxsize=None)
def code_of(names):
    """{file: hash} of the package modules `names` (a tuple) and their imports (lineage/codehash.py); many
    rules share a set, so each is hashed once per parse (one parse reads the files as they are then)."""
    return code_manifest(*names)


def get_code(verb, verifiers=(), remedies=None, monitor=False):
    """A rule's code param: {file: hash} of the package code its job runs (lineage/job_code.py): its
    verb's module and what it imports, the verifier families and remedies the job loads (and a stage's
    support monitor, where it counts). A changed value reruns the job; `python -m rlvr_support why
    <output>` names the files that changed."""
    return code_of(job_code(verb, verifiers, remedies, monitor))


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


def job_resources(kind):
    """Every rule's `resources:` for a job of `kind` (a section of config["resources"]): a CPU job asks for
    cores, memory and time; a job that may run on GPUs (pretrain, train, sample, analyse) for GPUs, nodes and
    tasks too, and a training job for `srun` when it spans nodes (get_mpi)."""
    out = {}
    if kind != "cpu":
        out.update(gpu=get_gpus(kind), nodes=get_resource(kind, "nodes"), tasks=get_resource(kind, "tasks"))
        out["tasks_per_gpu"] = 0  # else the SLURM plugin turns `tasks` into --ntasks-per-gpu
        if kind == "train":
            out["mpi"] = get_mpi(kind)
    out.update(cpus_per_task=get_resource(kind, "cpus_per_task"), mem_mb=get_mem_mb(kind), runtime=get_runtime(kind))
    return out
