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
        code=get_code("sample", "sampling", "modeling", "cli"),
    threads: 1
    resources:
        mem_mb=4000,
        runtime=60,
        gpu=0,
    shell:
        "{PY} sample --model {input.model} --prompts {input.prompts} --cfg {params.cfg:q} "
        "--job {wildcards.ckpt}/{wildcards.eval_set} --out {output} --threads {threads} > {log} 2>&1"
