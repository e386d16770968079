# Input functions of trajectory.smk: what its rules read (those several stages share: common_dag.smk).


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
