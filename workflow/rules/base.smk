# The toy base is pretrained here; a real base (hf, gguf_wheel) is declared by its manifest; an
# imported base has no weights (its samples: imports.smk).

# ---- input functions: what this file's rules read (those several stages share: common_dag.smk)


def get_base_cfg(wildcards):
    return compact_json(base_spec(wildcards))


def get_pretrain_cfg(wildcards=None):
    """Pretraining reads the architecture and the optimiser schedule (its seed is a separate param)."""
    return compact_json({k: config["base"][k] for k in ("arch", "train")})


def get_external_cfg(wildcards):
    """An external checkpoint's `checkpoints` entry; only under the results of its own base."""
    if wildcards.ext not in externals_of(config, model_of(wildcards)) + IMPORT_MODELS:
        raise ValueError(
            f"checkpoint {wildcards.ext!r} is analysed against {EXTERNAL[wildcards.ext]['base']!r}, "
            f"not {model_of(wildcards)!r}"
        )
    return compact_json(EXTERNAL[wildcards.ext])


def get_task_prompt_args(wildcards=None):
    """`task=path` pairs of every eval set's prompt file (base metrics)."""
    return [f"{t}={DATA}/prompts/{t}.jsonl" for t in config["eval_sets"]]


def get_eval_prompt_files(wildcards=None):
    return [f"{DATA}/prompts/{t}.jsonl" for t in config["eval_sets"]]


def get_base_metrics_sampling(wildcards=None):
    """Base metrics generate through the sampling backend: backend, batch, token budget (and vllm)."""
    keys = ["backend", "prompt_batch", "max_new_tokens"] + (["vllm"] if uses_vllm() else [])
    return compact_json({k: config["sampling"][k] for k in keys})


def all_eval_verifiers():
    """The families of every eval set (base metrics score them all)."""
    return tuple(sorted({f for e in config["eval_sets"] for f in eval_verifiers(e)}))


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
            gpu=get_gpus("pretrain"),
            nodes=get_resource("pretrain", "nodes"),
            tasks=get_resource("pretrain", "tasks"),
            tasks_per_gpu=0,  # else the SLURM plugin turns `tasks` into --ntasks-per-gpu
            cpus_per_task=get_resource("pretrain", "cpus_per_task"),
            mem_mb=get_mem_mb("pretrain"),
            runtime=get_runtime("pretrain"),
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
        gpu=get_gpus("analyse"),
        nodes=get_resource("analyse", "nodes"),
        tasks=get_resource("analyse", "tasks"),
        tasks_per_gpu=0,  # else the SLURM plugin turns `tasks` into --ntasks-per-gpu
        cpus_per_task=get_resource("analyse", "cpus_per_task"),
        mem_mb=get_mem_mb("analyse"),
        runtime=get_runtime("analyse"),
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
