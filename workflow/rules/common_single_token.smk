# Input functions of single_token.smk: what its rules read (those several stages share: common_dag.smk).


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
