"""CLI verbs of the support analyses (seeds 000, 003): support categories, entropies, positional
JS divergence, openings, the opening intervention, reference perplexity and the claims table.

Registered into `python -m rlvr_support` by cli.build_parser (one verb per rule of
workflow/rules/support.smk).  Tables are written as CSV with a Markdown twin beside them.
"""

from __future__ import annotations

from pathlib import Path

from rlvr_support.cli.args import add_device_args, json_arg as _json
from rlvr_support.models.devices import require_gpus



def _pairs(items: list[str], what: str) -> dict[str, str]:
    out = {}
    for it in items:
        if "=" not in it:
            raise ValueError(f"--{what}: expected label=path, got {it!r}")
        k, v = it.split("=", 1)
        out[k] = v
    return out


def _write_table(df, out: str, digits: int = 4) -> None:
    from rlvr_support.analysis.markdown import df_to_markdown
    from rlvr_support.storage.atomic import write_text

    write_text(out, df.to_csv(index=False, float_format="%.6f"))
    write_text(Path(out).with_suffix(".md"), df_to_markdown(df, digits))


def cmd_support_table(a):
    from rlvr_support.analysis.runs import parse_files
    from rlvr_support.analysis.support_table import support_tables

    c = a.cfg
    summary, per_prompt = support_tables(parse_files(a.scores, a.scores_root), delta=c["support_delta"],
                                         n_boot=c["bootstrap"], ci=c["ci"], seed=c["seed"])
    _write_table(summary, a.out)
    from rlvr_support.storage.atomic import write_text

    write_text(a.out_per_prompt, per_prompt.to_csv(index=False))
    print(summary[["chain", "eval_set", "benchmark", "relation", "P", "S", "E", "O", "SRR", "NDR", "NSCR"]].to_string())


def cmd_figure_support(a):
    import pandas as pd

    from rlvr_support.figures.support_bars import plot_support_bars

    plot_support_bars(pd.read_csv(a.table), a.eval_set, a.out)


def cmd_entropy_table(a):
    from rlvr_support.analysis.entropy_table import entropy_markdown, entropy_table
    from rlvr_support.analysis.runs import parse_files
    from rlvr_support.storage.atomic import write_text

    c = a.cfg
    t = entropy_table(parse_files(a.samples, a.samples_root), parse_files(a.scores, a.scores_root),
                      n_boot=c["bootstrap"], ci=c["ci"], seed=c["seed"])
    write_text(a.out, t.to_csv(index=False, float_format="%.6f"))
    md = entropy_markdown(t)
    write_text(Path(a.out).with_suffix(".md"), md)
    print(t[["chain", "eval_set", "benchmark", "metric", "mean", "diff", "diff_lo", "diff_hi"]].to_string())
    print(md.rstrip().splitlines()[-1])


def cmd_figure_entropy(a):
    import pandas as pd

    from rlvr_support.figures.entropy_bars import plot_entropy

    plot_entropy(pd.read_csv(a.table), a.out)


def cmd_positional_js(a):
    from rlvr_support.analysis.positional_js import positional_js_runs
    from rlvr_support.storage.atomic import write_parquet

    # one job per checkpoint covers all its eval sets: one process start and model load, not one per eval set
    lists = (a.base_samples, a.samples, a.prompts, a.out)
    if len({len(x) for x in lists}) != 1:
        raise ValueError("positional-js: give as many --base-samples, --samples, --prompts and --out as eval sets")
    require_gpus(a.gpus)
    frames = positional_js_runs(a.base_model, a.model, list(zip(a.base_samples, a.samples, a.prompts)),
                                a.cfg["divergence"], seed=a.cfg["seed"], threads=a.threads, gpus=a.gpus,
                                dtype=a.dtype)
    for out, df in zip(a.out, frames):
        write_parquet(out, df)
        print(out)
        print(df.groupby(["source", "position"])["js"].mean().unstack("source").head(12).to_string())


def cmd_js_table(a):
    from rlvr_support.analysis.positional_js import js_tables
    from rlvr_support.analysis.runs import parse_files
    from rlvr_support.storage.atomic import write_text

    c = a.cfg
    pos, share = js_tables(parse_files(a.runs, a.runs_root), m=c["opening_tokens"], n_boot=c["bootstrap"],
                           ci=c["ci"], seed=c["seed"])
    write_text(a.out_positions, pos.to_csv(index=False, float_format="%.6f"))
    _write_table(share, a.out)
    print(share[["chain", "eval_set", "benchmark", "source", "share_first_m", "uniform_share",
                 "early_minus_late"]].to_string())


def cmd_figure_js(a):
    import pandas as pd

    from rlvr_support.figures.js_curves import plot_js_curves

    plot_js_curves(pd.read_csv(a.table), a.eval_set, a.m, a.out)


