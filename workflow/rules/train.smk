include: "common_train.smk"


rule train_stage:
    input:
        parent=get_parent,
        prompts=get_stage_prompts,
        teacher=get_teacher,
        probes=get_probe_prompts,
    output:
        manifest=f"{RESULTS}/checkpoints/{{chain}}/seed{{seed}}/manifest.json",
        monitor=f"{RESULTS}/checkpoints/{{chain}}/seed{{seed}}/monitor.csv",
        curve=f"{RESULTS}/checkpoints/{{chain}}/seed{{seed}}/reward_curve.csv",
    log:
        stdout=f"{RESULTS}/logs/train/{{chain}}/seed{{seed}}.log",
        trackers=f"{RESULTS}/logs/train/{{chain}}/seed{{seed}}",
    benchmark:
        f"{RESULTS}/benchmarks/train/{{chain}}/seed{{seed}}.tsv"
    # the chains' stages are the study's critical path (each waits for its parent): run them before the
    # sample and analysis jobs that wait beside them
    priority: 50
    conda:
        get_conda_env("train")
    threads: get_threads("train")
    resources:
        **job_resources("train"),
    params:
        task=get_stage_task,
        cfg=get_train_cfg,
        scoring=get_scoring_cfg(),  # the reward scores as the score jobs do
        remedies=get_remedies,
        probes=get_probe_args,
        verifiers=get_train_verifiers,
        code=get_train_code,
        numerics=get_numerics(),
        launcher=get_train_launcher,
        gpus=get_gpus_per_node("train"),
    shell:
        "{params.launcher} train --parent {input.parent} --task {params.task} --prompts {input.prompts} "
        "--cfg {params.cfg:q} --scoring {params.scoring:q} --seed {wildcards.seed} --chain {wildcards.chain} "
        "--remedies {params.remedies:q} --teacher {input.teacher} --probe {params.probes} "
        "--out {output.manifest} --threads {threads} --gpus {params.gpus} --verifiers {params.verifiers} "
        "--log-dir {log.trackers} > {log.stdout} 2>&1"
