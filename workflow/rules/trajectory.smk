# Training trajectories (config `trajectory:`; config/checkpoints.py): the intermediate checkpoints
# of the listed chains (kept by their stages every `every` steps) and of external runs, sampled and
# scored like any checkpoint at the trajectory's budget (sample.smk, score.smk: the `ckpt` wildcard
# takes `<run>/step<s>`), then metric-vs-step curves and the checkpoint-level association between
# opening styles and best@k.
include: "common_trajectory.smk"


localrules:
    trajectory_point,
    trajectory_table,
    figure_trajectory,
    figure_association,


rule trajectory_point:
    # declares kept weights (or an external run's folder) as a checkpoint: checksums, step, run
    input:
        get_point_origin,
    output:
        f"{RESULTS}/checkpoints/{{run}}/step{{step}}/manifest.json",
    log:
        f"{RESULTS}/logs/checkpoints/{{run}}/step{{step}}.log",
    conda:
        get_conda_env("cpu")
    threads: 1
    params:
        command=get_point_command,
        code=get_point_code,
    shell:
        "python -m rlvr_support {params.command} > {log} 2>&1"


rule trajectory_table:
    input:
        unpack(get_trajectory_inputs),
    output:
        table=report(
            f"{RESULTS}/tables/trajectory.csv", caption="../report/trajectory_table.rst", category="5. trajectories"
        ),
        md=f"{RESULTS}/tables/trajectory.md",
        association=report(
            f"{RESULTS}/tables/association.csv", caption="../report/association_table.rst", category="5. trajectories"
        ),
        association_md=f"{RESULTS}/tables/association.md",
    log:
        f"{RESULTS}/logs/analyse/trajectory_table.log",
    conda:
        get_conda_env("cpu")
    threads: 1
    params:
        points=get_trajectory_points_arg,
        cfg=get_trajectory_cfg(),
        code=get_code("trajectory-table"),
    shell:
        "python -m rlvr_support trajectory-table --points {params.points:q} --cfg {params.cfg:q} "
        "--out {output.table} --out-association {output.association} > {log} 2>&1"


rule figure_trajectory:
    input:
        f"{RESULTS}/tables/trajectory.csv",
    output:
        png=report(
            f"{RESULTS}/figures/trajectory_{{eval_set}}.png",
            caption="../report/trajectory_curves.rst",
            category="5. trajectories",
            labels={"figure": "trajectory", "eval set": "{eval_set}"},
        ),
        pdf=f"{RESULTS}/figures/trajectory_{{eval_set}}.pdf",
    log:
        f"{RESULTS}/logs/figures/trajectory_{{eval_set}}.log",
    conda:
        get_conda_env("cpu")
    threads: 1
    params:
        code=get_code("figure-trajectory"),
    shell:
        "python -m rlvr_support figure-trajectory --table {input} --eval-set {wildcards.eval_set} --out {output.png} > {log} 2>&1"


rule figure_association:
    input:
        table=f"{RESULTS}/tables/trajectory.csv",
        association=f"{RESULTS}/tables/association.csv",
    output:
        png=report(
            f"{RESULTS}/figures/association_{{eval_set}}.png",
            caption="../report/association_scatter.rst",
            category="5. trajectories",
            labels={"figure": "openings vs best@k", "eval set": "{eval_set}"},
        ),
        pdf=f"{RESULTS}/figures/association_{{eval_set}}.pdf",
    log:
        f"{RESULTS}/logs/figures/association_{{eval_set}}.log",
    conda:
        get_conda_env("cpu")
    threads: 1
    params:
        code=get_code("figure-association"),
    shell:
        "python -m rlvr_support figure-association --table {input.table} --association {input.association} "
        "--eval-set {wildcards.eval_set} --out {output.png} > {log} 2>&1"