def cmd_openings_table(a):
    from rlvr_support.analysis.openings_table import openings_tables
    from rlvr_support.analysis.runs import parse_files
    from rlvr_support.storage.atomic import write_text

    tok = None
    if a.tokenizer:
        from rlvr_support.models.loading import checkpoint_dir, load_tokenizer

        tok = load_tokenizer(checkpoint_dir(a.tokenizer))
    c = a.cfg
    shift, summary, styles = openings_tables(parse_files(a.samples, a.samples_root), m=c["opening_tokens"],
                                             top=c["openings_top"], n_boot=c["bootstrap"], ci=c["ci"],
                                             seed=c["seed"], tokenizer=tok)
    _write_table(shift, a.out)
    _write_table(summary, a.out_summary)
    write_text(a.out_styles, styles.to_csv(index=False, float_format="%.6f"))
    print(summary.to_string())


def cmd_figure_openings(a):
    import pandas as pd

    from rlvr_support.figures.openings_scatter import plot_openings_scatter

    plot_openings_scatter(pd.read_csv(a.table), a.eval_set, a.out)


def cmd_opening_intervention(a):
    from rlvr_support.analysis.opening_intervention import intervention_run
    from rlvr_support.storage.atomic import write_parquet

    require_gpus(a.gpus)
    df = intervention_run(_pairs(a.models, "models"), _pairs(a.samples, "samples"), a.prompts,
                          m=a.cfg["opening_tokens"], cfg=a.cfg["intervention"], sampling=a.sampling,
                          scoring=a.scoring, seed=a.cfg["seed"], threads=a.threads, dtype=a.dtype)
    write_parquet(a.out, df)


def cmd_intervention_table(a):
    from rlvr_support.analysis.opening_intervention import intervention_tables
    from rlvr_support.storage.atomic import read_parquet

    c = a.cfg
    per_opening, dec = intervention_tables(read_parquet(a.run), _pairs(a.samples, "samples"), _pairs(a.scores, "scores"),
                                           m=c["opening_tokens"], n_boot=c["bootstrap"], ci=c["ci"], seed=c["seed"])
    _write_table(per_opening, a.out)
    _write_table(dec, a.out_decomposition)
    print(dec.to_string())


def cmd_figure_intervention(a):
    import pandas as pd

    from rlvr_support.figures.intervention_bars import plot_intervention

    plot_intervention(pd.read_csv(a.table, dtype={"opening": str, "opening_text": str}), a.eval_set, a.out)


def cmd_perplexity(a):
    from rlvr_support.analysis.perplexity import perplexity_run
    from rlvr_support.storage.atomic import write_parquet

    require_gpus(a.gpus)
    c = a.cfg["perplexity"]
    if len(a.model) != len(a.out):
        raise ValueError(f"perplexity: {len(a.model)} --model but {len(a.out)} --out (one output per model)")
    for model, out in zip(a.model, a.out):  # every checkpoint in one process
        df = perplexity_run(model, a.prompts, count=c["prompts"], seed=a.cfg["seed"], batch=c["batch"],
                            threads=a.threads, gpus=a.gpus, dtype=a.dtype)
        write_parquet(out, df)
        print(out)
        print(df.groupby("style")[["nll", "n_tokens"]].sum().to_string())


def cmd_perplexity_table(a):
    from rlvr_support.analysis.perplexity import perplexity_table
    from rlvr_support.analysis.runs import parse_files
    from rlvr_support.storage.atomic import read_parquet

    c = a.cfg
    files = parse_files(a.runs, a.runs_root)
    eval_sets = {f.eval_set for f in files}
    if len(eval_sets) != 1:
        raise ValueError(f"perplexity-table: runs of one eval set expected, got {sorted(eval_sets)}")
    runs = {f.checkpoint: read_parquet(f.path) for f in files}
    t = perplexity_table(runs, n_boot=c["bootstrap"], ci=c["ci"], seed=c["seed"], eval_set=eval_sets.pop())
    _write_table(t, a.out)
    print(t.to_string())


def cmd_figure_perplexity(a):
    import pandas as pd

    from rlvr_support.figures.perplexity_bars import plot_perplexity

    plot_perplexity(pd.read_csv(a.table), a.out)


