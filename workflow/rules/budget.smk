# The study's budget (python -m rlvr_support budget): jobs, sequences, tokens, GPU-hours and disk per
# rule kind, from the config and the prompt files; lengths and throughputs are the `budget` assumptions.
# A local rule after the data rules only, so `snakemake results/budget.md` costs a study before any GPU job.
include: "common_budget.smk"


# A study of imported samples only (base kind import) runs no model: nothing to budget.
if not IMPORTED_BASE:

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
