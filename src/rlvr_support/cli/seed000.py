"""CLI verbs of seed 000's support-reshaping measurements: future trainability (mixed GRPO groups),
polarisation of per-prompt success, opening modes (DRI / DAI) and the route-entry JS ratio.

Registered into `python -m rlvr_support` by cli.build_parser (one verb per rule of
workflow/rules/seed000.smk).  Tables are written as CSV with a Markdown twin beside them
(cli.support._write_table), each with its provenance sidecar.
"""

from __future__ import annotations

from pathlib import Path

from rlvr_support.cli.args import add_device_args, json_arg as _json
from rlvr_support.cli.support import _write_table


def cmd_trainability_table(a):
    from rlvr_support.analysis.runs import parse_files
    from rlvr_support.analysis.trainability import trainability_table

    c = a.cfg
    t = trainability_table(parse_files(a.scores, a.scores_root), rl_group_size=c["group_size"],
                           extra_group_sizes=c["trainability"]["group_sizes"], n_boot=c["bootstrap"], ci=c["ci"],
                           seed=c["seed"])
    _write_table(t, a.out)
    print(t[["chain", "eval_set", "benchmark", "G", "all_fail", "all_success", "mixed", "mixed_diff"]].to_string())
    if a.out_observed:
        import pandas as pd

        from rlvr_support.analysis.trainability import observed_zero_variance

        curves = []
        for spec in a.curves or []:
            label, _, path = spec.partition("=")
            chain, _, seed = label.rpartition("/seed")
            curves.append((chain, int(seed), pd.read_csv(path)))
        obs = observed_zero_variance(t, curves, c["group_size"])
        _write_table(obs, a.out_observed)
        print(obs.to_string())


def cmd_reasoning_if_table(a):
    from rlvr_support.analysis.reasoning_if import reasoning_if_table
    from rlvr_support.analysis.runs import parse_files
    from rlvr_support.storage.atomic import read_jsonl

    c = a.cfg
    prompts = {str(r["id"]): r for p in a.prompts for r in read_jsonl(p)}
    t = reasoning_if_table(parse_files(a.samples, a.samples_root), prompts, rules=c["reasoning_if"],
                           n_boot=c["bootstrap"], ci=c["ci"], seed=c["seed"])
    _write_table(t, a.out)
    print(t[["chain", "eval_set", "benchmark", "reasoning_rate", "HAcc_whole", "HAcc_answer", "HAcc_reasoning",
             "bypass"]].to_string())


def cmd_polarisation_table(a):
    from rlvr_support.analysis.polarisation import polarisation_tables
    from rlvr_support.analysis.runs import parse_files

    c = a.cfg
    summary, transitions, hist = polarisation_tables(parse_files(a.scores, a.scores_root), n_boot=c["bootstrap"],
                                                     ci=c["ci"], seed=c["seed"])
    _write_table(summary, a.out)
    _write_table(transitions, a.out_transitions)
    _write_table(hist, a.out_histogram)
    print(summary[["chain", "eval_set", "benchmark", "n", "delta_zero", "delta_all", "to_zero", "to_all"]].to_string())


def cmd_figure_polarisation(a):
    import pandas as pd

    from rlvr_support.figures.polarisation_hist import plot_polarisation

    plot_polarisation(pd.read_csv(a.table), a.eval_set, a.out)


def cmd_opening_modes_table(a):
    from rlvr_support.analysis.opening_modes import opening_modes_table
    from rlvr_support.analysis.runs import parse_files

    c = a.cfg
    t = opening_modes_table(parse_files(a.samples, a.samples_root), patterns=c["opening_modes"],
                            n_boot=c["bootstrap"], ci=c["ci"], seed=c["seed"])
    _write_table(t, a.out)
    print(t[t["seed"] == "all"][["chain", "eval_set", "benchmark", "mode", "share", "diff"]].to_string())


