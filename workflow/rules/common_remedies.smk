# Input functions of remedies.smk: what its rules read (those several stages share: common_dag.smk).


def sequential_chains():
    """Chains of two or more stages (variants included): the ones the remedy comparison covers."""
    return [c for c in config["chains"] if len(parse_chain(c)[0]) > 1]


def get_monitor_files(chain):
    return [f"{RESULTS}/checkpoints/{chain}/seed{s}/monitor.csv" for s in config["rl"]["seeds"]]


def get_all_monitor_files(wildcards=None):
    return [m for c in config["chains"] for m in get_monitor_files(c)]


def get_distill_teachers():
    """{chain: {teacher, teacher_step, teacher_fraction}} of the distilling chains, for the teacher table."""
    out = {}
    for chain in config["chains"]:
        t = distill_teacher(config, chain)
        if t:
            label = t[0] + (f" step {t[1]}" if t[2] else " (final)" if t[0] != "base" else "")
            out[chain] = {"teacher": label, "teacher_step": t[1], "teacher_fraction": t[1] / config["rl"]["steps"]}
    return compact_json(out)
