rule score:
    input:
        samples=f"{RESULTS}/samples/{{ckpt}}/{{eval_set}}.parquet",
        prompts=f"{RESULTS}/data/prompts/{{eval_set}}.jsonl",
    output:
        f"{RESULTS}/scores/{{ckpt}}/{{eval_set}}.parquet",
    log:
        f"{RESULTS}/logs/score/{{ckpt}}/{{eval_set}}.log",
    benchmark:
        f"{RESULTS}/benchmarks/score/{{ckpt}}/{{eval_set}}.tsv"
    params:
        cfg=as_json("scoring"),
        code=get_code("scoring", "verifiers", "cli"),
    threads: 1
    resources:
        mem_mb=2000,
        runtime=30,
    shell:
        "{PY} score --samples {input.samples} --prompts {input.prompts} --cfg {params.cfg:q} "
        "--out {output} > {log} 2>&1"
