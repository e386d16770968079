# Routing prior at sampling time (sampling.routing): the listed chains are sampled again with
# the first tokens of a share of samples taken from the base, scored, and compared with plain
# sampling on pass@1 and best@k.
include: "common_routed.smk"


# sampled as any checkpoint, with the first tokens of a share of samples drawn from the base
use rule sample as sample_routed with:
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
        cfg=get_sampling_cfg,
        code=get_code("sample"),
        numerics=get_numerics(),
        gpus=get_gpus_per_node("sample"),
        shard=0,
        job="routed/{eval_set}",
        routing=get_routing_args,


# scored as any sample: only the paths differ
use rule score as score_routed with:
    input:
        samples=f"{RESULTS}/routed/samples/{{ckpt}}/{{eval_set}}.parquet",
        prompts=f"{DATA}/prompts/{{eval_set}}.jsonl",
    output:
        f"{RESULTS}/routed/scores/{{ckpt}}/{{eval_set}}.parquet",
    log:
        f"{RESULTS}/logs/routed/score/{{ckpt}}/{{eval_set}}.log",
    benchmark:
        f"{RESULTS}/benchmarks/routed/score/{{ckpt}}/{{eval_set}}.tsv"


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