def cmd_claims(a):
    import pandas as pd

    from rlvr_support.analysis.claims import (claims_markdown, claims_table, seed_stability_markdown,
                                              seed_stability_table)
    from rlvr_support.analysis.runs import parse_files
    from rlvr_support.storage.atomic import write_text

    def opt(p):
        return pd.read_csv(p) if p else None

    dec = {k: pd.read_csv(v) for k, v in _pairs(a.decomposition or [], "decomposition").items()}
    sources = {"passk": a.passk_source, "support": a.support_source, "entropy": a.entropy, "js": a.js_share,
               "openings": a.openings_source, "perplexity": a.perplexity, "association": a.association,
               "intervention": _pairs(a.decomposition or [], "decomposition"), "trainability": a.trainability_source,
               "reasoning_if": a.reasoning_if or "", "single_token": a.single_token or ""}
    c = a.cfg
    scores, support, modes = parse_files(a.scores, a.scores_root), opt(a.support_per_prompt), opt(a.opening_modes)
    opts = dict(sources=sources, m=c["opening_tokens"], n_boot=c["bootstrap"], ci=c["ci"], seed=c["seed"],
                group_size=c.get("group_size"))
    t = claims_table(scores, support_per_prompt=support, entropy=opt(a.entropy), js_share=opt(a.js_share),
                     modes=modes, perplexity=opt(a.perplexity), association=opt(a.association),
                     reasoning_if=opt(a.reasoning_if), single_token=opt(a.single_token),
                     decomposition=dec, **opts)
    write_text(a.out, t.to_csv(index=False, float_format="%.6f"))
    md = claims_markdown(t)
    write_text(Path(a.out).with_suffix(".md"), md)
    print(md)
    if a.out_seed_stability:
        st = seed_stability_table(scores, t, support_per_prompt=support, modes=modes, **opts)
        write_text(a.out_seed_stability, st.to_csv(index=False, float_format="%.6f"))
        write_text(Path(a.out_seed_stability).with_suffix(".md"), seed_stability_markdown(st))


