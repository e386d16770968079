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


def get_final_output():
    base_metrics = [] if IMPORTED_BASE else [f"{RESULTS}/checkpoints/base/metrics.json"]
    return get_budget_outputs() + for_each_model(
        [
            *base_metrics,
            f"{RESULTS}/tables/passk.csv",
            f"{RESULTS}/tables/headline.csv",
            f"{RESULTS}/tables/headline.md",
            f"{RESULTS}/tables/difficulty.csv",
            *get_figures(),
            *get_remedy_outputs(),
            *get_support_outputs(),
            *get_reshaping_outputs(),
            *get_routed_outputs(),
            *get_single_token_outputs(),
            *get_trajectory_outputs(),
            *get_large_k_outputs(),
            *get_import_outputs(),
        ]
    )
