# Input functions of base.smk: what its rules read (those several stages share: common_dag.smk).


def get_base_cfg(wildcards):
    return compact_json(base_spec(wildcards))


def get_pretrain_cfg(wildcards=None):
    """Pretraining reads the architecture and the optimiser schedule (its seed is a separate param)."""
    return compact_json({k: config["base"][k] for k in ("arch", "train")})


def get_external_cfg(wildcards):
    """An external checkpoint's `checkpoints` entry; only under the results of its own base."""
    if wildcards.ext not in externals_of(config, model_of(wildcards)) + IMPORT_MODELS:
        raise ValueError(
            f"checkpoint {wildcards.ext!r} is analysed against {EXTERNAL[wildcards.ext]['base']!r}, "
            f"not {model_of(wildcards)!r}"
        )
    return compact_json(EXTERNAL[wildcards.ext])


def get_task_prompt_args(wildcards=None):
    """`task=path` pairs of every eval set's prompt file (base metrics)."""
    return [f"{t}={DATA}/prompts/{t}.jsonl" for t in config["eval_sets"]]


def get_eval_prompt_files(wildcards=None):
    return [f"{DATA}/prompts/{t}.jsonl" for t in config["eval_sets"]]


def get_base_metrics_sampling(wildcards=None):
    """Base metrics generate through the sampling backend: backend, batch, token budget (and vllm)."""
    keys = ["backend", "prompt_batch", "max_new_tokens"] + (["vllm"] if uses_vllm() else [])
    return compact_json({k: config["sampling"][k] for k in keys})


def all_eval_verifiers():
    """The families of every eval set (base metrics score them all)."""
    return tuple(sorted({f for e in config["eval_sets"] for f in eval_verifiers(e)}))