def cmd_route_entry_table(a):
    from rlvr_support.analysis.route_entry import route_entry_table
    from rlvr_support.analysis.runs import parse_files

    c = a.cfg
    t = route_entry_table(parse_files(a.runs, a.runs_root), n_boot=c["bootstrap"], ci=c["ci"], seed=c["seed"])
    _write_table(t, a.out)
    print(t[["chain", "eval_set", "benchmark", "source", "js_first", "js_interior", "ratio", "ratio_lo",
             "ratio_hi"]].to_string())


def cmd_single_token(a):
    from rlvr_support.analysis.single_token import single_token_run
    from rlvr_support.models.devices import require_gpus
    from rlvr_support.storage.atomic import write_parquet

    require_gpus(a.gpus)
    df = single_token_run(a.model, a.base, a.prompts, cfg=a.cfg["single_token"], sampling=a.sampling,
                          scoring=a.scoring, threads=a.threads, dtype=a.dtype)
    write_parquet(a.out, df)


def cmd_single_token_table(a):
    from rlvr_support.analysis.single_token import single_token_summary, single_token_table
    from rlvr_support.analysis.markdown import df_to_markdown
    from rlvr_support.storage.atomic import read_parquet, write_text

    c = a.cfg
    runs = {}
    for spec in a.runs:
        label, _, path = spec.partition("=")
        runs.setdefault(label, []).append(read_parquet(path))
    import pandas as pd

    t = single_token_table({k: pd.concat(v, ignore_index=True) for k, v in runs.items()},
                           patterns=c["opening_modes"], n_boot=c["bootstrap"], ci=c["ci"], seed=c["seed"])
    write_text(a.out, t.to_csv(index=False, float_format="%.6f"))
    write_text(Path(a.out).with_suffix(".md"), df_to_markdown(single_token_summary(t), 3))
    print(single_token_summary(t).to_string())


def cmd_figure_single_token(a):
    import pandas as pd

    from rlvr_support.figures.single_token_sweep import plot_single_token

    plot_single_token(pd.read_csv(a.table), a.eval_set, a.out)


def _figure_verb(verb, name: str, fn, help: str, table: str) -> None:
    """A figure verb: one table in, one eval set's PNG (and PDF) out."""
    s = verb(name, fn, help)
    s.add_argument("--table", required=True, help=table)
    s.add_argument("--eval-set", required=True)
    s.add_argument("--out", required=True, help="<name>.png; the PDF is written beside it")


