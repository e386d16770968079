# Training trajectories (config `trajectory:`; config/checkpoints.py): the intermediate checkpoints
# of the listed chains (kept by their stages every `every` steps) and of external runs, sampled and
# scored like any checkpoint at the trajectory's budget (sample.smk, score.smk: the `ckpt` wildcard
# takes `<run>/step<s>`), then metric-vs-step curves and the checkpoint-level association between
# opening styles and best@k.

# ---- input functions: what this file's rules read (those several stages share: common_dag.smk)


def has_trajectory(wildcards=None):
    return bool(trajectory_runs(config, model_of(wildcards)))


def get_trajectory_points(wildcards, root=None):
    """One entry per trajectory point and eval set: run, chain, seed, step and its samples and scores
    (the run's start and end are the full-budget files; the verb reads their first `n` samples)."""
    root = RESULTS if root is None else root
    return [
        {
            "run": r["run"],
            "chain": r["chain"],
            "seed": r["seed"],
            "step": step,
            "checkpoint": label,
            "samples": f"{root}/samples/{label}/{e}.parquet",
            "scores": f"{root}/scores/{label}/{e}.parquet",
        }
        for r in trajectory_runs(config, model_of(wildcards))
        for step, label, _ in r["points"]
        for e in TRAJECTORY["eval_sets"]
    ]


def get_trajectory_inputs(wildcards):
    points = get_trajectory_points(wildcards)
    return {"samples": [p["samples"] for p in points], "scores": [p["scores"] for p in points]}


def get_trajectory_points_arg(wildcards):
    """The points as JSON, with this model's concrete paths."""
    return compact_json(get_trajectory_points(wildcards, root=results_dir(wildcards)))


def get_trajectory_cfg(wildcards=None):
    """What the trajectory table reads: k (the trajectory's n) and the bootstrap keys."""
    return compact_json({"k": TRAJECTORY["n"], **{k: ANALYSIS[k] for k in BOOTSTRAP_KEYS}})


def get_point_origin(wildcards):
    """What a trajectory point's manifest is made from: the trained run's manifest (its stage kept the
    weights), or nothing for an external run's (its folder was checked by config validation)."""
    return [] if wildcards.run in EXTERNAL else [f"{RESULTS}/checkpoints/{wildcards.run}/manifest.json"]


def get_point_code(wildcards):
    """A trajectory point of an external run is declared by `checkpoint`, of a trained run by `trajectory-point`."""
    return get_code("checkpoint" if wildcards.run in EXTERNAL else "trajectory-point")


def get_point_command(wildcards, input, output):
    if wildcards.run in EXTERNAL:
        return (
            f"checkpoint --name {wildcards.run} --cfg {shlex.quote(compact_json(EXTERNAL[wildcards.run]))} "
            f"--step {wildcards.step} --out {output[0]}"
        )
    return f"trajectory-point --run {input[0]} --step {wildcards.step} --out {output[0]}"


def get_trajectory_outputs(wildcards=None):
    if not any(trajectory_runs(config, m) for m in (MODELS or [None])):
        return []
    out = [f"{RESULTS}/tables/{t}" for t in ("trajectory.csv", "trajectory.md", "association.csv", "association.md")]
    for e in TRAJECTORY["eval_sets"]:
        out += [f"{RESULTS}/figures/trajectory_{e}.png", f"{RESULTS}/figures/association_{e}.png"]
    return out


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
