# The DAG's shared pieces: the checkpoints a study analyses, the eval sets' verifier families, and the
# config sections that jobs of several stages read. Each stage's own input functions sit at the top of its
# rule file.


def uses_vllm():
    """The `sampling.vllm` engine options are read only by the vllm backend."""
    return config["sampling"]["backend"] == "vllm"


def get_generation_cfg(wildcards=None):
    """Generation inside analyses (the opening intervention): backend, temperature, top-p, seed, batch."""
    keys = ["backend", "temperature", "top_p", "seed", "prompt_batch"] + (["vllm"] if uses_vllm() else [])
    return compact_json({k: config["sampling"][k] for k in keys})


def get_scoring_cfg(wildcards=None):
    """What a scoring job reads: the `scoring` section (timeout, workers, reasoning, math_extraction),
    its defaults filled in, so setting math_extraction to its default rescores nothing."""
    return compact_json(config["scoring"])


def eval_verifiers(eval_set):
    """The families scoring an eval set's (eval-split) prompts need (data/verifiers.py)."""
    return task_verifiers(config, eval_set, "eval")


def get_eval_verifiers(wildcards):
    """`--verifiers` of a job that scores the eval set of its wildcards."""
    return verifiers_arg(eval_verifiers(wildcards.eval_set))


def get_eval_code(verb):
    """The code param of a job of `verb` that scores the eval set of its wildcards."""

    def code(wildcards):
        return get_code(verb, eval_verifiers(wildcards.eval_set))

    return code


def used_tasks():
    """The tasks whose prompts the study reads: its eval sets and every task a chain trains on."""
    trained = [t for c in config["chains"] for t in parse_chain(c)[0]]
    return [t for t in TASKS if t in config["eval_sets"] or t in trained]


def get_analyse_dtype(wildcards=None):
    """The weights dtype of the model-loading analyses (auto: bfloat16 on GPUs, float32 on CPU)."""
    return config["resources"]["analyse"]["dtype"]


def get_analysis_cfg(*keys):
    """The filled-in `analysis` section cut to the keys one table job reads."""
    return compact_json({k: ANALYSIS[k] for k in keys})


def model_of(wildcards=None):
    """The starting model of a job (None in a one-model study); at parse time, the only model."""
    if wildcards is not None and wildcards.get("model") is not None:  # a job's wildcards, or {"model": m}
        return wildcards.get("model")
    return MODELS[0] if len(MODELS) == 1 else None


def checkpoints(wildcards=None):
    """Every checkpoint the study analyses at full budget: the base, each chain for each RL seed, the
    external checkpoints trained from this base and the imported labels (a one-model study's)."""
    return [c for c in model_checkpoints(wildcards) if c not in IMPORTS] + IMPORTS


def model_checkpoints(wildcards=None):
    """The checkpoints with weights here: what the analyses that run a model (JS, the intervention,
    perplexity) cover. Imported labels came as samples only, unless they name their weights (`model:`)."""
    return study_model_checkpoints(config, model_of(wildcards)) + IMPORT_MODELS


def get_model(wildcards):
    return f"{RESULTS}/checkpoints/{wildcards.ckpt}/manifest.json"


def get_all_scores(wildcards=None):
    return [f"{RESULTS}/scores/{c}/{e}.parquet" for c in checkpoints(wildcards) for e in config["eval_sets"]]


def get_all_samples(wildcards=None):
    return [f"{RESULTS}/samples/{c}/{e}.parquet" for c in checkpoints(wildcards) for e in config["eval_sets"]]


def get_rl_group_size():
    """The RL group size G (None in a study that trains nothing: then only analysis.trainability's sizes)."""
    return config["rl"].get("group_size")
