# Routing prior at sampling time (sampling.routing): the listed chains are sampled again with
# the first tokens of a share of samples taken from the base, scored, and compared with plain
# sampling on pass@1 and best@k.

# ---- input functions: what this file's rules read (those several stages share: common_dag.smk)


def get_routing_args(wildcards):
    """A routed job's own keys: the share of samples routed and how many tokens come from the reference."""
    r = config["sampling"]["routing"]
    return f"--route-gamma {r['gamma']} --route-tokens {r['tokens']}"


def routed_checkpoints():
    routing = config["sampling"].get("routing")
    if not routing:
        return []
    return [f"{c}/seed{s}" for c in routing["chains"] for s in config["rl"]["seeds"]]


def get_routed_scores(wildcards=None):
    return [f"{RESULTS}/routed/scores/{c}/{e}.parquet" for c in routed_checkpoints() for e in config["eval_sets"]]


def get_routed_outputs():
    return [f"{RESULTS}/tables/routed_passk.csv", f"{RESULTS}/tables/routed_passk.md"] if routed_checkpoints() else []


rule sample_routed:
    input:
        model=get_model,
        reference=f"{RESULTS}/checkpoints/base/manifest.json",
        prompts=f"{DATA}/prompts/{{eval_set}}.jsonl",
    output:
        f"{RESULTS}/routed/samples/{{ckpt}}/{{eval_set}}.parquet",
    log:
        f"{RESULTS}/logs/routed/sample/{{ckpt}}/{{eval_set}}.log",
    benchmark:
        f"{RESULTS}/benchmarks/routed/sample/{{ckpt}}/{{eval_set}}.tsv"
    conda:
        get_conda_env("sample")
    threads: get_threads("sample")
    resources:
        gpu=get_gpus("sample"),
        nodes=get_resource("sample", "nodes"),
        tasks=get_resource("sample", "tasks"),
        tasks_per_gpu=0,  # else the SLURM plugin turns `tasks` into --ntasks-per-gpu
        cpus_per_task=get_resource("sample", "cpus_per_task"),
        mem_mb=get_mem_mb("sample"),
        runtime=get_runtime("sample"),
    params:
        cfg=get_sampling_cfg,
        routing=get_routing_args,
        code=get_code("sample"),
        numerics=get_numerics(),
        gpus=get_gpus_per_node("sample"),
    shell:
        "python -m rlvr_support sample --model {input.model} --prompts {input.prompts} --cfg {params.cfg:q} "
        "--job routed/{wildcards.eval_set} --route-from {input.reference} {params.routing} "
        "--out {output} --threads {threads} --gpus {params.gpus} > {log} 2>&1"


rule score_routed:
    input:
        samples=f"{RESULTS}/routed/samples/{{ckpt}}/{{eval_set}}.parquet",
        prompts=f"{DATA}/prompts/{{eval_set}}.jsonl",
    output:
        f"{RESULTS}/routed/scores/{{ckpt}}/{{eval_set}}.parquet",
    log:
        f"{RESULTS}/logs/routed/score/{{ckpt}}/{{eval_set}}.log",
    conda:
        get_conda_env("cpu")
    threads: 1
    resources:
        mem_mb=get_mem_mb("cpu"),
        runtime=get_runtime("cpu"),
    params:
        cfg=get_scoring_cfg(),
        verifiers=get_eval_verifiers,
        code=get_eval_code("score"),
    shell:
        "python -m rlvr_support score --samples {input.samples} --prompts {input.prompts} --cfg {params.cfg:q} "
        "--out {output} --verifiers {params.verifiers} > {log} 2>&1"


localrules:
    routed_table,


rule routed_table:
    input:
        plain=f"{RESULTS}/tables/passk.csv",
        scores=get_routed_scores,
    output:
        table=report(
            f"{RESULTS}/tables/routed_passk.csv", caption="../report/routed_table.rst", category="5. mitigations"
        ),
        md=f"{RESULTS}/tables/routed_passk.md",
    log:
        f"{RESULTS}/logs/analyse/routed_table.log",
    conda:
        get_conda_env("cpu")
    threads: 1
    params:
        root=results_dir,  # this model's results folder
        cfg=get_analysis_cfg(*BOOTSTRAP_KEYS),
        code=get_code("routed-table"),
    shell:
        "python -m rlvr_support routed-table --plain-table {input.plain} --scores {input.scores} "
        "--scores-root {params.root}/routed/scores --cfg {params.cfg:q} --out {output.table} > {log} 2>&1"
