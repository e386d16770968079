# The toy world generates its prompts and corpus; a `datasets` world reads real sources, one
# task at a time (a local rule: hub downloads need the network, which compute nodes may lack);
# an `imports` world's prompts are the imported base's (rule import_base, imports.smk).

# ---- input functions: what this file's rules read (those several stages share: common_dag.smk)


def get_world_prompts_cfg(wildcards=None):
    """The toy world's prompt sets read the world's seed and per-task sizes, not its corpus (data/prompt_job.py:
    the budget checks a prompt file's provenance against the same keys)."""
    return compact_json(world_prompts_cfg(config))


def get_world_corpus_cfg(wildcards=None):
    """The corpus reads its own section, the seed and the math train levels (prompts are an input)."""
    w = config["world"]
    return compact_json({"seed": w["seed"], "corpus": w["corpus"], "math": {"train_levels": w["math"]["train_levels"]}})


def get_output_dir(wildcards, output):
    """The folder of a rule's outputs (the toy world writes one prompt file per task there)."""
    return str(Path(output[0]).parent)


def get_input_dir(wildcards, input):
    return str(Path(input[0]).parent)


def get_task_sources(wildcards):
    """A `datasets` world's sources for one task, as JSON for `data-sources --sources` (data/prompt_job.py)."""
    return compact_json(task_sources(config, wildcards.task))


def get_source_verifiers(wildcards):
    """A data build validates every split of its task."""
    return verifiers_arg(task_verifiers(config, wildcards.task))


def get_source_code(wildcards):
    return get_code("data-sources", task_verifiers(config, wildcards.task))


if config["world"]["kind"] == "toy":

    localrules:
        toy_data,

    rule toy_data:
        output:
            expand(f"{DATA}/prompts/{{task}}.jsonl", task=TASKS),
        log:
            f"{TOP}/logs/data/prompts.log",
        conda:
            get_conda_env("cpu")
        threads: 1
        params:
            cfg=get_world_prompts_cfg(),
            out_dir=get_output_dir,
            code=get_code("data"),
        shell:
            "python -m rlvr_support data --cfg {params.cfg:q} --out-dir {params.out_dir} > {log} 2>&1"

    rule toy_corpus:
        input:
            expand(f"{DATA}/prompts/{{task}}.jsonl", task=TASKS),
        output:
            f"{DATA}/corpus.jsonl",
        log:
            f"{TOP}/logs/data/corpus.log",
        benchmark:
            f"{TOP}/benchmarks/data/corpus.tsv"
        conda:
            get_conda_env("cpu")
        threads: get_threads("cpu")
        resources:
            cpus_per_task=get_resource("cpu", "cpus_per_task"),
            mem_mb=get_mem_mb("cpu"),
            runtime=get_runtime("cpu"),
        params:
            cfg=get_world_corpus_cfg(),
            prompts_dir=get_input_dir,
            code=get_code("corpus"),
        shell:
            "python -m rlvr_support corpus --cfg {params.cfg:q} --prompts-dir {params.prompts_dir} --out {output} > {log} 2>&1"

elif config["world"]["kind"] == "datasets":

    localrules:
        source_data,

    rule source_data:
        output:
            f"{DATA}/prompts/{{task}}.jsonl",
        log:
            f"{TOP}/logs/data/prompts_{{task}}.log",
        conda:
            get_conda_env("cpu")
        threads: 1
        params:
            sources=get_task_sources,
            verifiers=get_source_verifiers,
            code=get_source_code,
        shell:
            "python -m rlvr_support data-sources --task {wildcards.task} --sources {params.sources:q} --out {output} --verifiers {params.verifiers} > {log} 2>&1"
