# Support analyses (seeds 000 and 003): empirical support categories, entropies, position-wise
# JS divergence, openings, the opening intervention, reference perplexity and the claims table.
# Model-based jobs (positional_js, opening_intervention, perplexity) run on a subsample set in
# config["analysis"], on the GPUs, dtype and memory of `resources.analyse`; everything else reads
# samples and scores only.

# ---- input functions: what this file's rules read (those several stages share: common_dag.smk)


def get_js_eval_sets():
    """The eval sets of the JS analysis; none when the base is imported (JS runs the base model)."""
    return [] if IMPORTED_BASE else [e for e in config["eval_sets"] if e in ANALYSIS["divergence"]["eval_sets"]]


def get_intervention_eval_sets():
    """The eval sets of the opening intervention; none when the base is imported (it samples the models)."""
    return [] if IMPORTED_BASE else [e for e in config["eval_sets"] if e in ANALYSIS["intervention"]["eval_sets"]]


def has_perplexity():
    """Reference solutions exist in the toy world only."""
    return config["world"]["kind"] == "toy"


def get_analysis_part(part, *keys):
    """A model-based analysis' own section (without its `eval_sets`, which pick the jobs) plus `keys`."""
    own = {k: v for k, v in ANALYSIS[part].items() if k != "eval_sets"}
    return compact_json({part: own, **{k: ANALYSIS[k] for k in keys}})


def get_opening_tokens(wildcards=None):
    return ANALYSIS["opening_tokens"]


def get_openings_tokenizer(wildcards):
    """The base's manifest, whose tokenizer decodes the openings (none for an imported base), and the tokenizers
    of the imported labels whose openings are counted in tokens of their own (label_tokenizer_manifests)."""
    out = {} if IMPORTED_BASE else {"tokenizer": f"{RESULTS}/checkpoints/base/manifest.json"}
    if label_tokenizer_manifests():
        out["label_tokenizers"] = list(label_tokenizer_manifests().values())
    return out


def get_openings_tokenizer_arg(wildcards, input):
    args = [f"--tokenizer {input.tokenizer}"] if "tokenizer" in input.keys() else []
    if "label_tokenizers" in input.keys():
        pairs = zip(label_tokenizer_manifests(), input.label_tokenizers, strict=True)
        args.append("--label-tokenizer " + " ".join(f"{label}={path}" for label, path in pairs))
    return " ".join(args)


def get_js_files(folder):
    """One Parquet file per JS eval set under `RESULTS/folder` (wildcards left for Snakemake to fill)."""
    return [f"{RESULTS}/{folder}/{e}.parquet" for e in get_js_eval_sets()]


def get_js_prompts(wildcards=None):
    return [f"{DATA}/prompts/{e}.jsonl" for e in get_js_eval_sets()]


def get_js_runs(wildcards=None):
    return [
        f"{RESULTS}/analysis/js/{c}/{e}.parquet" for c in model_checkpoints(wildcards)[1:] for e in get_js_eval_sets()
    ]


def get_perplexity_runs(wildcards=None):
    # an output list, fixed at parse time: the toy world has one starting model (config validation)
    return [f"{RESULTS}/analysis/perplexity/{c}/math.parquet" for c in model_checkpoints(wildcards)]


def get_checkpoint_manifests(wildcards=None):
    """Every model checkpoint's manifest, in model_checkpoints() order."""
    return [f"{RESULTS}/checkpoints/{c}/manifest.json" for c in model_checkpoints(wildcards)]


def get_intervention_samples(wildcards):
    return [f"{RESULTS}/samples/{c}/{wildcards.eval_set}.parquet" for c in model_checkpoints(wildcards)]


def get_intervention_scores(wildcards):
    return [f"{RESULTS}/scores/{c}/{wildcards.eval_set}.parquet" for c in model_checkpoints(wildcards)]


def get_intervention_labels(kind):
    """`label=path` pairs (label: base, chain/seedK or an external name) of the rule's input `kind`,
    in model_checkpoints() order."""

    def pairs(wildcards, input):
        return " ".join(f"{c}={p}" for c, p in zip(model_checkpoints(wildcards), input[kind], strict=True))

    return pairs


