include: "common_remedies.smk"


localrules:
    remedy_table,
    figure_remedies,
    figure_monitor,


rule remedy_table:
    input:
        get_all_scores,
    output:
        table=report(f"{RESULTS}/tables/remedies.csv", caption="../report/remedy_table.rst", category="5. mitigations"),
        md=f"{RESULTS}/tables/remedies.md",
        teachers=report(
            f"{RESULTS}/tables/distill_teachers.csv",
            caption="../report/distill_teachers.rst",
            category="5. mitigations",
        ),
        teachers_md=f"{RESULTS}/tables/distill_teachers.md",
    log:
        f"{RESULTS}/logs/analyse/remedy_table.log",
    conda:
        get_conda_env("cpu")
    threads: 1
    params:
        root=results_dir,  # this model's results folder
        cfg=get_analysis_cfg(*BOOTSTRAP_KEYS),
        teachers=get_distill_teachers(),
        code=get_code("remedy-table"),
    shell:
        "python -m rlvr_support remedy-table --scores {input} --scores-root {params.root}/scores --cfg {params.cfg:q} "
        "--out {output.table} --teachers {params.teachers:q} --out-teachers {output.teachers} > {log} 2>&1"


rule figure_remedies:
    input:
        f"{RESULTS}/tables/remedies.csv",
    output:
        png=report(
            f"{RESULTS}/figures/remedy_tradeoff.png",
            caption="../report/remedy_tradeoff.rst",
            category="5. mitigations",
            labels={"figure": "trade-off"},
        ),
        pdf=f"{RESULTS}/figures/remedy_tradeoff.pdf",
    log:
        f"{RESULTS}/logs/figures/remedy_tradeoff.log",
    conda:
        get_conda_env("cpu")
    threads: 1
    params:
        code=get_code("figure-remedies"),
    shell:
        "python -m rlvr_support figure-remedies --table {input} --out {output.png} > {log} 2>&1"


rule figure_monitor:
    # all chains in one job (one seaborn start instead of one per chain)
    input:
        get_all_monitor_files(),
    output:
        png=[
            report(
                f"{RESULTS}/figures/monitor/{c}.png",
                caption="../report/monitor_curves.rst",
                category="5. mitigations",
                labels={"figure": "support monitor", "chain": c},
            )
            for c in config["chains"]
        ],
        pdf=[f"{RESULTS}/figures/monitor/{c}.pdf" for c in config["chains"]],
    log:
        f"{RESULTS}/logs/figures/monitor.log",
    conda:
        get_conda_env("cpu")
    threads: 1
    params:
        code=get_code("figure-monitor"),
    shell:
        "python -m rlvr_support figure-monitor --monitor {input} --out {output.png} > {log} 2>&1"
