# rlvr-support: how RL with verifiable rewards reshapes what a language model can still reach.
from snakemake.utils import min_version

min_version("9.0")


# config.yaml is the default; a config given with --configfile replaces it instead of being
# merged into it, so a study never inherits toy-world keys it did not ask for.
if not config:

    configfile: f"{workflow.basedir}/config.yaml"


report: "workflow/report/workflow.rst"


include: "workflow/rules/common.smk"
include: "workflow/rules/common_dag.smk"
include: "workflow/rules/data.smk"
include: "workflow/rules/base.smk"
include: "workflow/rules/train.smk"
include: "workflow/rules/sample.smk"
include: "workflow/rules/imports.smk"
include: "workflow/rules/score.smk"
include: "workflow/rules/analyse.smk"
include: "workflow/rules/support.smk"
include: "workflow/rules/reshaping.smk"
include: "workflow/rules/remedies.smk"
include: "workflow/rules/routed.smk"
include: "workflow/rules/single_token.smk"
include: "workflow/rules/trajectory.smk"
include: "workflow/rules/large_k.smk"
include: "workflow/rules/budget.smk"
include: "workflow/rules/targets.smk"


rule all:
    input:
        get_final_output(),


# Everything that needs the network (hub datasets, hub weights, PyPI wheels), fetched on the submit
# host by local rules, before any job is submitted: `snakemake --profile slurm prefetch`.
rule prefetch:
    input:
        get_prefetch_targets(),
