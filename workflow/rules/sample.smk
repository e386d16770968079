rule sample:
    input:
        model=get_model,
        prompts=f"{RESULTS}/data/prompts/{{eval_set}}.jsonl",
    output:
        f"{RESULTS}/samples/{{ckpt}}/{{eval_set}}.parquet",
    log:
        f"{RESULTS}/logs/sample/{{ckpt}}/{{eval_set}}.log",
    benchmark:
        f"{RESULTS}/benchmarks/sample/{{ckpt}}/{{eval_set}}.tsv"
    params:
        cfg=as_json("sampling"),
        code=get_code("sample", "sampling", "modeling", "devices", "cli"),
        gpus=get_gpus_per_node("sample"),
    threads: get_threads("sample")
    resources:
        gpu=get_gpus("sample"),
        nodes=get_resource("sample", "nodes"),
        tasks=get_resource("sample", "tasks"),
        tasks_per_gpu=0,  # else the SLURM plugin turns `tasks` into --ntasks-per-gpu
        cpus_per_task=get_resource("sample", "cpus_per_task"),
        mem_mb=get_mem_mb("sample"),
        runtime=get_runtime("sample"),
    shell:
        "{PY} sample --model {input.model} --prompts {input.prompts} --cfg {params.cfg:q} "
        "--job {wildcards.ckpt}/{wildcards.eval_set} --out {output} --threads {threads} "
        "--gpus {params.gpus} > {log} 2>&1"
