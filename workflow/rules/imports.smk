# Samples another tool wrote (config `imports:`, config/imports.py): each imported label's eval set
# is read into a samples file like the `sample` rule's, on the study's own prompts, then scored by
# the `score` rule like any checkpoint's; the verifier-agreement table sets the source's own scores
# beside ours. An entry's files in a Hugging Face dataset repo (`hub:`) are fetched first, on the submit
# host (`prefetch`), and read through their manifest.

# ---- input functions: what this file's rules read (those several stages share: common_dag.smk)


def hub_manifest(label, eval_set):
    """The manifest of a hub entry's files, fetched by `import_hub_files` (imports/hub_files.py)."""
    return f"{RESULTS}/imports/{label}/{eval_set}.hub.json"


def get_import_files(wildcards):
    """The source files of an imported label's eval set (config/imports.py: globs expanded, in order), or for a
    hub entry the manifest of its fetched files."""
    label = wildcards.get("label", "base")
    if import_hub(config, label, wildcards.eval_set):
        return [hub_manifest(label, wildcards.eval_set)]
    return import_files(config, label, wildcards.eval_set)


def get_import_files_arg(wildcards):
    """How import-samples takes get_import_files: as the files, or as a hub entry's manifest of them."""
    hub = import_hub(config, wildcards.get("label", "base"), wildcards.eval_set)
    return "--files-manifest" if hub else "--files"


def get_import_hub(wildcards):
    """What a hub entry's fetch reads: its repo, revision and file patterns."""
    return compact_json(import_hub(config, wildcards.ckpt, wildcards.eval_set))


def get_import_tokenizer(wildcards):
    """An imported label with a model: its manifest, whose tokenizer splits the responses that came without
    token ids (imports/import_job.py)."""
    label = wildcards.get("label", "base")
    return {"tokenizer": f"{RESULTS}/checkpoints/{label}/manifest.json"} if label in IMPORT_MODELS else {}


def get_import_tokenizer_arg(wildcards, input):
    return f"--tokenizer {input.tokenizer}" if "tokenizer" in input.keys() else ""


def get_import_tokenizer_cfg(wildcards):
    """What an imported label's tokenizer manifest is made from: its `tokenizer:` (path, revision)."""
    return compact_json(IMPORT_TOKENIZERS[wildcards.label])


def label_tokenizer_manifests():
    """{imported label: the manifest of the tokenizer its openings are counted in}: its own `tokenizer:`'s or
    its model's, for the labels with either (config/import_models.py), in the config's order."""
    return {
        c: (
            f"{RESULTS}/imports/{c}/tokenizer.json"
            if c in IMPORT_TOKENIZERS
            else f"{RESULTS}/checkpoints/{c}/manifest.json"
        )
        for c in IMPORTS
        if c in IMPORT_TOKENIZERS or c in IMPORT_MODELS
    }


def get_import_spec(wildcards):
    return compact_json(import_spec(config, wildcards.get("label", "base"), wildcards.eval_set))


def get_import_match(wildcards):
    return import_source(config, wildcards.label, wildcards.eval_set)["match"]


def get_agreement_threshold(wildcards):
    return import_source(config, wildcards.ckpt, wildcards.eval_set)["agreement_threshold"]


def get_support_bases():
    """`--bases label=base ...` of the imported labels whose support is measured against another label."""
    pairs = import_bases(config)
    return "--bases " + " ".join(f"{c}={b}" for c, b in pairs.items()) if pairs else ""


def get_import_outputs():
    """The verifier-agreement table of each imported label and eval set: targets of `all`."""
    labels = (["base"] if IMPORTED_BASE else []) + IMPORTS
    return [f"{RESULTS}/tables/verifier_agreement/{c}/{e}.csv" for c in labels for e in config["eval_sets"]]


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
            cpus_per_task=get_resource("cpu", "cpus_per_task"),
            mem_mb=get_mem_mb("cpu"),
            runtime=get_runtime("cpu"),
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
        cpus_per_task=get_resource("cpu", "cpus_per_task"),
        mem_mb=get_mem_mb("cpu"),
        runtime=get_runtime("cpu"),
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
