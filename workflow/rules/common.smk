import functools
import json
import os
import re
import sys
from pathlib import Path

# The package is the single source of logic; make it importable from a plain checkout too.
sys.path.insert(0, str(Path(workflow.basedir) / "src"))
# ... and in the jobs: `python -m rlvr_support` may run in a conda env from envs/ (--sdm conda)
# or on a cluster node, where the package is not installed; SLURM jobs inherit this (--export=ALL).
if str(Path(workflow.basedir) / "src") not in os.environ.get("PYTHONPATH", "").split(os.pathsep):
    os.environ["PYTHONPATH"] = os.pathsep.join(
        p for p in (str(Path(workflow.basedir) / "src"), os.environ.get("PYTHONPATH")) if p)

from rlvr_support.codehash import code_hash
from rlvr_support.config import validate_config

validate_config(config)

# One starting model (`base:`): results/... . Several (`models:`, e.g. the paper's two bases): each
# is a wildcard, results/{model}/..., over one shared copy of the prompts.
MODELS = list(config.get("models", {}))
TOP = "results"
DATA = f"{TOP}/data"
RESULTS = f"{TOP}/{{model}}" if MODELS else TOP
PY = "python -m rlvr_support"
TASKS = ["math", "if", "joint"]
# A chain is a sequence of stages, optionally with a mitigation variant applied to its LAST
# stage: `math-if~kl` (variant names are keys of config["variants"]).
CHAIN_RE = r"(math|if|joint)(-(math|if|joint))*(~[a-z][a-z0-9_-]*)?"


wildcard_constraints:
    model="|".join(re.escape(m) for m in MODELS) or "-",  # unused in a one-model study
    task="math|if|joint",
    eval_set="math|if|joint",
    chain=CHAIN_RE,
    seed=r"\d+",
    ckpt=rf"base|{CHAIN_RE}/seed\d+",
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


def get_base_cfg(wildcards):
    return compact_json(base_spec(wildcards))


def as_json(section):
    """A config section as compact JSON for a rule's command line."""
    return compact_json(config[section])


@functools.lru_cache(maxsize=None)
def get_code(*modules):
    """The source hash of these modules and what they import; many rules share a set, so it is hashed once."""
    return code_hash(*modules)


def checkpoints():
    """Every checkpoint the study samples: the base and each chain for each RL seed."""
    return ["base"] + [f"{c}/seed{s}" for c in config["chains"] for s in config["rl"]["seeds"]]


def sample_shards():
    """How many prompt blocks each (checkpoint, eval set) sample job is split into (sampling.shards)."""
    return config["sampling"].get("shards", 1)


def get_sample_shards(wildcards):
    """The shard files that `sample_merge` concatenates, in shard order."""
    return [f"{RESULTS}/samples/{wildcards.ckpt}/{wildcards.eval_set}.shards/{i}.parquet"
            for i in range(sample_shards())]


def get_shard(wildcards):
    return wildcards.get("shard", 0)


def get_model(wildcards):
    return f"{RESULTS}/checkpoints/{wildcards.ckpt}/manifest.json"


def chain_stages(chain):
    """`math-if~kl` -> (["math", "if"], "kl"); the variant is None for a plain chain."""
    stages, _, variant = chain.partition("~")
    return stages.split("-"), variant or None


def get_parent(wildcards):
    """`math-if` (and `math-if~kl`) continues from `math` (same seed); a one-stage chain starts from the base."""
    stages, _ = chain_stages(wildcards.chain)
    if len(stages) == 1:
        return f"{RESULTS}/checkpoints/base/manifest.json"
    return f"{RESULTS}/checkpoints/{'-'.join(stages[:-1])}/seed{wildcards.seed}/manifest.json"


def get_task_sources(wildcards):
    """A `datasets` world's sources for one task, as JSON for `data-sources --sources`."""
    return compact_json(config["world"]["tasks"][wildcards.task])


def get_stage_task(wildcards):
    return chain_stages(wildcards.chain)[0][-1]


def get_remedies(wildcards):
    """The variant's remedies as JSON for `train --remedies` ({} for a plain chain)."""
    _, variant = chain_stages(wildcards.chain)
    spec = config.get("variants", {}).get(variant, {}) if variant else {}
    remedies = {k: v for k, v in spec.items() if k not in ("enabled", "description")}
    return compact_json(remedies)


def get_teacher(wildcards):
    """Distillation teacher: the stage's parent (default) or the base policy."""
    _, variant = chain_stages(wildcards.chain)
    distill = config.get("variants", {}).get(variant, {}).get("distill") if variant else None
    if distill and distill.get("teacher", "parent") == "base":
        return f"{RESULTS}/checkpoints/base/manifest.json"
    return get_parent(wildcards)


def get_probe_prompts(wildcards):
    """Prompt files of every task of the chain so far (current and previous): the monitor's probes."""
    stages, _ = chain_stages(wildcards.chain)
    return [f"{DATA}/prompts/{t}.jsonl" for t in dict.fromkeys(stages)]


