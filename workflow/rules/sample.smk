# With sampling.shards: 1 a sample job writes the eval set's file directly; with S > 1 each of
# S jobs samples one block of prompts (`{eval_set}.shards/{shard}.parquet`) and sample_merge
# concatenates them into the same file, so every downstream rule is unchanged.
include: "common_sample.smk"


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
    group:
        get_sample_group()
    conda:
        get_conda_env("sample")
    threads: get_threads("sample")
    resources:
        **sample_resources(),
    params:
        cfg=get_sampling_cfg,
        code=get_code("sample"),
        numerics=get_numerics(),
        gpus=get_gpus_per_node("sample"),
        shard=get_shard,
        job="{eval_set}",  # with the weights' checksums, the job name fixes the random stream
        routing="",  # sample_routed's
    shell:
        "python -m rlvr_support sample --model {input.model} --prompts {input.prompts} --cfg {params.cfg:q} "
        "--job {params.job} {params.routing}--out {output} --threads {threads} "
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
