# Input functions of sample.smk: what its rules read (those several stages share: common_dag.smk).


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
