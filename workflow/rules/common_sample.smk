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


# With resources.sample.group: checkpoint the sample jobs of one checkpoint (every eval set and shard; a
# trajectory point is a checkpoint of its own; sample_routed and sample_large_k are `use rule sample` and keep
# the group) form one Snakemake group, submitted as one SLURM job. Snakemake groups only connected jobs unless
# --group-components lets a group span more; the SLURM profile passes it for this group name, and `--resources sample_slot=1` (local to
# each submission) makes the group run its members one after another on the job's GPUs.
SAMPLE_GROUP = "sample_{model}_{ckpt}" if MODELS else "sample_{ckpt}"


def get_sample_group():
    """The `group:` of the sample rules: one per checkpoint (and model), or None (no grouping: the default)."""
    return SAMPLE_GROUP if config["resources"]["sample"].get("group") == "checkpoint" else None


def sample_resources():
    """job_resources("sample"), plus one `sample_slot` per job when grouped: the profile's --resources
    sample_slot=1 then lets a group run one member at a time (they share the job's GPUs)."""
    out = job_resources("sample")
    if get_sample_group() is not None:
        out["sample_slot"] = 1
    return out


# each SLURM submission (a group) has its own pool of sample_slot, not the whole cluster
resource_scopes:
    sample_slot="local",
