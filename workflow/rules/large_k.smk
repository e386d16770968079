# best@k at a larger k than the study's n (analysis.large_k): the listed checkpoints sampled at
# large_k.n on an evenly spaced subset of every eval set's prompts (data/subsets.py), scored like
# any sample, and tabled and drawn like passk.csv.

# ---- input functions: what this file's rules read (those several stages share: common_dag.smk)


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


def get_large_k_outputs():
    if not LARGE_K:
        return []
    return [f"{RESULTS}/tables/passk_large_k.csv", f"{RESULTS}/tables/headline_large_k.md"] + [
        f"{RESULTS}/figures/bestk_large_k_{e}.png" for e in config["eval_sets"]
    ]


localrules:
    prompt_subset,
    large_k_table,
    figure_bestk_large_k,


# `size` evenly spaced prompts of an eval set: large_k's and single_token's subsets (one file when
# their sizes agree)
rule prompt_subset:
    input:
        f"{DATA}/prompts/{{eval_set}}.jsonl",
    output:
        f"{DATA}/subsets/{{size}}/{{eval_set}}.jsonl",
    log:
        f"{TOP}/logs/data/subsets/{{size}}/{{eval_set}}.log",
    wildcard_constraints:
        size=r"\d+",
    conda:
        get_conda_env("cpu")
    threads: 1
    params:
        code=get_code("prompt-subset"),
    shell:
        "python -m rlvr_support prompt-subset --prompts {input} --count {wildcards.size} --out {output} > {log} 2>&1"


rule sample_large_k:
    input:
        model=get_model,
        prompts=get_large_k_prompts,
    output:
        f"{RESULTS}/large_k/samples/{{ckpt}}/{{eval_set}}.parquet",
    log:
        f"{RESULTS}/logs/large_k/sample/{{ckpt}}/{{eval_set}}.log",
    benchmark:
        f"{RESULTS}/benchmarks/large_k/sample/{{ckpt}}/{{eval_set}}.tsv"
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
        cfg=get_large_k_sampling_cfg,
        code=get_code("sample"),
        numerics=get_numerics(),
        gpus=get_gpus_per_node("sample"),
    shell:
        # its own job name: a random stream apart from the eval set's full-budget samples
        "python -m rlvr_support sample --model {input.model} --prompts {input.prompts} "
        "--cfg {params.cfg:q} --job large_k/{wildcards.eval_set} --out {output} --threads {threads} "
        "--gpus {params.gpus} --shard 0 > {log} 2>&1"


rule score_large_k:
    input:
        samples=f"{RESULTS}/large_k/samples/{{ckpt}}/{{eval_set}}.parquet",
        prompts=get_large_k_prompts,
    output:
        f"{RESULTS}/large_k/scores/{{ckpt}}/{{eval_set}}.parquet",
    log:
        f"{RESULTS}/logs/large_k/score/{{ckpt}}/{{eval_set}}.log",
    benchmark:
        f"{RESULTS}/benchmarks/large_k/score/{{ckpt}}/{{eval_set}}.tsv"
    conda:
        get_conda_env("cpu")
    threads: get_threads("cpu")
    resources:
        cpus_per_task=get_resource("cpu", "cpus_per_task"),
        mem_mb=get_mem_mb("cpu"),
        runtime=get_runtime("cpu"),
    params:
        cfg=get_scoring_cfg(),
        verifiers=get_eval_verifiers,
        code=get_eval_code("score"),
    shell:
        "python -m rlvr_support score --samples {input.samples} --prompts {input.prompts} "
        "--cfg {params.cfg:q} --out {output} --verifiers {params.verifiers} > {log} 2>&1"


rule large_k_table:
    input:
        get_large_k_scores,
    output:
        table=report(
            f"{RESULTS}/tables/passk_large_k.csv",
            caption="../report/passk_large_k.rst",
            category="1. pass@k and best@k",
        ),
        headline=report(
            f"{RESULTS}/tables/headline_large_k.csv",
            caption="../report/passk_large_k.rst",
            category="1. pass@k and best@k",
        ),
        headline_md=f"{RESULTS}/tables/headline_large_k.md",
        table_md=f"{RESULTS}/tables/passk_large_k.md",
    log:
        f"{RESULTS}/logs/analyse/large_k_table.log",
    conda:
        get_conda_env("cpu")
    threads: 1
    params:
        root=results_dir,
        cfg=get_analysis_cfg(*BOOTSTRAP_KEYS),
        code=get_code("passk-table"),
    shell:
        "python -m rlvr_support passk-table --scores {input} "
        "--scores-root {params.root}/large_k/scores --cfg {params.cfg:q} --out {output.table} "
        "--headline {output.headline} > {log} 2>&1"


rule figure_bestk_large_k:
    input:
        f"{RESULTS}/tables/passk_large_k.csv",
    output:
        png=report(
            f"{RESULTS}/figures/bestk_large_k_{{eval_set}}.png",
            caption="../report/bestk_large_k.rst",
            category="1. pass@k and best@k",
            labels={"figure": "best@k, larger k", "eval set": "{eval_set}"},
        ),
        pdf=f"{RESULTS}/figures/bestk_large_k_{{eval_set}}.pdf",
    log:
        f"{RESULTS}/logs/figures/bestk_large_k_{{eval_set}}.log",
    conda:
        get_conda_env("cpu")
    threads: 1
    params:
        code=get_code("figure-passk"),
    shell:
        "python -m rlvr_support figure-passk --table {input} "
        "--eval-set {wildcards.eval_set} --metric best@k --out {output.png} > {log} 2>&1"
