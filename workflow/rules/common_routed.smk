# Input functions of routed.smk: what its rules read (those several stages share: common_dag.smk).


def get_routing_args(wildcards):
    """A routed job's own arguments: the reference policy (the base; sample_routed's input `reference`), the share
    of samples routed and how many tokens come from the reference (a trailing space: the sample rule's command
    continues after them). A function of the wildcards alone, so that a new gamma or token count reruns the routed
    jobs (tests/test_rerun_plans.py)."""
    r = config["sampling"]["routing"]
    reference = f"{results_dir(wildcards)}/checkpoints/base/manifest.json"
    return f"--route-from {reference} --route-gamma {r['gamma']} --route-tokens {r['tokens']} "


def routed_checkpoints():
    routing = config["sampling"].get("routing")
    if not routing:
        return []
    return [f"{c}/seed{s}" for c in routing["chains"] for s in config["rl"]["seeds"]]


def get_routed_scores(wildcards=None):
    return [f"{RESULTS}/routed/scores/{c}/{e}.parquet" for c in routed_checkpoints() for e in config["eval_sets"]]
