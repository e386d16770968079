# Input functions of support.smk: what its rules read (those several stages share: common_dag.smk).


def get_js_eval_sets():
    """The eval sets of the JS analysis; none when the base is imported (JS runs the base model)."""
    return [] if IMPORTED_BASE else [e for e in config["eval_sets"] if e in ANALYSIS["divergence"]["eval_sets"]]


def get_intervention_eval_sets():
    """The eval sets of the opening intervention; none when the base is imported (it samples the models)."""
    return [] if IMPORTED_BASE else [e for e in config["eval_sets"] if e in ANALYSIS["intervention"]["eval_sets"]]


def has_perplexity():
    """Reference solutions exist in the toy world only."""
    return config["world"]["kind"] == "toy"


def get_analysis_part(part, *keys):
    """A model-based analysis' own section (without its `eval_sets`, which pick the jobs) plus `keys`."""
    own = {k: v for k, v in ANALYSIS[part].items() if k != "eval_sets"}
    return compact_json({part: own, **{k: ANALYSIS[k] for k in keys}})


def get_opening_tokens(wildcards=None):
    return ANALYSIS["opening_tokens"]


def get_openings_tokenizer(wildcards):
    """The base's manifest, whose tokenizer decodes the openings (none for an imported base), and the tokenizers
    of the imported labels whose openings are counted in tokens of their own (label_tokenizer_manifests)."""
    out = {} if IMPORTED_BASE else {"tokenizer": f"{RESULTS}/checkpoints/base/manifest.json"}
    if label_tokenizer_manifests():
        out["label_tokenizers"] = list(label_tokenizer_manifests().values())
    return out


def get_openings_tokenizer_arg(wildcards, input):
    args = [f"--tokenizer {input.tokenizer}"] if "tokenizer" in input.keys() else []
    if "label_tokenizers" in input.keys():
        pairs = zip(label_tokenizer_manifests(), input.label_tokenizers, strict=True)
        args.append("--label-tokenizer " + " ".join(f"{label}={path}" for label, path in pairs))
    return " ".join(args)


def get_js_files(folder):
    """One Parquet file per JS eval set under `RESULTS/folder` (wildcards left for Snakemake to fill)."""
    return [f"{RESULTS}/{folder}/{e}.parquet" for e in get_js_eval_sets()]


def get_js_prompts(wildcards=None):
    return [f"{DATA}/prompts/{e}.jsonl" for e in get_js_eval_sets()]


def get_js_runs(wildcards=None):
    return [
        f"{RESULTS}/analysis/js/{c}/{e}.parquet" for c in model_checkpoints(wildcards)[1:] for e in get_js_eval_sets()
    ]


def get_perplexity_runs(wildcards=None):
    # an output list, fixed at parse time: the toy world has one starting model (config validation)
    return [f"{RESULTS}/analysis/perplexity/{c}/math.parquet" for c in model_checkpoints(wildcards)]


def get_checkpoint_manifests(wildcards=None):
    """Every model checkpoint's manifest, in model_checkpoints() order."""
    return [f"{RESULTS}/checkpoints/{c}/manifest.json" for c in model_checkpoints(wildcards)]


def get_intervention_samples(wildcards):
    return [f"{RESULTS}/samples/{c}/{wildcards.eval_set}.parquet" for c in model_checkpoints(wildcards)]


def get_intervention_scores(wildcards):
    return [f"{RESULTS}/scores/{c}/{wildcards.eval_set}.parquet" for c in model_checkpoints(wildcards)]


def get_intervention_labels(kind):
    """`label=path` pairs (label: base, chain/seedK or an external name) of the rule's input `kind`,
    in model_checkpoints() order."""

    def pairs(wildcards, input):
        return " ".join(f"{c}={p}" for c, p in zip(model_checkpoints(wildcards), input[kind], strict=True))

    return pairs


def get_claims_cfg(wildcards=None):
    """What the claims table reads: m, the bootstrap keys and G (the mixed-group claim)."""
    keys = ("opening_tokens", *BOOTSTRAP_KEYS)
    return compact_json({"group_size": get_rl_group_size(), **{k: ANALYSIS[k] for k in keys}})


def get_claims_inputs(wildcards=None):
    """The score files and every table a claim reads or cites (analysis/claims/registry.py: each table's name is
    its file's stem) that this study makes for this model: a claim whose table is not made (JS off, no
    trajectory) is not measured."""
    from rlvr_support.analysis.claims.registry import table_names  # here: pandas only where claims are planned

    made = set(model_targets(wildcards))  # paths under RESULTS, as `tables` below
    names = [n.format(eval_set=e) for n in table_names() for e in config["eval_sets"]]  # `{eval_set}`: each
    tables = {n: f"{RESULTS}/tables/{n}.csv" for n in dict.fromkeys(names)}
    return {"scores": get_all_scores(wildcards), **{n: p for n, p in tables.items() if p in made}}


def get_claims_tables(wildcards, input):
    """`name=path` of every input table (`claims --tables`)."""
    return " ".join(f"{name}={input[name]}" for name in input.keys() if name != "scores")
