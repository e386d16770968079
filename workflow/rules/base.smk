# The toy base is pretrained here; a real base (hf, gguf_wheel) is declared by its manifest; an
# imported base has no weights (its samples: imports.smk).
include: "common_base.smk"


if not MODELS and config["base"]["kind"] == "pretrain":

    rule pretrain_base:
        input:
            f"{DATA}/corpus.jsonl",
        output:
            f"{RESULTS}/checkpoints/base/manifest.json",
        log:
            f"{RESULTS}/logs/base/pretrain.log",
        benchmark:
            f"{RESULTS}/benchmarks/base/pretrain.tsv"
        conda:
            get_conda_env("pretrain")
        threads: get_threads("pretrain")
        resources:
            **job_resources("pretrain"),
        params:
            cfg=get_pretrain_cfg(),
            seed=config["base"]["seed"],
            code=get_code("pretrain"),
            numerics=get_numerics(),
            gpus=get_gpus_per_node("pretrain"),
        shell:
            "python -m rlvr_support pretrain --corpus {input} --cfg {params.cfg:q} --seed {params.seed} "
            "--out {output} --threads {threads} --gpus {params.gpus} > {log} 2>&1"

elif not IMPORTED_BASE:

    # A local rule: the submit host has the network, compute nodes may not. The weights land in the
    # Hugging Face cache (HF_HOME, on a file system the nodes share); jobs read them offline.
    localrules:
        base_model,

    rule base_model:
        output:
            f"{RESULTS}/checkpoints/base/manifest.json",
        log:
            f"{RESULTS}/logs/base/base_model.log",
        benchmark:
            f"{RESULTS}/benchmarks/base/base_model.tsv"
        conda:
            get_conda_env("cpu")
        threads: 1
        params:
            cfg=get_base_cfg,
            code=get_code("base-model"),
        shell:
            "python -m rlvr_support base-model --cfg {params.cfg:q} --out {output} > {log} 2>&1"


rule base_metrics:
    input:
        model=f"{RESULTS}/checkpoints/base/manifest.json",
        prompts=get_eval_prompt_files(),
    output:
        f"{RESULTS}/checkpoints/base/metrics.json",
    log:
        f"{RESULTS}/logs/base/metrics.log",
    benchmark:
        f"{RESULTS}/benchmarks/base/metrics.tsv"
    conda:
        get_conda_env("analyse")
    threads: get_threads("analyse")
    resources:
        **job_resources("analyse"),
    params:
        prompts=get_task_prompt_args(),
        sampling=get_base_metrics_sampling(),
        scoring=get_scoring_cfg(),
        gpus=get_gpus_per_node("analyse"),
        dtype=get_analyse_dtype(),
        verifiers=verifiers_arg(all_eval_verifiers()),
        code=get_code("base-metrics", all_eval_verifiers()),
        numerics=get_numerics(),
    shell:
        "python -m rlvr_support base-metrics --model {input.model} --prompts {params.prompts} "
        "--sampling {params.sampling:q} --scoring {params.scoring:q} --out {output} --threads {threads} "
        "--gpus {params.gpus} --dtype {params.dtype} --verifiers {params.verifiers} > {log} 2>&1"


# A checkpoint trained elsewhere (config `checkpoints:`): its manifest records where the weights are,
# their sha256 and the hub commit. A local rule, like base_model: a hub id is fetched on the submit host.
localrules:
    external_checkpoint,


rule external_checkpoint:
    output:
        f"{RESULTS}/checkpoints/{{ext}}/manifest.json",
    log:
        f"{RESULTS}/logs/checkpoints/{{ext}}.log",
    conda:
        get_conda_env("cpu")
    threads: 1
    params:
        cfg=get_external_cfg,
        code=get_code("checkpoint"),
    shell:
        "python -m rlvr_support checkpoint --name {wildcards.ext} --cfg {params.cfg:q} --out {output} > {log} 2>&1"
