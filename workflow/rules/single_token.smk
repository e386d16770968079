# Single-token interventions (analysis.single_token): each listed checkpoint and the base put one
# token of the other into their responses (at each swept position) or draw their first token from
# their own top 2, on an evenly spaced prompt subset (large_k.smk's prompt_subset); scored in the job,
# then tabled and drawn.
include: "common_single_token.smk"


localrules:
    single_token_table,
    figure_single_token,


rule single_token:
    input:
        model=get_model,
        base=f"{RESULTS}/checkpoints/base/manifest.json",
        prompts=get_single_token_prompts,
    output:
        f"{RESULTS}/single_token/{{ckpt}}/{{eval_set}}.parquet",
    log:
        f"{RESULTS}/logs/analyse/single_token/{{ckpt}}/{{eval_set}}.log",
    benchmark:
        f"{RESULTS}/benchmarks/analyse/single_token/{{ckpt}}/{{eval_set}}.tsv"
    conda:
        get_conda_env("analyse")
    threads: get_threads("analyse")
    resources:
        **job_resources("analyse"),
    params:
        cfg=get_single_token_cfg(),
        sampling=get_generation_cfg(),
        scoring=get_scoring_cfg(),
        gpus=get_gpus_per_node("analyse"),
        dtype=get_analyse_dtype(),
        verifiers=get_eval_verifiers,
        code=get_eval_code("single-token"),
        numerics=get_numerics(),
    shell:
        "python -m rlvr_support single-token --model {input.model} --base {input.base} --prompts {input.prompts} "
        "--cfg {params.cfg:q} --sampling {params.sampling:q} --scoring {params.scoring:q} --out {output} "
        "--threads {threads} --gpus {params.gpus} --dtype {params.dtype} --verifiers {params.verifiers} > {log} 2>&1"


rule single_token_table:
    input:
        get_single_token_runs,
    output:
        table=report(
            f"{RESULTS}/tables/single_token.csv",
            caption="../report/single_token_table.rst",
            category="4. divergence and openings",
        ),
        md=f"{RESULTS}/tables/single_token.md",
    log:
        f"{RESULTS}/logs/analyse/single_token_table.log",
    conda:
        get_conda_env("cpu")
    threads: 1
    params:
        runs=get_single_token_run_args,
        cfg=get_analysis_cfg("opening_modes", *BOOTSTRAP_KEYS),
        code=get_code("single-token-table"),
    shell:
        "python -m rlvr_support single-token-table --runs {params.runs} --cfg {params.cfg:q} --out {output.table} "
        "> {log} 2>&1"


rule figure_single_token:
    input:
        f"{RESULTS}/tables/single_token.csv",
    output:
        png=report(
            f"{RESULTS}/figures/single_token_{{eval_set}}.png",
            caption="../report/single_token_sweep.rst",
            category="4. divergence and openings",
            labels={"figure": "single-token swaps", "eval set": "{eval_set}"},
        ),
        pdf=f"{RESULTS}/figures/single_token_{{eval_set}}.pdf",
    log:
        f"{RESULTS}/logs/figures/single_token_{{eval_set}}.log",
    conda:
        get_conda_env("cpu")
    threads: 1
    params:
        code=get_code("figure-single-token"),
    shell:
        "python -m rlvr_support figure-single-token --table {input} --eval-set {wildcards.eval_set} "
        "--out {output.png} > {log} 2>&1"
