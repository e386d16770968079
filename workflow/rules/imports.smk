# Samples another tool wrote (config `imports:`, config/imports.py): each imported label's eval set
# is read into a samples file like the `sample` rule's, on the study's own prompts, then scored by
# the `score` rule like any checkpoint's; the verifier-agreement table sets the source's own scores
# beside ours. Input functions: common.smk.


localrules:
    agreement_table,


# an imported label's samples come from its files, never from a model
ruleorder: import_samples > sample


if IMPORTED_BASE:

    ruleorder: import_base > sample

    # A study of imported samples only: the base's files hold the study's prompts (world kind imports),
    # read here once with their gold answers; every other label is matched to them.
    rule import_base:
        input:
            files=get_import_files,
        output:
            samples=f"{RESULTS}/samples/base/{{eval_set}}.parquet",
            prompts=f"{DATA}/prompts/{{eval_set}}.jsonl",
            source=f"{RESULTS}/imports/base/{{eval_set}}.source.parquet",
        log:
            f"{RESULTS}/logs/import/base/{{eval_set}}.log",
        benchmark:
            f"{RESULTS}/benchmarks/import/base/{{eval_set}}.tsv"
        conda:
            get_conda_env("cpu")
        threads: 1
        resources:
            cpus_per_task=get_resource("cpu", "cpus_per_task"),
            mem_mb=get_mem_mb("cpu"),
            runtime=get_runtime("cpu"),
        params:
            spec=get_import_spec,
            verifiers=get_eval_verifiers,
            code=get_eval_code("import-samples"),
        shell:
            "python -m rlvr_support import-samples --spec {params.spec:q} --files {input.files:q} "
            "--out {output.samples} --out-prompts {output.prompts} --out-source {output.source} "
            "--verifiers {params.verifiers} > {log} 2>&1"


rule import_samples:
    input:
        files=get_import_files,
        prompts=f"{DATA}/prompts/{{eval_set}}.jsonl",
    output:
        samples=f"{RESULTS}/samples/{{label}}/{{eval_set}}.parquet",
        prompts=f"{RESULTS}/imports/{{label}}/{{eval_set}}.prompts.jsonl",
        source=f"{RESULTS}/imports/{{label}}/{{eval_set}}.source.parquet",
    log:
        f"{RESULTS}/logs/import/{{label}}/{{eval_set}}.log",
    benchmark:
        f"{RESULTS}/benchmarks/import/{{label}}/{{eval_set}}.tsv"
    conda:
        get_conda_env("cpu")
    threads: 1
    resources:
        cpus_per_task=get_resource("cpu", "cpus_per_task"),
        mem_mb=get_mem_mb("cpu"),
        runtime=get_runtime("cpu"),
    params:
        spec=get_import_spec,
        match=get_import_match,
        verifiers=get_eval_verifiers,
        code=get_eval_code("import-samples"),
    shell:
        "python -m rlvr_support import-samples --spec {params.spec:q} --files {input.files:q} "
        "--study-prompts {input.prompts} --match {params.match} --out {output.samples} "
        "--out-prompts {output.prompts} --out-source {output.source} --verifiers {params.verifiers} > {log} 2>&1"


rule agreement_table:
    input:
        scores=f"{RESULTS}/scores/{{ckpt}}/{{eval_set}}.parquet",
        source=f"{RESULTS}/imports/{{ckpt}}/{{eval_set}}.source.parquet",
    output:
        f"{RESULTS}/tables/verifier_agreement/{{ckpt}}/{{eval_set}}.csv",
    log:
        f"{RESULTS}/logs/analyse/verifier_agreement/{{ckpt}}/{{eval_set}}.log",
    conda:
        get_conda_env("cpu")
    threads: 1
    params:
        threshold=get_agreement_threshold,
        code=get_code("agreement-table"),
    shell:
        "python -m rlvr_support agreement-table --scores {input.scores} --source {input.source} "
        "--label {wildcards.ckpt} --threshold {params.threshold} --out {output} > {log} 2>&1"
