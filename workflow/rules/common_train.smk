# Input functions of train.smk: what its rules read (those several stages share: common_dag.smk).


def get_train_cfg(wildcards):
    """The stage's RL keys: the whole `rl` section but `seeds` (the job trains one, its wildcard), and
    for a trajectory chain every how many steps it keeps its weights (no key for the others, so
    listing a chain in `trajectory` retrains that chain only). `rl.vllm` only under rollout_backend vllm;
    `gradient_checkpointing: auto` resolved for this stage's model (config/defaults.py). `rl.report_to` only
    when it names a tracker, so a study without training curves keeps the params it had."""
    skip = {"seeds"} | (set() if config["rl"].get("rollout_backend") == "vllm" else {"vllm"})
    skip |= {"report_to"} if config["rl"].get("report_to", "none") == "none" else set()
    cfg = {k: v for k, v in config["rl"].items() if k not in skip}
    cfg["gradient_checkpointing"] = gradient_checkpointing(config["rl"], base_spec(wildcards))
    if kept_every(config, wildcards.chain):
        cfg["keep_every"] = kept_every(config, wildcards.chain)
    return compact_json(cfg)


def train_verifiers(chain):
    """A stage's reward scores its task's train split; its support monitor (when on) the eval split of
    every task of the chain so far (get_probe_prompts)."""
    out = set(task_verifiers(config, stage_task(chain), "train"))
    if config["rl"].get("monitor"):
        out |= {f for t in dict.fromkeys(parse_chain(chain)[0]) for f in eval_verifiers(t)}
    return tuple(sorted(out))


def get_train_verifiers(wildcards):
    return verifiers_arg(train_verifiers(wildcards.chain))


def get_train_code(wildcards):
    """The trainer, the verifier families the job loads (its reward's and its monitor's) and the remedies its
    variant turns on; the support monitor's own code (the metrics it reports) only where the monitor can stop the
    stage early (lineage/job_code.py), so that a fix of those metrics retrains nothing. The train verb's resume
    fingerprint hashes the same (job_hash with its --verifiers and --remedies)."""
    remedies = json.loads(get_remedies(wildcards))
    return get_code("train", train_verifiers(wildcards.chain), remedies, monitor_moves_weights(config["rl"]))


def get_parent(wildcards):
    """`math-if` (and `math-if~kl`) continues from `math` (same seed); a one-stage chain starts from the base."""
    parent = parent_chain(wildcards.chain)
    if parent is None:
        return f"{RESULTS}/checkpoints/base/manifest.json"
    return f"{RESULTS}/checkpoints/{parent}/seed{wildcards.seed}/manifest.json"


def get_stage_task(wildcards):
    return stage_task(wildcards.chain)


def variant_spec(chain):
    """The (filled-in) `variants` entry of the chain's variant; {} for a plain chain."""
    _, variant = parse_chain(chain)
    return config["variants"][variant] if variant else {}


def get_remedies(wildcards):
    """The variant's remedies, defaults filled in, as JSON for `train --remedies` ({} for a plain chain)."""
    return compact_json({k: v for k, v in variant_spec(wildcards.chain).items() if k not in VARIANT_META})


def get_teacher(wildcards):
    """Distillation teacher (config/chains.distill_teacher): the stage's parent (default), its weights
    kept at `teacher_step` (a trajectory point), or the base policy; the parent when not distilling."""
    teacher = distill_teacher(config, wildcards.chain)
    if teacher is None or (teacher[0] != "base" and not teacher[2]):
        return get_parent(wildcards)
    if teacher[0] == "base":
        return f"{RESULTS}/checkpoints/base/manifest.json"
    return f"{RESULTS}/checkpoints/{teacher[0]}/seed{wildcards.seed}/step{teacher[1]}/manifest.json"


def get_probe_prompts(wildcards):
    """Prompt files of every task of the chain so far (current and previous): the monitor's probes."""
    stages, _ = parse_chain(wildcards.chain)
    return [f"{DATA}/prompts/{t}.jsonl" for t in dict.fromkeys(stages)]


def get_probe_args(wildcards):
    """`task=path` pairs for `train --probe`."""
    return " ".join(f"{Path(p).stem}={p}" for p in get_probe_prompts(wildcards))


def get_stage_prompts(wildcards):
    return f"{DATA}/prompts/{get_stage_task(wildcards)}.jsonl"


def get_main_process_port(output):
    """The rendezvous port of a one-node multi-GPU job, as bash: RLVR_MAIN_PROCESS_PORT when set, else 20000 +
    the SLURM job id mod 20000 (scripts/accelerate_multinode.sh's), so that two jobs sharing a node do not both
    take accelerate's 29500; outside SLURM a number from the job's output path stands in for the id."""
    import hashlib

    own = int(hashlib.sha256(str(output.manifest).encode()).hexdigest(), 16) % 20000
    return f"${{RLVR_MAIN_PROCESS_PORT:-$((20000+${{SLURM_JOB_ID:-{own}}}%20000))}}"  # one shell word


def get_train_launcher(wildcards, output):
    """How the train verb is started: plain python (toy, one process), `accelerate launch` with the
    configured DeepSpeed/FSDP file on one node, or one `accelerate launch` per node through srun; each
    training process gets cpus_per_task / processes threads, and a one-node job a port of its own."""
    res = config["resources"]["train"]
    if res["launcher"] == "python":
        return PY
    accelerate_config = Path(res["accelerate_config"])
    if not accelerate_config.is_absolute():
        accelerate_config = Path(workflow.basedir) / accelerate_config
    if not accelerate_config.is_file():
        raise ValueError(f"resources.train.accelerate_config: {accelerate_config} does not exist")
    processes = max(1, res["gpu"])
    threads = f"--num_cpu_threads_per_process {max(1, res['cpus_per_task'] // processes)}"
    if res["nodes"] == 1:
        return (
            f"accelerate launch --config_file {accelerate_config} --num_machines 1 "
            f"--num_processes {processes} --main_process_port {get_main_process_port(output)} "
            f"{threads} -m rlvr_support"
        )
    script = Path(workflow.basedir) / "scripts" / "accelerate_multinode.sh"
    return f"bash {script} {accelerate_config} {processes} {threads} -m rlvr_support"
