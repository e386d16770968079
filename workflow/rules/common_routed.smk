# Input functions of routed.smk: what its rules read (those several stages share: common_dag.smk).


def get_routing_args(wildcards, input):
    """A routed job's own arguments: the reference policy, the share of samples routed and how many tokens
    come from the reference (a trailing space: the sample rule's command continues after them)."""
    r = config["sampling"]["routing"]
    return f"--route-from {input.reference} --route-gamma {r['gamma']} --route-tokens {r['tokens']} "


def routed_checkpoints():
    routing = config["sampling"].get("routing")
    if not routing:
        return []
    return [f"{c}/seed{s}" for c in routing["chains"] for s in config["rl"]["seeds"]]


def get_routed_scores(wildcards=None):
    return [f"{RESULTS}/routed/scores/{c}/{e}.parquet" for c in routed_checkpoints() for e in config["eval_sets"]]
