# Routing prior at sampling time (sampling.routing): the listed chains are sampled again with
# the first tokens of a share of samples taken from the base, scored, and compared with plain
# sampling on pass@1 and best@k.


def routed_checkpoints():
    routing = config["sampling"].get("routing")
    if not routing:
        return []
    return [f"{c}/seed{s}" for c in routing["chains"] for s in config["rl"]["seeds"]]


def get_routed_scores(wildcards=None):
    return [f"{RESULTS}/routed/scores/{c}/{e}.parquet" for c in routed_checkpoints() for e in config["eval_sets"]]


def get_routing_args(wildcards):
    r = config["sampling"]["routing"]
    return f"--route-gamma {r['gamma']} --route-tokens {r['tokens']}"


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
    params:
        cfg=as_json("sampling"),
        routing=get_routing_args,
        code=get_code("sample", "sampling", "modeling", "cli"),
    threads: 1
    resources:
        mem_mb=get_mem_mb("sample"),
        runtime=get_runtime("sample"),
    shell:
        "{PY} sample --model {input.model} --prompts {input.prompts} --cfg {params.cfg:q} "
        "--job routed/{wildcards.ckpt}/{wildcards.eval_set} --route-from {input.reference} {params.routing} "
        "--out {output} --threads {threads} > {log} 2>&1"


rule score_routed:
    input:
        samples=f"{RESULTS}/routed/samples/{{ckpt}}/{{eval_set}}.parquet",
        prompts=f"{DATA}/prompts/{{eval_set}}.jsonl",
    output:
        f"{RESULTS}/routed/scores/{{ckpt}}/{{eval_set}}.parquet",
    log:
        f"{RESULTS}/logs/routed/score/{{ckpt}}/{{eval_set}}.log",
    params:
        cfg=as_json("scoring"),
        code=get_code("scoring", "verifiers", "cli"),
    threads: 1
    resources:
        mem_mb=get_mem_mb("cpu"),
        runtime=get_runtime("cpu"),
    shell:
        "{PY} score --samples {input.samples} --prompts {input.prompts} --cfg {params.cfg:q} "
        "--out {output} > {log} 2>&1"


localrules:
    routed_table,


rule routed_table:
    input:
        plain=f"{RESULTS}/tables/passk.csv",
        scores=get_routed_scores,
    output:
        table=report(f"{RESULTS}/tables/routed_passk.csv", caption="../report/routed_table.rst",
                     category="5. mitigations"),
        md=f"{RESULTS}/tables/routed_passk.md",
    log:
        f"{RESULTS}/logs/analyse/routed_table.log",
    params:
        root=results_dir,  # this model's results folder
        cfg=as_json("analysis"),
        code=get_code("analysis", "metrics", "cli"),
    threads: 1
    shell:
        "{PY} routed-table --plain-table {input.plain} --scores {input.scores} "
        "--scores-root {params.root}/routed/scores --cfg {params.cfg:q} --out {output.table} > {log} 2>&1"


def get_routed_outputs():
    return [f"{RESULTS}/tables/routed_passk.csv", f"{RESULTS}/tables/routed_passk.md"] if routed_checkpoints() else []