def get_claims_cfg(wildcards=None):
    """What the claims table reads: m, the bootstrap keys and G (the mixed-group claim)."""
    keys = ("opening_tokens", *BOOTSTRAP_KEYS)
    return compact_json({"group_size": get_rl_group_size(), **{k: ANALYSIS[k] for k in keys}})


def get_claims_inputs(wildcards=None):
    ins = {
        "scores": get_all_scores(wildcards),
        "passk": f"{RESULTS}/tables/passk.csv",
        "support": f"{RESULTS}/tables/support.csv",
        "support_per_prompt": f"{RESULTS}/tables/support_categories.csv",
        "entropy": f"{RESULTS}/tables/entropy.csv",
        "modes": f"{RESULTS}/tables/opening_modes.csv",
        "trainability": f"{RESULTS}/tables/trainability.csv",
        "decomposition": [f"{RESULTS}/tables/intervention_decomposition_{e}.csv" for e in get_intervention_eval_sets()],
    }
    if get_js_eval_sets():
        ins["js"] = f"{RESULTS}/tables/js_share.csv"
    if has_perplexity():
        ins["perplexity"] = f"{RESULTS}/tables/perplexity.csv"
    if has_trajectory(wildcards):
        ins["association"] = f"{RESULTS}/tables/association.csv"
    if get_reasoning_if_eval_sets():
        ins["reasoning_if"] = f"{RESULTS}/tables/reasoning_if.csv"
    if get_single_token_eval_sets():
        ins["single_token"] = f"{RESULTS}/tables/single_token.csv"
    return ins


def get_claims_args(wildcards, input):
    args = []
    if "js" in input.keys():
        args.append(f"--js-share {input.js}")
    if "perplexity" in input.keys():
        args.append(f"--perplexity {input.perplexity}")
    if "association" in input.keys():
        args.append(f"--association {input.association}")
    if "reasoning_if" in input.keys():
        args.append(f"--reasoning-if {input.reasoning_if}")
    if "single_token" in input.keys():
        args.append(f"--single-token {input.single_token}")
    if get_intervention_eval_sets():
        args.append(
            "--decomposition "
            + " ".join(f"{e}={p}" for e, p in zip(get_intervention_eval_sets(), input.decomposition, strict=True))
        )
    return " ".join(args)


def get_support_outputs():
    """Every table and figure of support.smk: targets of `all`."""
    out = [
        f"{RESULTS}/tables/{t}"
        for t in (
            "support.csv",
            "support.md",
            "support_categories.csv",
            "support_categories.md",
            "entropy.csv",
            "entropy.md",
            "openings.csv",
            "openings.md",
            "openings_summary.csv",
            "openings_styles.csv",
            "claims.csv",
            "seed_stability.csv",
            "seed_stability.md",
            "claims.md",
        )
    ]
    out += [f"{RESULTS}/figures/support_{e}.png" for e in config["eval_sets"]]
    out += [f"{RESULTS}/figures/openings_{e}.png" for e in config["eval_sets"]]
    out.append(f"{RESULTS}/figures/entropy.png")
    if get_js_eval_sets():
        out += [f"{RESULTS}/tables/js_share.csv", f"{RESULTS}/tables/js_positions.csv"]
        out += [f"{RESULTS}/figures/js_{e}.png" for e in get_js_eval_sets()]
    for e in get_intervention_eval_sets():
        out += [
            f"{RESULTS}/tables/intervention_{e}.csv",
            f"{RESULTS}/tables/intervention_decomposition_{e}.csv",
            f"{RESULTS}/figures/intervention_{e}.png",
        ]
    if has_perplexity():
        out += [f"{RESULTS}/tables/perplexity.csv", f"{RESULTS}/figures/perplexity.png"]
    return out


localrules:
    support_table,
    figure_support,
    entropy_table,
    figure_entropy,
    js_table,
    figure_js,
    openings_table,
    figure_openings,
    intervention_table,
    figure_intervention,
    perplexity_table,
    figure_perplexity,
    claims_table,


