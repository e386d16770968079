# Input functions of large_k.smk: what its rules read (those several stages share: common_dag.smk).


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
