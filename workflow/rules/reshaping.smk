# Seed 000's support-reshaping measurements: future trainability (mixed GRPO groups), polarisation
# of per-prompt success, opening modes (DRI / DAI) and the route-entry JS ratio. All read samples,
# scores or the positional-JS runs only (cheap, local).
include: "common_reshaping.smk"


localrules:
    trainability_table,
    polarisation_table,
    figure_polarisation,
    opening_modes_table,
    route_entry_table,


rule trainability_table:
    input:
        scores=get_all_scores,
        curves=get_reward_curves,
    output:
        table=report(
            f"{RESULTS}/tables/trainability.csv",
            caption="../report/trainability_table.rst",
            category="6. trainability and polarisation",
        ),
        md=f"{RESULTS}/tables/trainability.md",
        observed=report(
            f"{RESULTS}/tables/trainability_observed.csv",
            caption="../report/trainability_observed.rst",
            category="6. trainability and polarisation",
        ),
        observed_md=f"{RESULTS}/tables/trainability_observed.md",
    log:
        f"{RESULTS}/logs/analyse/trainability_table.log",
    conda:
        get_conda_env("cpu")
    threads: 1
    params:
        root=results_dir,  # this model's results folder
        cfg=get_trainability_cfg(),
        curves=get_reward_curve_args,
        code=get_code("trainability-table"),
    shell:
        "python -m rlvr_support trainability-table --scores {input.scores} --scores-root {params.root}/scores "
        "--cfg {params.cfg:q} --out {output.table} --curves {params.curves} --out-observed {output.observed} "
        "> {log} 2>&1"


rule polarisation_table:
    input:
        get_all_scores,
    output:
        table=report(
            f"{RESULTS}/tables/polarisation.csv",
            caption="../report/polarisation_table.rst",
            category="6. trainability and polarisation",
        ),
        md=f"{RESULTS}/tables/polarisation.md",
        transitions=report(
            f"{RESULTS}/tables/polarisation_transitions.csv",
            caption="../report/polarisation_transitions.rst",
            category="6. trainability and polarisation",
        ),
        transitions_md=f"{RESULTS}/tables/polarisation_transitions.md",
        histogram=f"{RESULTS}/tables/polarisation_histogram.csv",
        histogram_md=f"{RESULTS}/tables/polarisation_histogram.md",
    log:
        f"{RESULTS}/logs/analyse/polarisation_table.log",
    conda:
        get_conda_env("cpu")
    threads: 1
    params:
        root=results_dir,  # this model's results folder
        cfg=get_analysis_cfg(*BOOTSTRAP_KEYS),
        code=get_code("polarisation-table"),
    shell:
        "python -m rlvr_support polarisation-table --scores {input} --scores-root {params.root}/scores "
        "--cfg {params.cfg:q} --out {output.table} --out-transitions {output.transitions} "
        "--out-histogram {output.histogram} > {log} 2>&1"


rule figure_polarisation:
    input:
        f"{RESULTS}/tables/polarisation_histogram.csv",
    output:
        png=report(
            f"{RESULTS}/figures/polarisation_{{eval_set}}.png",
            caption="../report/polarisation_hist.rst",
            category="6. trainability and polarisation",
            labels={"figure": "polarisation", "eval set": "{eval_set}"},
        ),
        pdf=f"{RESULTS}/figures/polarisation_{{eval_set}}.pdf",
    log:
        f"{RESULTS}/logs/figures/polarisation_{{eval_set}}.log",
    conda:
        get_conda_env("cpu")
    threads: 1
    params:
        code=get_code("figure-polarisation"),
    shell:
        "python -m rlvr_support figure-polarisation --table {input} --eval-set {wildcards.eval_set} "
        "--out {output.png} > {log} 2>&1"


rule opening_modes_table:
    input:
        get_all_samples,
    output:
        table=report(
            f"{RESULTS}/tables/opening_modes.csv",
            caption="../report/opening_modes_table.rst",
            category="4. divergence and openings",
        ),
        md=f"{RESULTS}/tables/opening_modes.md",
    log:
        f"{RESULTS}/logs/analyse/opening_modes_table.log",
    conda:
        get_conda_env("cpu")
    threads: 1
    params:
        root=results_dir,  # this model's results folder
        cfg=get_analysis_cfg("opening_modes", *BOOTSTRAP_KEYS),
        code=get_code("opening-modes-table"),
    shell:
        "python -m rlvr_support opening-modes-table --samples {input} --samples-root {params.root}/samples "
        "--cfg {params.cfg:q} --out {output.table} > {log} 2>&1"


rule reasoning_if_table:
    input:
        samples=get_reasoning_if_samples,
        prompts=get_reasoning_if_prompts,
    output:
        table=report(
            f"{RESULTS}/tables/reasoning_if.csv",
            caption="../report/reasoning_if_table.rst",
            category="6. trainability and polarisation",
        ),
        md=f"{RESULTS}/tables/reasoning_if.md",
    log:
        f"{RESULTS}/logs/analyse/reasoning_if_table.log",
    benchmark:
        f"{RESULTS}/benchmarks/analyse/reasoning_if_table.tsv"
    conda:
        get_conda_env("cpu")
    # a job, not a local rule: it runs the IFEval verifier three times over every if and joint sample
    threads: get_threads("cpu")
    resources:
        **job_resources("cpu"),
    params:
        root=results_dir,  # this model's results folder
        cfg=get_analysis_cfg("reasoning_if", *BOOTSTRAP_KEYS),
        verifiers=verifiers_arg(reasoning_if_verifiers()),
        code=get_code("reasoning-if-table", reasoning_if_verifiers()),
    shell:
        "python -m rlvr_support reasoning-if-table --samples {input.samples} --samples-root {params.root}/samples "
        "--prompts {input.prompts} --cfg {params.cfg:q} --out {output.table} --verifiers {params.verifiers} > {log} 2>&1"


rule route_entry_table:
    input:
        get_js_runs,
    output:
        table=report(
            f"{RESULTS}/tables/route_entry.csv",
            caption="../report/route_entry_table.rst",
            category="4. divergence and openings",
        ),
        md=f"{RESULTS}/tables/route_entry.md",
    log:
        f"{RESULTS}/logs/analyse/route_entry_table.log",
    conda:
        get_conda_env("cpu")
    threads: 1
    params:
        root=results_dir,  # this model's results folder
        cfg=get_analysis_cfg(*BOOTSTRAP_KEYS),
        code=get_code("route-entry-table"),
    shell:
        "python -m rlvr_support route-entry-table --runs {input} --runs-root {params.root}/analysis/js "
        "--cfg {params.cfg:q} --out {output.table} > {log} 2>&1"
