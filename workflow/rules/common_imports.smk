# Input functions of imports.smk: what its rules read (those several stages share: common_dag.smk).


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
