# Support analyses (seeds 000 and 003): empirical support categories, entropies, position-wise
# JS divergence, openings, the opening intervention, reference perplexity and the claims table.
# Model-based jobs (positional_js, opening_intervention, perplexity) run on a subsample set in
# config["analysis"], on the GPUs, dtype and memory of `resources.analyse`; everything else reads
# samples and scores only.
include: "common_support.smk"


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
        **job_resources("analyse"),
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
        **job_resources("analyse"),
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
        **job_resources("analyse"),
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
        tables=get_claims_tables,
        cfg=get_claims_cfg(),
        code=get_code("claims"),
    shell:
        "python -m rlvr_support claims --scores {input.scores} --scores-root {params.root}/scores "
        "--tables {params.tables} --cfg {params.cfg:q} --out {output.table} --out-seed-stability {output.seeds} > {log} 2>&1"
