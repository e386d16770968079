# The toy world generates its prompts and corpus; a `datasets` world reads real sources, one
# task at a time (a local rule: hub downloads need the network, which compute nodes may lack);
# an `imports` world's prompts are the imported base's (rule import_base, imports.smk).
include: "common_data.smk"


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
            **job_resources("cpu"),
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
