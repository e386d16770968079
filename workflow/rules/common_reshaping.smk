# Input functions of reshaping.smk: what its rules read (those several stages share: common_dag.smk).


def get_trainability_cfg(wildcards=None):
    """What the trainability table reads: G of the RL stages, analysis.trainability and the bootstrap keys."""
    return compact_json(
        {
            "group_size": get_rl_group_size(),
            "trainability": ANALYSIS["trainability"],
            **{k: ANALYSIS[k] for k in BOOTSTRAP_KEYS},
        }
    )


def get_reasoning_if_eval_sets():
    """The eval sets whose prompts carry constraints (analysis/reasoning_if.py)."""
    return [e for e in config["eval_sets"] if e in ("if", "joint")]


def reasoning_if_verifiers():
    """The instruction families of the eval sets the reasoning-if table rescores (it checks constraints only)."""
    return tuple(f for e in get_reasoning_if_eval_sets() for f in eval_verifiers(e) if f in INSTRUCTION_FAMILIES)


def get_reasoning_if_samples(wildcards=None):
    return [f"{RESULTS}/samples/{c}/{e}.parquet" for c in checkpoints(wildcards) for e in get_reasoning_if_eval_sets()]


def get_reasoning_if_prompts(wildcards=None):
    return [f"{DATA}/prompts/{e}.jsonl" for e in get_reasoning_if_eval_sets()]


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
