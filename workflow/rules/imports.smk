# Samples another tool wrote (config `imports:`, config/imports.py): each imported label's eval set
# is read into a samples file like the `sample` rule's, on the study's own prompts, then scored by
# the `score` rule like any checkpoint's; the verifier-agreement table sets the source's own scores
# beside ours. An entry's files in a Hugging Face dataset repo (`hub:`) are fetched first, on the submit
# host (`prefetch`), and read through their manifest.
include: "common_imports.smk"


localrules:
    agreement_table,
    import_hub_files,
    import_tokenizer,


# A local rule, like base_model: the submit host has the network, compute nodes may not. The files land in
# the Hugging Face cache (HF_HOME, on a file system the nodes share); the manifest lists them with their sha256.
rule import_hub_files:
    output:
        f"{RESULTS}/imports/{{ckpt}}/{{eval_set}}.hub.json",
    log:
        f"{RESULTS}/logs/import/{{ckpt}}/{{eval_set}}.hub.log",
    benchmark:
        f"{RESULTS}/benchmarks/import/{{ckpt}}/{{eval_set}}.hub.tsv"
    conda:
        get_conda_env("cpu")
    threads: 1
    params:
        hub=get_import_hub,
        code=get_code("import-hub-files"),
    shell:
        "python -m rlvr_support import-hub-files --hub {params.hub:q} --out {output} > {log} 2>&1"


# an imported label's samples come from its files, never from a model (also one it names: `model:`)
ruleorder: import_samples > sample


if sample_shards() > 1:

    ruleorder: import_samples > sample_merge


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
            **job_resources("cpu"),
        params:
            spec=get_import_spec,
            files_arg=get_import_files_arg,
            verifiers=get_eval_verifiers,
            code=get_eval_code("import-samples"),
        shell:
            "python -m rlvr_support import-samples --spec {params.spec:q} {params.files_arg} {input.files:q} "
            "--out {output.samples} --out-prompts {output.prompts} --out-source {output.source} "
            "--verifiers {params.verifiers} > {log} 2>&1"


rule import_samples:
    input:
        unpack(get_import_tokenizer),  # a label with a model: its tokenizer splits text-only responses
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
    # first among the jobs ready to run: an imported prompt set that is not the study's stops the run
    # here, right after the study's prompts are written, before jobs that train or sample
    priority: 100
    conda:
        get_conda_env("cpu")
    threads: 1
    resources:
        **job_resources("cpu"),
    params:
        spec=get_import_spec,
        files_arg=get_import_files_arg,
        match=get_import_match,
        tokenizer=get_import_tokenizer_arg,
        verifiers=get_eval_verifiers,
        code=get_eval_code("import-samples"),
    shell:
        "python -m rlvr_support import-samples --spec {params.spec:q} {params.files_arg} {input.files:q} "
        "--study-prompts {input.prompts} --match {params.match} --out {output.samples} "
        "--out-prompts {output.prompts} --out-source {output.source} {params.tokenizer} "
        "--verifiers {params.verifiers} > {log} 2>&1"


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


# An imported label's own tokenizer (`tokenizer:`, config/import_models.py), which counts its openings: a local
# rule, like base_model, so a hub id is fetched on the submit host (the `prefetch` target) into the Hugging Face
# cache; the manifest records the folder, the commit and the files' sha256 (imports/tokenizers.py).
rule import_tokenizer:
    output:
        f"{RESULTS}/imports/{{label}}/tokenizer.json",
    log:
        f"{RESULTS}/logs/import/{{label}}/tokenizer.log",
    conda:
        get_conda_env("cpu")
    threads: 1
    params:
        cfg=get_import_tokenizer_cfg,
        code=get_code("import-tokenizer"),
    shell:
        "python -m rlvr_support import-tokenizer --cfg {params.cfg:q} --out {output} > {log} 2>&1"