# ---------------------------------------------------------------- support categories (Invisible Leash)
rule support_table:
    input:
        get_all_scores,
    output:
        table=report(f"{RESULTS}/tables/support.csv", caption="../report/support_table.rst", category="2. support"),
        md=f"{RESULTS}/tables/support.md",
        per_prompt=f"{RESULTS}/tables/support_categories.csv",
        per_prompt_md=f"{RESULTS}/tables/support_categories.md",
    log:
        f"{RESULTS}/logs/analyse/support_table.log",
    conda:
        get_conda_env("cpu")
    threads: 1
    params:
        root=results_dir,  # this model's results folder
        cfg=get_analysis_cfg("support_delta", *BOOTSTRAP_KEYS),
        bases=get_support_bases(),  # imported labels compared with another label (`base:`)
        code=get_code("support-table"),
    shell:
        "python -m rlvr_support support-table --scores {input} --scores-root {params.root}/scores --cfg {params.cfg:q} "
        "--out {output.table} --out-per-prompt {output.per_prompt} {params.bases} > {log} 2>&1"


rule figure_support:
    input:
        f"{RESULTS}/tables/support.csv",
    output:
        png=report(
            f"{RESULTS}/figures/support_{{eval_set}}.png",
            caption="../report/support_bars.rst",
            category="2. support",
            labels={"figure": "support categories", "eval set": "{eval_set}"},
        ),
        pdf=f"{RESULTS}/figures/support_{{eval_set}}.pdf",
    log:
        f"{RESULTS}/logs/figures/support_{{eval_set}}.log",
    conda:
        get_conda_env("cpu")
    threads: 1
    params:
        code=get_code("figure-support"),
    shell:
        "python -m rlvr_support figure-support --table {input} --eval-set {wildcards.eval_set} --out {output.png} > {log} 2>&1"


# ---------------------------------------------------------------- entropies (Invisible Leash)
rule entropy_table:
    input:
        samples=get_all_samples,
        scores=get_all_scores,
    output:
        table=report(f"{RESULTS}/tables/entropy.csv", caption="../report/entropy_table.rst", category="3. entropy"),
        md=f"{RESULTS}/tables/entropy.md",
    log:
        f"{RESULTS}/logs/analyse/entropy_table.log",
    conda:
        get_conda_env("cpu")
    threads: 1
    params:
        root=results_dir,  # this model's results folder
        cfg=get_analysis_cfg(*BOOTSTRAP_KEYS),
        code=get_code("entropy-table"),
    shell:
        "python -m rlvr_support entropy-table --samples {input.samples} --samples-root {params.root}/samples --scores {input.scores} "
        "--scores-root {params.root}/scores --cfg {params.cfg:q} --out {output.table} > {log} 2>&1"


rule figure_entropy:
    input:
        f"{RESULTS}/tables/entropy.csv",
    output:
        png=report(
            f"{RESULTS}/figures/entropy.png",
            caption="../report/entropy_bars.rst",
            category="3. entropy",
            labels={"figure": "entropies"},
        ),
        pdf=f"{RESULTS}/figures/entropy.pdf",
    log:
        f"{RESULTS}/logs/figures/entropy.log",
    conda:
        get_conda_env("cpu")
    threads: 1
    params:
        code=get_code("figure-entropy"),
    shell:
        "python -m rlvr_support figure-entropy --table {input} --out {output.png} > {log} 2>&1"


# ---------------------------------------------------------------- position-wise JS divergence (Support reshaping)
rule positional_js:
    # one job per checkpoint for all its eval sets (a process start per eval set cost more than the work)
    input:
        base_model=f"{RESULTS}/checkpoints/base/manifest.json",
        model=f"{RESULTS}/checkpoints/{{ckpt}}/manifest.json",
        base_samples=get_js_files("samples/base"),
        samples=get_js_files("samples/{ckpt}"),
        prompts=get_js_prompts(),
    output:
        get_js_files("analysis/js/{ckpt}"),
    log:
        f"{RESULTS}/logs/analyse/js/{{ckpt}}.log",
    benchmark:
        f"{RESULTS}/benchmarks/analyse/js/{{ckpt}}.tsv"
    conda:
        get_conda_env("analyse")
    threads: get_threads("analyse")
    resources:
        gpu=get_gpus("analyse"),
        nodes=get_resource("analyse", "nodes"),
        tasks=get_resource("analyse", "tasks"),
        tasks_per_gpu=0,  # else the SLURM plugin turns `tasks` into --ntasks-per-gpu
        cpus_per_task=get_resource("analyse", "cpus_per_task"),
        mem_mb=get_mem_mb("analyse"),
        runtime=get_runtime("analyse"),
    params:
        cfg=get_analysis_part("divergence", "seed"),
        gpus=get_gpus_per_node("analyse"),
        dtype=get_analyse_dtype(),
        code=get_code("positional-js"),
        numerics=get_numerics(),
    shell:
        "python -m rlvr_support positional-js --base-model {input.base_model} --model {input.model} --base-samples {input.base_samples} "
        "--samples {input.samples} --prompts {input.prompts} --cfg {params.cfg:q} --out {output} "
        "--threads {threads} --gpus {params.gpus} --dtype {params.dtype} > {log} 2>&1"


