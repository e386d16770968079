import json
import sys
from pathlib import Path

# The package is the single source of logic; make it importable from a plain checkout too.
sys.path.insert(0, str(Path(workflow.basedir) / "src"))

from rlvr_support.codehash import code_hash
from rlvr_support.config import validate_config

validate_config(config)

RESULTS = "results"
PY = "python -m rlvr_support"
TASKS = ["math", "if", "joint"]
CHAIN_RE = r"(math|if|joint)(-(math|if|joint))*"


wildcard_constraints:
    task="math|if|joint",
    eval_set="math|if|joint",
    chain=CHAIN_RE,
    seed=r"\d+",
    ckpt=rf"base|{CHAIN_RE}/seed\d+",


def as_json(section):
    """A config section as compact JSON for a rule's command line (quoted with :q)."""
    return json.dumps(config[section], sort_keys=True, separators=(",", ":"))


def get_code(*modules):
    return code_hash(*modules)


def checkpoints():
    """Every checkpoint the study samples: the base and each chain for each RL seed."""
    return ["base"] + [f"{c}/seed{s}" for c in config["chains"] for s in config["rl"]["seeds"]]


def get_model(wildcards):
    return f"{RESULTS}/checkpoints/{wildcards.ckpt}/manifest.json"


def get_parent(wildcards):
    """`math-if` continues from `math` (same seed); a one-stage chain starts from the base."""
    stages = wildcards.chain.split("-")
    if len(stages) == 1:
        return f"{RESULTS}/checkpoints/base/manifest.json"
    return f"{RESULTS}/checkpoints/{'-'.join(stages[:-1])}/seed{wildcards.seed}/manifest.json"


def get_stage_task(wildcards):
    return wildcards.chain.split("-")[-1]


def get_stage_prompts(wildcards):
    return f"{RESULTS}/data/prompts/{get_stage_task(wildcards)}.jsonl"


def get_all_scores(wildcards=None):
    return [f"{RESULTS}/scores/{c}/{e}.parquet" for c in checkpoints() for e in config["eval_sets"]]


def get_figures():
    return [f"{RESULTS}/figures/passk_{e}.png" for e in config["eval_sets"]] + [
        f"{RESULTS}/figures/bestk_{e}.png" for e in config["eval_sets"]]


def get_final_output():
    return [
        f"{RESULTS}/checkpoints/base/metrics.json",
        f"{RESULTS}/tables/passk.csv",
        f"{RESULTS}/tables/headline.csv",
        f"{RESULTS}/tables/headline.md",
        *get_figures(),
    ]
