rule train_stage:
    input:
        parent=get_parent,
        prompts=get_stage_prompts,
    output:
        f"{RESULTS}/checkpoints/{{chain}}/seed{{seed}}/manifest.json",
    log:
        f"{RESULTS}/logs/train/{{chain}}/seed{{seed}}.log",
    benchmark:
        f"{RESULTS}/benchmarks/train/{{chain}}/seed{{seed}}.tsv"
    params:
        task=get_stage_task,
        cfg=as_json("rl"),
        code=get_code("grpo", "rewards", "scoring", "verifiers", "modeling", "cli"),
    threads: 1
    resources:
        mem_mb=4000,
        runtime=120,
        gpu=0,
    shell:
        "{PY} train --parent {input.parent} --task {params.task} --prompts {input.prompts} "
        "--cfg {params.cfg:q} --seed {wildcards.seed} --chain {wildcards.chain} "
        "--out {output} --threads {threads} > {log} 2>&1"