rule js_table:
    input:
        get_js_runs,
    output:
        positions=f"{RESULTS}/tables/js_positions.csv",
        positions_md=f"{RESULTS}/tables/js_positions.md",
        table=report(
            f"{RESULTS}/tables/js_share.csv", caption="../report/js_share.rst", category="4. divergence and openings"
        ),
        md=f"{RESULTS}/tables/js_share.md",
    log:
        f"{RESULTS}/logs/analyse/js_table.log",
    conda:
        get_conda_env("cpu")
    threads: 1
    params:
        root=results_dir,  # this model's results folder
        cfg=get_analysis_cfg("opening_tokens", *BOOTSTRAP_KEYS),
        code=get_code("js-table"),
    shell:
        "python -m rlvr_support js-table --runs {input} --runs-root {params.root}/analysis/js --cfg {params.cfg:q} "
        "--out-positions {output.positions} --out {output.table} > {log} 2>&1"


rule figure_js:
    input:
        f"{RESULTS}/tables/js_positions.csv",
    output:
        png=report(
            f"{RESULTS}/figures/js_{{eval_set}}.png",
            caption="../report/js_curves.rst",
            category="4. divergence and openings",
            labels={"figure": "JS by position", "eval set": "{eval_set}"},
        ),
        pdf=f"{RESULTS}/figures/js_{{eval_set}}.pdf",
    log:
        f"{RESULTS}/logs/figures/js_{{eval_set}}.log",
    conda:
        get_conda_env("cpu")
    threads: 1
    params:
        m=get_opening_tokens(),
        code=get_code("figure-js"),
    shell:
        "python -m rlvr_support figure-js --table {input} --eval-set {wildcards.eval_set} --m {params.m} --out {output.png} > {log} 2>&1"


# ---------------------------------------------------------------- openings (Support reshaping)
rule openings_table:
    input:
        unpack(get_openings_tokenizer),
        samples=get_all_samples,
    output:
        table=report(
            f"{RESULTS}/tables/openings.csv",
            caption="../report/openings_table.rst",
            category="4. divergence and openings",
        ),
        md=f"{RESULTS}/tables/openings.md",
        summary=f"{RESULTS}/tables/openings_summary.csv",
        summary_md=f"{RESULTS}/tables/openings_summary.md",
        styles=f"{RESULTS}/tables/openings_styles.csv",
        styles_md=f"{RESULTS}/tables/openings_styles.md",
    log:
        f"{RESULTS}/logs/analyse/openings_table.log",
    conda:
        get_conda_env("cpu")
    threads: 1
    params:
        root=results_dir,  # this model's results folder
        cfg=get_analysis_cfg("opening_tokens", "openings_top", *BOOTSTRAP_KEYS),
        tokenizer=get_openings_tokenizer_arg,
        code=get_code("openings-table"),
    shell:
        "python -m rlvr_support openings-table --samples {input.samples} --samples-root {params.root}/samples {params.tokenizer} "
        "--cfg {params.cfg:q} --out {output.table} --out-summary {output.summary} --out-styles {output.styles} "
        "> {log} 2>&1"


rule figure_openings:
    input:
        f"{RESULTS}/tables/openings.csv",
    output:
        png=report(
            f"{RESULTS}/figures/openings_{{eval_set}}.png",
            caption="../report/openings_scatter.rst",
            category="4. divergence and openings",
            labels={"figure": "openings", "eval set": "{eval_set}"},
        ),
        pdf=f"{RESULTS}/figures/openings_{{eval_set}}.pdf",
    log:
        f"{RESULTS}/logs/figures/openings_{{eval_set}}.log",
    conda:
        get_conda_env("cpu")
    threads: 1
    params:
        code=get_code("figure-openings"),
    shell:
        "python -m rlvr_support figure-openings --table {input} --eval-set {wildcards.eval_set} --out {output.png} > {log} 2>&1"


