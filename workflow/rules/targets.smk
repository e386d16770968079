# The targets: `all` (every table and figure, each stage's from its own rules' outputs) and `prefetch`
# (everything that needs the network).


def get_prefetch_targets():
    """The outputs of the rules that download (data sources, real base models, imported files in hub dataset
    repos): all local rules. An imported base has no weights, and its files hold an imports world's prompts."""
    out = [f"{DATA}/prompts/{t}.jsonl" for t in used_tasks()] if config["world"]["kind"] == "datasets" else []
    if MODELS or config["base"]["kind"] not in ("pretrain", "import"):
        out += for_each_model([f"{RESULTS}/checkpoints/base/manifest.json"])
    out += [hub_manifest(label, e) for label, e, _ in hub_imports(config)]
    for name, spec in EXTERNAL.items():  # checkpoints trained elsewhere: hub ids are fetched here too
        folder = RESULTS.format(model=spec["base"]) if MODELS else RESULTS
        out.append(f"{folder}/checkpoints/{name}/manifest.json")
    out += [f"{RESULTS}/imports/{label}/tokenizer.json" for label in IMPORT_TOKENIZERS]  # imported labels' tokenizers
    return out


def outputs(rule, **wildcards):
    """Every output of `rule`, as its rule file declares it, with the given wildcards expanded (each a list of
    values: their product) and {model} left for for_each_model."""
    return expand([str(p) for p in rule.output], allow_missing=True, **wildcards)


def stage_targets(wildcards=None):
    """The table of targets of one model (of `wildcards`; at parse time, the only one): (wanted, rule,
    wildcards) for every table and figure of every stage. A rule's outputs come from the rule itself, so each
    path is written once, where its rule declares it."""
    ev = config["eval_sets"]
    imported = (["base"] if IMPORTED_BASE else []) + IMPORTS
    return [
        (not IMPORTED_BASE, rules.base_metrics, {}),
        (True, rules.passk_table, {}),
        (True, rules.figure_passk, {"eval_set": ev}),
        (True, rules.figure_bestk, {"eval_set": ev}),
        (True, rules.figure_monitor, {}),
        (bool(sequential_chains()), rules.remedy_table, {}),
        (bool(sequential_chains()), rules.figure_remedies, {}),
        (True, rules.support_table, {}),
        (True, rules.figure_support, {"eval_set": ev}),
        (True, rules.entropy_table, {}),
        (True, rules.figure_entropy, {}),
        (True, rules.openings_table, {}),
        (True, rules.figure_openings, {"eval_set": ev}),
        (True, rules.claims_table, {}),
        (bool(get_js_eval_sets()), rules.js_table, {}),
        (True, rules.figure_js, {"eval_set": get_js_eval_sets()}),
        (True, rules.intervention_table, {"eval_set": get_intervention_eval_sets()}),
        (True, rules.figure_intervention, {"eval_set": get_intervention_eval_sets()}),
        (has_perplexity(), rules.perplexity_table, {}),
        (has_perplexity(), rules.figure_perplexity, {}),
        (True, rules.trainability_table, {}),
        (True, rules.polarisation_table, {}),
        (True, rules.figure_polarisation, {"eval_set": ev}),
        (True, rules.opening_modes_table, {}),
        (bool(get_js_eval_sets()), rules.route_entry_table, {}),
        (bool(get_reasoning_if_eval_sets()), rules.reasoning_if_table, {}),
        (bool(routed_checkpoints()), rules.routed_table, {}),
        (bool(get_single_token_eval_sets()), rules.single_token_table, {}),
        (True, rules.figure_single_token, {"eval_set": get_single_token_eval_sets()}),
        (has_trajectory(wildcards), rules.trajectory_table, {}),
        (has_trajectory(wildcards), rules.figure_trajectory, {"eval_set": TRAJECTORY["eval_sets"]}),
        (has_trajectory(wildcards), rules.figure_association, {"eval_set": TRAJECTORY["eval_sets"]}),
        (bool(LARGE_K), rules.large_k_table, {}),
        (bool(LARGE_K), rules.figure_bestk_large_k, {"eval_set": ev}),
        (True, rules.agreement_table, {"ckpt": imported, "eval_set": ev}),
    ]


def model_targets(wildcards=None):
    """One model's targets, as paths under RESULTS (its {model} left for Snakemake or get_final_output)."""
    return [p for wanted, rule, wc in stage_targets(wildcards) if wanted for p in outputs(rule, **wc)]


def get_final_output():
    """`all`: the budget (one for the whole study) and every model's targets."""
    budget = [] if IMPORTED_BASE else outputs(rules.budget)
    if not MODELS:
        return budget + model_targets()
    return budget + [p.replace("{model}", m) for m in MODELS for p in model_targets({"model": m})]
