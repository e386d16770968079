rule pretrain_base:
    input:
        f"{RESULTS}/data/corpus.jsonl",
    output:
        f"{RESULTS}/checkpoints/base/manifest.json",
    log:
        f"{RESULTS}/logs/base/pretrain.log",
    benchmark:
        f"{RESULTS}/benchmarks/base/pretrain.tsv"
    params:
        cfg=as_json("base"),
        seed=config["base"]["seed"],
        code=get_code("pretrain", "modeling", "toyworld", "cli"),
    threads: 2
    resources:
        mem_mb=4000,
        runtime=60,
        gpu=0,
    shell:
        "{PY} pretrain --corpus {input} --cfg {params.cfg:q} --seed {params.seed} "
        "--out {output} --threads {threads} > {log} 2>&1"


rule base_metrics:
    input:
        model=f"{RESULTS}/checkpoints/base/manifest.json",
        prompts=expand(f"{RESULTS}/data/prompts/{{task}}.jsonl", task=TASKS),
    output:
        f"{RESULTS}/checkpoints/base/metrics.json",
    log:
        f"{RESULTS}/logs/base/metrics.log",
    benchmark:
        f"{RESULTS}/benchmarks/base/metrics.tsv"
    params:
        prompts=[f"{t}={RESULTS}/data/prompts/{t}.jsonl" for t in TASKS],
        max_new_tokens=config["sampling"]["max_new_tokens"],
        code=get_code("base_metrics", "sampling", "scoring", "verifiers", "cli"),
    threads: 1
    resources:
        mem_mb=2000,
        runtime=20,
    shell:
        "{PY} base-metrics --model {input.model} --prompts {params.prompts} "
        "--max-new-tokens {params.max_new_tokens} --out {output} --threads {threads} > {log} 2>&1"