rule opening_intervention:
    input:
        models=get_checkpoint_manifests,
        samples=get_intervention_samples,
        prompts=f"{DATA}/prompts/{{eval_set}}.jsonl",
    output:
        f"{RESULTS}/analysis/intervention/{{eval_set}}.parquet",
    log:
        f"{RESULTS}/logs/analyse/intervention/{{eval_set}}.log",
    benchmark:
        f"{RESULTS}/benchmarks/analyse/intervention/{{eval_set}}.tsv"
    conda:
        get_conda_env("analyse")
    threads: get_threads("analyse")
    resources:
        gpu=get_gpus("analyse"),
        nodes=get_resource("analyse", "nodes"),
        tasks=get_resource("analyse", "tasks"),
        tasks_per_gpu=0,  # else the SLURM plugin turns `tasks` into --ntasks-per-gpu
        cpus_per_task=get_resource("analyse", "cpus_per_task"),
        mem_mb=get_mem_mb("analyse"),
        runtime=get_runtime("analyse"),
    params:
        models=get_intervention_labels("models"),
        samples=get_intervention_labels("samples"),
        cfg=get_analysis_part("intervention", "opening_tokens", "seed"),
        sampling=get_generation_cfg(),
        scoring=get_scoring_cfg(),
        gpus=get_gpus_per_node("analyse"),
        dtype=get_analyse_dtype(),
        verifiers=get_eval_verifiers,
        code=get_eval_code("opening-intervention"),
        numerics=get_numerics(),
    shell:
        "python -m rlvr_support opening-intervention --models {params.models} --samples {params.samples} --prompts {input.prompts} "
        "--cfg {params.cfg:q} --sampling {params.sampling:q} --scoring {params.scoring:q} --out {output} "
        "--threads {threads} --gpus {params.gpus} --dtype {params.dtype} --verifiers {params.verifiers} > {log} 2>&1"


rule intervention_table:
    input:
        run=f"{RESULTS}/analysis/intervention/{{eval_set}}.parquet",
        samples=get_intervention_samples,
        scores=get_intervention_scores,
    output:
        table=report(
            f"{RESULTS}/tables/intervention_{{eval_set}}.csv",
            caption="../report/intervention_table.rst",
            category="4. divergence and openings",
            labels={"table": "intervention", "eval set": "{eval_set}"},
        ),
        md=f"{RESULTS}/tables/intervention_{{eval_set}}.md",
        decomposition=report(
            f"{RESULTS}/tables/intervention_decomposition_{{eval_set}}.csv",
            caption="../report/intervention_decomposition.rst",
            category="4. divergence and openings",
            labels={"table": "decomposition", "eval set": "{eval_set}"},
        ),
        decomposition_md=f"{RESULTS}/tables/intervention_decomposition_{{eval_set}}.md",
    log:
        f"{RESULTS}/logs/analyse/intervention_table_{{eval_set}}.log",
    conda:
        get_conda_env("cpu")
    threads: 1
    params:
        samples=get_intervention_labels("samples"),
        scores=get_intervention_labels("scores"),
        cfg=get_analysis_cfg("opening_tokens", *BOOTSTRAP_KEYS),
        code=get_code("intervention-table"),
    shell:
        "python -m rlvr_support intervention-table --run {input.run} --samples {params.samples} --scores {params.scores} "
        "--cfg {params.cfg:q} --out {output.table} --out-decomposition {output.decomposition} > {log} 2>&1"


rule figure_intervention:
    input:
        f"{RESULTS}/tables/intervention_{{eval_set}}.csv",
    output:
        png=report(
            f"{RESULTS}/figures/intervention_{{eval_set}}.png",
            caption="../report/intervention_bars.rst",
            category="4. divergence and openings",
            labels={"figure": "forced openings", "eval set": "{eval_set}"},
        ),
        pdf=f"{RESULTS}/figures/intervention_{{eval_set}}.pdf",
    log:
        f"{RESULTS}/logs/figures/intervention_{{eval_set}}.log",
    conda:
        get_conda_env("cpu")
    threads: 1
    params:
        code=get_code("figure-intervention"),
    shell:
        "python -m rlvr_support figure-intervention --table {input} --eval-set {wildcards.eval_set} --out {output.png} > {log} 2>&1"


