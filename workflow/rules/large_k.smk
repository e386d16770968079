# best@k at a larger k than the study's n (analysis.large_k): the listed checkpoints sampled at
# large_k.n on an evenly spaced subset of every eval set's prompts (data/subsets.py), scored like
# any sample, and tabled and drawn like passk.csv.
include: "common_large_k.smk"


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


# sampled as any checkpoint, at large_k.n on the prompt subset, under a job name of its own: a random stream
# apart from the eval set's full-budget samples
use rule sample as sample_large_k with:
    input:
        model=get_model,
        prompts=get_large_k_prompts,
    output:
        f"{RESULTS}/large_k/samples/{{ckpt}}/{{eval_set}}.parquet",
    log:
        f"{RESULTS}/logs/large_k/sample/{{ckpt}}/{{eval_set}}.log",
    benchmark:
        f"{RESULTS}/benchmarks/large_k/sample/{{ckpt}}/{{eval_set}}.tsv"
    params:
        cfg=get_large_k_sampling_cfg,
        code=get_code("sample"),
        numerics=get_numerics(),
        gpus=get_gpus_per_node("sample"),
        shard=0,
        job="large_k/{eval_set}",
        routing="",


# scored as any sample: only the paths and the prompt subset differ
use rule score as score_large_k with:
    input:
        samples=f"{RESULTS}/large_k/samples/{{ckpt}}/{{eval_set}}.parquet",
        prompts=get_large_k_prompts,
    output:
        f"{RESULTS}/large_k/scores/{{ckpt}}/{{eval_set}}.parquet",
    log:
        f"{RESULTS}/logs/large_k/score/{{ckpt}}/{{eval_set}}.log",
    benchmark:
        f"{RESULTS}/benchmarks/large_k/score/{{ckpt}}/{{eval_set}}.tsv"


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
