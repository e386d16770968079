# Input functions of data.smk: what its rules read (those several stages share: common_dag.smk).


def get_world_prompts_cfg(wildcards=None):
    """The toy world's prompt sets read the world's seed and per-task sizes, not its corpus (data/prompt_job.py:
    the budget checks a prompt file's provenance against the same keys)."""
    return compact_json(world_prompts_cfg(config))


def get_world_corpus_cfg(wildcards=None):
    """The corpus reads its own section, the seed and the math train levels (prompts are an input)."""
    w = config["world"]
    return compact_json({"seed": w["seed"], "corpus": w["corpus"], "math": {"train_levels": w["math"]["train_levels"]}})


def get_output_dir(wildcards, output):
    """The folder of a rule's outputs (the toy world writes one prompt file per task there)."""
    return str(Path(output[0]).parent)


def get_input_dir(wildcards, input):
    return str(Path(input[0]).parent)


def get_task_sources(wildcards):
    """A `datasets` world's sources for one task, as JSON for `data-sources --sources` (data/prompt_job.py)."""
    return compact_json(task_sources(config, wildcards.task))


def get_source_verifiers(wildcards):
    """A data build validates every split of its task."""
    return verifiers_arg(task_verifiers(config, wildcards.task))


def get_source_code(wildcards):
    return get_code("data-sources", task_verifiers(config, wildcards.task))
