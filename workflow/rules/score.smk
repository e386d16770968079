rule score:
    input:
        samples=f"{RESULTS}/samples/{{ckpt}}/{{eval_set}}.parquet",
        prompts=f"{DATA}/prompts/{{eval_set}}.jsonl",
    output:
        f"{RESULTS}/scores/{{ckpt}}/{{eval_set}}.parquet",
    log:
        f"{RESULTS}/logs/score/{{ckpt}}/{{eval_set}}.log",
    benchmark:
        f"{RESULTS}/benchmarks/score/{{ckpt}}/{{eval_set}}.tsv"
    conda:
        get_conda_env("cpu")
    threads: get_threads("cpu")
    resources:
        **job_resources("cpu"),
    params:
        cfg=get_scoring_cfg(),
        verifiers=get_eval_verifiers,
        code=get_eval_code("score"),
    shell:
        "python -m rlvr_support score --samples {input.samples} --prompts {input.prompts} --cfg {params.cfg:q} "
        "--out {output} --verifiers {params.verifiers} > {log} 2>&1"
