# With sampling.shards: 1 a sample job writes the eval set's file directly; with S > 1 each of
# S jobs samples one block of prompts (`{eval_set}.shards/{shard}.parquet`) and sample_merge
# concatenates them into the same file, so every downstream rule is unchanged.

# ---- input functions: what this file's rules read (those several stages share: common_dag.smk)


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


SAMPLE_JOB = "{ckpt}/{eval_set}" if sample_shards() == 1 else "{ckpt}/{eval_set}.shards/{shard}"


rule sample:
    input:
        model=get_model,
        prompts=f"{DATA}/prompts/{{eval_set}}.jsonl",
    output:
        f"{RESULTS}/samples/{SAMPLE_JOB}.parquet",
    log:
        f"{RESULTS}/logs/sample/{SAMPLE_JOB}.log",
    benchmark:
        f"{RESULTS}/benchmarks/sample/{SAMPLE_JOB}.tsv"
    conda:
        get_conda_env("sample")
    threads: get_threads("sample")
    resources:
        gpu=get_gpus("sample"),
        nodes=get_resource("sample", "nodes"),
        tasks=get_resource("sample", "tasks"),
        tasks_per_gpu=0,  # else the SLURM plugin turns `tasks` into --ntasks-per-gpu
        cpus_per_task=get_resource("sample", "cpus_per_task"),
        mem_mb=get_mem_mb("sample"),
        runtime=get_runtime("sample"),
    params:
        cfg=get_sampling_cfg,
        code=get_code("sample"),
        numerics=get_numerics(),
        gpus=get_gpus_per_node("sample"),
        shard=get_shard,
    shell:
        "python -m rlvr_support sample --model {input.model} --prompts {input.prompts} --cfg {params.cfg:q} "
        "--job {wildcards.eval_set} --out {output} --threads {threads} "
        "--gpus {params.gpus} --shard {params.shard} > {log} 2>&1"


if sample_shards() > 1:

    localrules:
        sample_merge,

    rule sample_merge:
        input:
            get_sample_shards,
        output:
            f"{RESULTS}/samples/{{ckpt}}/{{eval_set}}.parquet",
        log:
            f"{RESULTS}/logs/sample_merge/{{ckpt}}/{{eval_set}}.log",
        conda:
            get_conda_env("cpu")
        threads: 1
        params:
            code=get_code("sample-merge"),
        shell:
            "python -m rlvr_support sample-merge --shards {input} --out {output} > {log} 2>&1"
