localrules:
    passk_table,
    figure_passk,
    figure_bestk,


rule passk_table:
    input:
        get_all_scores,
    output:
        table=report(
            f"{RESULTS}/tables/passk.csv", caption="../report/passk_table.rst", category="1. pass@k and best@k"
        ),
        headline=report(
            f"{RESULTS}/tables/headline.csv", caption="../report/headline.rst", category="1. pass@k and best@k"
        ),
        headline_md=f"{RESULTS}/tables/headline.md",
        table_md=f"{RESULTS}/tables/passk.md",
        difficulty=report(
            f"{RESULTS}/tables/difficulty.csv",
            caption="../report/difficulty_table.rst",
            category="1. pass@k and best@k",
        ),
        difficulty_md=f"{RESULTS}/tables/difficulty.md",
    log:
        f"{RESULTS}/logs/analyse/passk_table.log",
    conda:
        get_conda_env("cpu")
    threads: 1
    params:
        root=results_dir,  # this model's results folder
        cfg=get_analysis_cfg(*BOOTSTRAP_KEYS),
        code=get_code("passk-table"),
    shell:
        "python -m rlvr_support passk-table --scores {input} --scores-root {params.root}/scores --cfg {params.cfg:q} "
        "--out {output.table} --headline {output.headline} --out-difficulty {output.difficulty} > {log} 2>&1"


rule figure_passk:
    input:
        f"{RESULTS}/tables/passk.csv",
    output:
        png=report(
            f"{RESULTS}/figures/passk_{{eval_set}}.png",
            caption="../report/passk_curves.rst",
            category="1. pass@k and best@k",
            labels={"figure": "pass@k", "eval set": "{eval_set}"},
        ),
        pdf=f"{RESULTS}/figures/passk_{{eval_set}}.pdf",
    log:
        f"{RESULTS}/logs/figures/passk_{{eval_set}}.log",
    conda:
        get_conda_env("cpu")
    threads: 1
    params:
        code=get_code("figure-passk"),
    shell:
        "python -m rlvr_support figure-passk --table {input} --eval-set {wildcards.eval_set} --metric pass@k --out {output.png} > {log} 2>&1"


rule figure_bestk:
    input:
        f"{RESULTS}/tables/passk.csv",
    output:
        png=report(
            f"{RESULTS}/figures/bestk_{{eval_set}}.png",
            caption="../report/bestk_curves.rst",
            category="1. pass@k and best@k",
            labels={"figure": "best@k", "eval set": "{eval_set}"},
        ),
        pdf=f"{RESULTS}/figures/bestk_{{eval_set}}.pdf",
    log:
        f"{RESULTS}/logs/figures/bestk_{{eval_set}}.log",
    conda:
        get_conda_env("cpu")
    threads: 1
    params:
        code=get_code("figure-passk"),
    shell:
        "python -m rlvr_support figure-passk --table {input} --eval-set {wildcards.eval_set} --metric best@k --out {output.png} > {log} 2>&1"