# ---------------------------------------------------------------- reference perplexity (Invisible Leash)
rule perplexity:
    # every checkpoint in one job: the work per checkpoint is a second, a process start several
    input:
        models=get_checkpoint_manifests,
        prompts=f"{DATA}/prompts/math.jsonl",
    output:
        get_perplexity_runs(),
    log:
        f"{RESULTS}/logs/analyse/perplexity.log",
    benchmark:
        f"{RESULTS}/benchmarks/analyse/perplexity.tsv"
    conda:
        get_conda_env("analyse")
    threads: get_threads("analyse")
    resources:
        gpu=get_gpus("analyse"),
        nodes=get_resource("analyse", "nodes"),
        tasks=get_resource("analyse", "tasks"),
        tasks_per_gpu=0,  # else the SLURM plugin turns `tasks` into --ntasks-per-gpu
        cpus_per_task=get_resource("analyse", "cpus_per_task"),
        mem_mb=get_mem_mb("analyse"),
        runtime=get_runtime("analyse"),
    params:
        cfg=get_analysis_part("perplexity", "seed"),
        gpus=get_gpus_per_node("analyse"),
        dtype=get_analyse_dtype(),
        code=get_code("perplexity"),
        numerics=get_numerics(),
    shell:
        "python -m rlvr_support perplexity --model {input.models} --prompts {input.prompts} --cfg {params.cfg:q} --out {output} "
        "--threads {threads} --gpus {params.gpus} --dtype {params.dtype} > {log} 2>&1"


rule perplexity_table:
    input:
        get_perplexity_runs,
    output:
        table=report(
            f"{RESULTS}/tables/perplexity.csv", caption="../report/perplexity_table.rst", category="3. entropy"
        ),
        md=f"{RESULTS}/tables/perplexity.md",
    log:
        f"{RESULTS}/logs/analyse/perplexity_table.log",
    conda:
        get_conda_env("cpu")
    threads: 1
    params:
        root=results_dir,  # this model's results folder
        cfg=get_analysis_cfg(*BOOTSTRAP_KEYS),
        code=get_code("perplexity-table"),
    shell:
        "python -m rlvr_support perplexity-table --runs {input} --runs-root {params.root}/analysis/perplexity --cfg {params.cfg:q} "
        "--out {output.table} > {log} 2>&1"


rule figure_perplexity:
    input:
        f"{RESULTS}/tables/perplexity.csv",
    output:
        png=report(
            f"{RESULTS}/figures/perplexity.png",
            caption="../report/perplexity_bars.rst",
            category="3. entropy",
            labels={"figure": "reference perplexity"},
        ),
        pdf=f"{RESULTS}/figures/perplexity.pdf",
    log:
        f"{RESULTS}/logs/figures/perplexity.log",
    conda:
        get_conda_env("cpu")
    threads: 1
    params:
        code=get_code("figure-perplexity"),
    shell:
        "python -m rlvr_support figure-perplexity --table {input} --out {output.png} > {log} 2>&1"


# ---------------------------------------------------------------- claims of the three papers
rule claims_table:
    input:
        unpack(get_claims_inputs),
    output:
        table=report(f"{RESULTS}/tables/claims.csv", caption="../report/claims.rst", category="0. claims"),
        md=f"{RESULTS}/tables/claims.md",
        seeds=report(
            f"{RESULTS}/tables/seed_stability.csv", caption="../report/seed_stability.rst", category="0. claims"
        ),
        seeds_md=f"{RESULTS}/tables/seed_stability.md",
    log:
        f"{RESULTS}/logs/analyse/claims.log",
    conda:
        get_conda_env("cpu")
    threads: 1
    params:
        root=results_dir,  # this model's results folder
        optional=get_claims_args,
        cfg=get_claims_cfg(),
        code=get_code("claims"),
    shell:
        "python -m rlvr_support claims --scores {input.scores} --scores-root {params.root}/scores --passk-source {input.passk} "
        "--support-per-prompt {input.support_per_prompt} --support-source {input.support} "
        "--entropy {input.entropy} --opening-modes {input.modes} --openings-source {input.modes} "
        "--trainability-source {input.trainability} {params.optional} "
        "--cfg {params.cfg:q} --out {output.table} --out-seed-stability {output.seeds} > {log} 2>&1"
