# The study's budget (python -m rlvr_support budget): jobs, sequences, tokens, GPU-hours and disk per
# rule kind, from the config and the prompt files; lengths and throughputs are the `budget` assumptions.
# A local rule after the data rules only, so `snakemake results/budget.md` costs a study before any GPU job.

# ---- input functions: what this file's rules read (those several stages share: common_dag.smk)


def get_budget_prompts():
    """The prompt files the budget counts eval prompts in: the eval sets' and the trained tasks'."""
    return [f"{DATA}/prompts/{t}.jsonl" for t in used_tasks()]


def get_budget_cfg():
    """The keys the budget reads (analysis/budget.py budget_config), as JSON."""
    return compact_json(budget_config(config))


def get_budget_outputs():
    """One budget for the whole study (every model), beside the models' folders; none for a study of
    imported samples only, which runs no model."""
    return [] if IMPORTED_BASE else [f"{TOP}/budget.md", f"{TOP}/budget.csv"]


# A study of imported samples only (base kind import) runs no model: nothing to budget.
if get_budget_outputs():

    localrules:
        budget,

    rule budget:
        input:
            prompts=get_budget_prompts(),
        output:
            table=report(f"{TOP}/budget.csv", caption="../report/budget.rst", category="0. budget"),
            md=f"{TOP}/budget.md",
        log:
            f"{TOP}/logs/budget.log",
        conda:
            get_conda_env("cpu")
        threads: 1
        params:
            cfg=get_budget_cfg(),
            prompts_dir=get_input_dir,
            code=get_code("budget"),
        shell:
            "python -m rlvr_support budget --cfg {params.cfg:q} --prompts-dir {params.prompts_dir} --out {output.md} "
            "> {log} 2>&1"