def get_probe_args(wildcards):
    """`task=path` pairs for `train --probe`."""
    return " ".join(f"{Path(p).stem}={p}" for p in get_probe_prompts(wildcards))


def get_stage_prompts(wildcards):
    return f"{DATA}/prompts/{get_stage_task(wildcards)}.jsonl"


def get_all_scores(wildcards=None):
    return [f"{RESULTS}/scores/{c}/{e}.parquet" for c in checkpoints() for e in config["eval_sets"]]


def sequential_chains():
    """Chains of two or more stages (variants included): the ones the remedy comparison covers."""
    return [c for c in config["chains"] if len(chain_stages(c)[0]) > 1]


def get_monitor_files(chain):
    return [f"{RESULTS}/checkpoints/{chain}/seed{s}/monitor.csv" for s in config["rl"]["seeds"]]


def get_remedy_outputs():
    """Remedy table + trade-off figure (when a sequential chain exists) and one monitor figure per chain."""
    out = [f"{RESULTS}/figures/monitor/{c}.png" for c in config["chains"]]
    if sequential_chains():
        out += [f"{RESULTS}/tables/remedies.csv", f"{RESULTS}/figures/remedy_tradeoff.png"]
    return out


def get_figures():
    return [f"{RESULTS}/figures/passk_{e}.png" for e in config["eval_sets"]] + [
        f"{RESULTS}/figures/bestk_{e}.png" for e in config["eval_sets"]]


def get_final_output():
    return for_each_model([
        f"{RESULTS}/checkpoints/base/metrics.json",
        f"{RESULTS}/tables/passk.csv",
        f"{RESULTS}/tables/headline.csv",
        f"{RESULTS}/tables/headline.md",
        *get_figures(),
        *get_remedy_outputs(),
        *get_support_outputs(),  # workflow/rules/support.smk
        *get_routed_outputs(),  # workflow/rules/routed.smk
    ])


# ---- What each job asks the scheduler for (config["resources"]; the SLURM profile is slurm/) ----
# Partition and account are never set here: they belong to the cluster, so they come from the
# profile or the command line. runtime (minutes) and mem_mb grow with Snakemake's `attempt`,
# so a job killed for time or memory is resubmitted (profile: retries) with more.


def get_threads(kind):
    """A job's threads = the CPU cores it asks SLURM for (cpus_per_task)."""
    return config["resources"][kind]["cpus_per_task"]


def get_resource(kind, key):
    """A fixed resource of a job kind: nodes, tasks, cpus_per_task."""
    return config["resources"][kind][key]


def get_gpus_per_node(kind):
    """GPUs one node of the job must see; the job's `--gpus` check (rlvr_support.devices) enforces it."""
    return config["resources"][kind].get("gpu", 0)


def get_gpus(kind):
    """GPUs the whole job asks SLURM for (`--gpus` is a per-job total): per node times nodes."""
    return get_gpus_per_node(kind) * config["resources"][kind].get("nodes", 1)


def get_runtime(kind):
    """Wall time in minutes: the configured time on attempt 1, k times that on retry attempt k."""
    minutes = config["resources"][kind]["runtime"]

    def runtime(wildcards, attempt):
        return minutes * attempt

    return runtime


def get_mem_mb(kind):
    """Memory in MB (per node): the configured amount on attempt 1, k times that on attempt k."""
    mem_mb = config["resources"][kind]["mem_mb"]

    def mem(wildcards, attempt):
        return mem_mb * attempt

    return mem


def get_mpi(kind):
    """'srun' for a multi-node job, else None (unset). The SLURM plugin then runs the job's shell
    command on the first node without wrapping it in `srun -n1`, so the command's own `srun`
    (scripts/accelerate_multinode.sh) can start one launcher per node."""
    return "srun" if config["resources"][kind].get("nodes", 1) > 1 else None


def get_train_launcher(wildcards=None):
    """How the train verb is started: plain python (toy, one process), `accelerate launch` with the
    configured DeepSpeed/FSDP file on one node, or one `accelerate launch` per node through srun."""
    res = config["resources"]["train"]
    if res["launcher"] == "python":
        return PY
    accelerate_config = Path(res["accelerate_config"])
    if not accelerate_config.is_absolute():
        accelerate_config = Path(workflow.basedir) / accelerate_config
    if not accelerate_config.is_file():
        raise ValueError(f"resources.train.accelerate_config: {accelerate_config} does not exist")
    processes = max(1, res["gpu"])
    if res["nodes"] == 1:
        return (f"accelerate launch --config_file {accelerate_config} --num_machines 1 "
                f"--num_processes {processes} -m rlvr_support")
    script = Path(workflow.basedir) / "scripts" / "accelerate_multinode.sh"
    return f"bash {script} {accelerate_config} {processes} -m rlvr_support"