def register(verb) -> None:
    """Add the verbs; ``verb(name, fn, help)`` returns an argparse sub-parser."""
    cfg_help = "the config's `analysis` keys the verb reads, as JSON"

    s = verb("trainability-table", cmd_trainability_table,
             "Share of prompts whose G-rollout GRPO group would be all-fail / all-success / mixed, per checkpoint "
             "and G (hypergeometric, from each prompt's n samples).")
    s.add_argument("--scores", nargs="+", required=True)
    s.add_argument("--scores-root", required=True)
    s.add_argument("--cfg", type=_json, required=True,
                   help='JSON: {"group_size": rl.group_size, "trainability": {"group_sizes": [...]}, bootstrap, ci, seed}')
    s.add_argument("--out", required=True, help="CSV (a .md is written beside it)")
    s.add_argument("--curves", nargs="*", metavar="CHAIN/seedS=PATH",
                   help="the trained stages' reward_curve.csv (TRL's frac_reward_zero_std per log window)")
    s.add_argument("--out-observed", help="CSV: each stage's observed zero-variance share beside the predicted one")

    s = verb("polarisation-table", cmd_polarisation_table,
             "Prompts moved to 0/n and n/n successes vs the base, bucket transitions and success-count histograms.")
    s.add_argument("--scores", nargs="+", required=True)
    s.add_argument("--scores-root", required=True)
    s.add_argument("--cfg", type=_json, required=True, help=cfg_help)
    s.add_argument("--out", required=True, help="summary CSV (a .md beside it)")
    s.add_argument("--out-transitions", required=True, help="base bucket x checkpoint bucket CSV")
    s.add_argument("--out-histogram", required=True, help="prompts per success count CSV (the figure's data)")

    _figure_verb(verb, "figure-polarisation", cmd_figure_polarisation,
                 "Heat map of per-prompt success counts per checkpoint for one eval set, a facet per benchmark.",
                 "the polarisation histogram CSV")

    s = verb("opening-modes-table", cmd_opening_modes_table,
             "Shares of deliberative-reasoning (DRI), direct-answer (DAI) and other openings per checkpoint.")
    s.add_argument("--samples", nargs="+", required=True)
    s.add_argument("--samples-root", required=True)
    s.add_argument("--cfg", type=_json, required=True,
                   help='JSON: {"opening_modes": {"dri": [regex...], "dai": [regex...]}, bootstrap, ci, seed}')
    s.add_argument("--out", required=True, help="CSV (a .md beside it)")

    s = verb("reasoning-if-table", cmd_reasoning_if_table,
             "Instruction following inside reasoning: constraints on the reasoning and on the answer apart, "
             "MathIF's HAcc / SAcc, and responses that met them by skipping the reasoning.")
    s.add_argument("--samples", nargs="+", required=True, help="samples of the if and joint eval sets")
    s.add_argument("--samples-root", required=True)
    s.add_argument("--prompts", nargs="+", required=True, help="their prompt files (constraints and kwargs)")
    s.add_argument("--cfg", type=_json, required=True,
                   help='JSON: {"reasoning_if": {"answer_markers": [...], "reasoning_prefixes": [...]}, bootstrap, ci, seed}')
    s.add_argument("--out", required=True, help="CSV (a .md beside it)")

    s = verb("route-entry-table", cmd_route_entry_table,
             "JS at the first response position over the mean interior JS, per checkpoint vs base, with CIs.")
    s.add_argument("--runs", nargs="+", required=True, help="positional-JS runs, <root>/<checkpoint>/<eval set>.parquet")
    s.add_argument("--runs-root", required=True)
    s.add_argument("--cfg", type=_json, required=True, help=cfg_help)
    s.add_argument("--out", required=True, help="CSV (a .md beside it)")

    s = verb("single-token", cmd_single_token,
             "Single-token interventions: a token of the base put into a checkpoint's responses and the other way "
             "round, at each swept position, and the recipient's own top-2 first token; scored.")
    s.add_argument("--model", required=True, help="the checkpoint's manifest")
    s.add_argument("--base", required=True, help="the base's manifest (the donor, and the other recipient)")
    s.add_argument("--prompts", required=True, help="the eval set's prompt subset (JSONL)")
    s.add_argument("--cfg", type=_json, required=True,
                   help='JSON: {"single_token": {"n", "positions", "max_new_tokens", ...}}')
    s.add_argument("--sampling", type=_json, required=True, help="backend, temperature, top_p, seed, prompt_batch")
    s.add_argument("--scoring", type=_json, required=True, help="the config's `scoring` section as JSON")
    s.add_argument("--out", required=True, help="Parquet, one row per sample")
    s.add_argument("--threads", type=int, default=1)
    add_device_args(s)

    s = verb("single-token-table", cmd_single_token_table,
             "best@k, pass@1 and opening modes per single-token condition, and their changes against the "
             "recipient's own samples, RL seeds pooled.")
    s.add_argument("--runs", nargs="+", required=True, metavar="LABEL=PATH", help="checkpoint label=run Parquet")
    s.add_argument("--cfg", type=_json, required=True,
                   help='JSON: {"opening_modes": {...}, bootstrap, ci, seed}')
    s.add_argument("--out", required=True, help="CSV (a .md summary beside it)")

    _figure_verb(verb, "figure-single-token", cmd_figure_single_token,
                 "Change in best@k against the position of the swapped token, both directions, per checkpoint.",
                 "tables/single_token.csv")