def register(verb) -> None:
    """Add the verbs; ``verb(name, fn, help)`` returns an argparse sub-parser."""
    cfg_help = "the config's `analysis` section as JSON"

    s = verb("support-table", cmd_support_table,
             "Empirical support categories (P/S/E/O, SRR, NDR, SDS, NSCR) of every checkpoint vs the base.")
    s.add_argument("--scores", nargs="+", required=True)
    s.add_argument("--scores-root", required=True)
    s.add_argument("--cfg", type=_json, required=True, help=cfg_help)
    s.add_argument("--out", required=True, help="summary CSV (a .md is written beside it)")
    s.add_argument("--out-per-prompt", required=True, help="CSV of the category of every prompt")

    s = verb("figure-support", cmd_figure_support, "Stacked bars of support categories for one eval set.")
    s.add_argument("--table", required=True)
    s.add_argument("--eval-set", required=True)
    s.add_argument("--out", required=True, help="<name>.png; the PDF is written beside it")

    s = verb("entropy-table", cmd_entropy_table, "Answer-level / token-level entropy and length per checkpoint.")
    s.add_argument("--samples", nargs="+", required=True)
    s.add_argument("--samples-root", required=True)
    s.add_argument("--scores", nargs="+", required=True)
    s.add_argument("--scores-root", required=True)
    s.add_argument("--cfg", type=_json, required=True, help=cfg_help)
    s.add_argument("--out", required=True)

    s = verb("figure-entropy", cmd_figure_entropy, "Entropy bars per checkpoint and eval set.")
    s.add_argument("--table", required=True)
    s.add_argument("--out", required=True)

    s = verb("positional-js", cmd_positional_js,
             "Teacher-forced JS divergence base vs checkpoint by response position (base and checkpoint prefixes).")
    s.add_argument("--base-model", required=True, help="the base checkpoint manifest")
    s.add_argument("--model", required=True, help="the checkpoint manifest")
    s.add_argument("--base-samples", nargs="+", required=True, help="the base's samples, one file per eval set")
    s.add_argument("--samples", nargs="+", required=True, help="the checkpoint's samples of the same eval sets")
    s.add_argument("--prompts", nargs="+", required=True, help="the prompts of the same eval sets")
    s.add_argument("--cfg", type=_json, required=True, help=cfg_help)
    s.add_argument("--out", nargs="+", required=True,
                   help="Parquet per eval set: source, prompt_id, sample_idx, position, js")
    s.add_argument("--threads", type=int, default=1)
    add_device_args(s)

    s = verb("js-table", cmd_js_table, "JS curves with CIs and the share of divergence in the first m tokens.")
    s.add_argument("--runs", nargs="+", required=True)
    s.add_argument("--runs-root", required=True)
    s.add_argument("--cfg", type=_json, required=True, help=cfg_help)
    s.add_argument("--out-positions", required=True, help="CSV of the curves")
    s.add_argument("--out", required=True, help="CSV of the share table (a .md beside it)")

    s = verb("figure-js", cmd_figure_js, "JS divergence against response position for one eval set.")
    s.add_argument("--table", required=True)
    s.add_argument("--eval-set", required=True)
    s.add_argument("--m", type=int, required=True)
    s.add_argument("--out", required=True)

    s = verb("openings-table", cmd_openings_table, "Opening distributions, rank shifts and styles per checkpoint.")
    s.add_argument("--samples", nargs="+", required=True)
    s.add_argument("--samples-root", required=True)
    s.add_argument("--tokenizer", help="a checkpoint manifest whose tokenizer decodes the openings")
    s.add_argument("--cfg", type=_json, required=True, help=cfg_help)
    s.add_argument("--out", required=True, help="rank-shift CSV")
    s.add_argument("--out-summary", required=True, help="per-chain summary CSV")
    s.add_argument("--out-styles", required=True, help="style-share CSV")

    s = verb("figure-openings", cmd_figure_openings, "Opening probability under base vs checkpoint (scatter).")
    s.add_argument("--table", required=True)
    s.add_argument("--eval-set", required=True)
    s.add_argument("--out", required=True)

    s = verb("opening-intervention", cmd_opening_intervention,
             "Force the most frequent openings and sample continuations from every model, scored.")
    s.add_argument("--models", nargs="+", required=True, help="label=manifest pairs, label 'base' or chain/seedK")
    s.add_argument("--samples", nargs="+", required=True, help="label=samples.parquet pairs (same labels)")
    s.add_argument("--prompts", required=True)
    s.add_argument("--cfg", type=_json, required=True, help=cfg_help)
    s.add_argument("--sampling", type=_json, required=True, help="the config's `sampling` section as JSON")
    s.add_argument("--scoring", type=_json, required=True, help="the config's `scoring` section as JSON")
    s.add_argument("--out", required=True)
    s.add_argument("--threads", type=int, default=1)
    add_device_args(s)

    s = verb("intervention-table", cmd_intervention_table,
             "Success per forced opening and the decomposition sum_o P(o) success(o) per model.")
    s.add_argument("--run", required=True)
    s.add_argument("--samples", nargs="+", required=True, help="label=samples.parquet pairs")
    s.add_argument("--scores", nargs="+", required=True, help="label=scores.parquet pairs")
    s.add_argument("--cfg", type=_json, required=True, help=cfg_help)
    s.add_argument("--out", required=True)
    s.add_argument("--out-decomposition", required=True)

    s = verb("figure-intervention", cmd_figure_intervention, "Success per forced opening per model.")
    s.add_argument("--table", required=True)
    s.add_argument("--eval-set", required=True)
    s.add_argument("--out", required=True)

    s = verb("perplexity", cmd_perplexity, "NLL of the reference math solutions (every style) under each checkpoint.")
    s.add_argument("--model", nargs="+", required=True, help="checkpoint manifests")
    s.add_argument("--prompts", required=True, help="the math prompt JSONL")
    s.add_argument("--cfg", type=_json, required=True, help=cfg_help)
    s.add_argument("--out", nargs="+", required=True, help="one Parquet per --model, in the same order")
    s.add_argument("--threads", type=int, default=1)
    add_device_args(s)

    s = verb("perplexity-table", cmd_perplexity_table, "Perplexity of reference solutions per chain and style.")
    s.add_argument("--runs", nargs="+", required=True)
    s.add_argument("--runs-root", required=True)
    s.add_argument("--cfg", type=_json, required=True, help=cfg_help)
    s.add_argument("--out", required=True)

    s = verb("figure-perplexity", cmd_figure_perplexity, "Perplexity bars per style and chain.")
    s.add_argument("--table", required=True)
    s.add_argument("--out", required=True)

    s = verb("claims", cmd_claims, "One row per claim of the papers: effect, CI, verdict, source file.")
    s.add_argument("--scores", nargs="+", required=True)
    s.add_argument("--scores-root", required=True)
    s.add_argument("--passk-source", required=True, help="the pass@k table the pass@k claims refer to")
    s.add_argument("--support-per-prompt")
    s.add_argument("--support-source", default="", help="the support table the support claims refer to")
    s.add_argument("--entropy")
    s.add_argument("--js-share")
    s.add_argument("--opening-modes", help="opening_modes.csv: the DAI share the opening claims read")
    s.add_argument("--openings-source", default="")
    s.add_argument("--perplexity")
    s.add_argument("--decomposition", nargs="*", help="eval_set=intervention decomposition CSV pairs")
    s.add_argument("--association", help="the checkpoint-level association table (trajectories)")
    s.add_argument("--reasoning-if", help="reasoning_if.csv: the bypass claim reads its bypass_diff")
    s.add_argument("--single-token", help="single_token.csv: the single-token claims read its best@k changes")
    s.add_argument("--trainability-source", default="",
                   help="the trainability table the mixed-group claim refers to (the claim is computed from --scores "
                        "at the cfg's group_size)")
    s.add_argument("--cfg", type=_json, required=True, help=cfg_help)
    s.add_argument("--out", required=True)
    s.add_argument("--out-seed-stability", help="CSV of each claim's verdict per RL seed and pooled (.md beside it)")
