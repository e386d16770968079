# The toy world generates its prompts and corpus; a `datasets` world reads real sources, one
# task at a time (a local rule: hub downloads need the network, which compute nodes may lack).
if config["world"]["kind"] == "toy":

    localrules:
        toy_data,

    rule toy_data:
        output:
            expand(f"{DATA}/prompts/{{task}}.jsonl", task=TASKS),
        log:
            f"{TOP}/logs/data/prompts.log",
        params:
            cfg=as_json("world"),
            code=get_code("toyworld", "cli"),
        threads: 1
        shell:
            "{PY} data --cfg {params.cfg:q} --out-dir {DATA}/prompts > {log} 2>&1"


    rule toy_corpus:
        input:
            expand(f"{DATA}/prompts/{{task}}.jsonl", task=TASKS),
        output:
            f"{DATA}/corpus.jsonl",
        log:
            f"{TOP}/logs/data/corpus.log",
        benchmark:
            f"{TOP}/benchmarks/data/corpus.tsv"
        params:
            cfg=as_json("world"),
            code=get_code("toyworld", "cli"),
        threads: get_threads("cpu")
        resources:
            cpus_per_task=get_resource("cpu", "cpus_per_task"),
            mem_mb=get_mem_mb("cpu"),
            runtime=get_runtime("cpu"),
        shell:
            "{PY} corpus --cfg {params.cfg:q} --prompts-dir {DATA}/prompts --out {output} > {log} 2>&1"

else:

    localrules:
        source_data,

    rule source_data:
        output:
            f"{DATA}/prompts/{{task}}.jsonl",
        log:
            f"{TOP}/logs/data/prompts_{{task}}.log",
        params:
            sources=get_task_sources,
            code=get_code("data_sources", "verifiers", "cli_data", "cli"),
        threads: 1
        shell:
            "{PY} data-sources --task {wildcards.task} --sources {params.sources:q} --out {output} > {log} 2>&1"
