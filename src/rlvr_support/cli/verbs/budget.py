"""`python -m rlvr_support budget`: a study's budget before it runs: per rule kind, generated tokens
and scored samples, GPU-hours, disk for samples and checkpoints, and jobs; sequence counts are
exact, lengths and throughputs are the config's `budget` assumptions or, with --measured, measured
on an earlier run.

Run by `budget` (workflow/rules/budget.smk); registered by cli/main.py.
"""

from __future__ import annotations

from pathlib import Path

from rlvr_support.cli.args import json_arg as _json
from rlvr_support.cli.tables import write_csv


def cmd_budget(a):
    from rlvr_support.planning.budget import budget_config, plan, prompt_jobs, report_markdown, rows_frame
    from rlvr_support.lineage.prompt_files import prompt_files, prompt_files_line
    from rlvr_support.storage.atomic import write_text

    if (a.configfile is None) == (a.cfg is None):
        raise ValueError("budget: give exactly one of --configfile (a study config) or --cfg (its budget keys as JSON)")
    if a.configfile:
        from rlvr_support.config.defaults import fill_defaults
        from rlvr_support.config.validate import load_config

        # several files merge as snakemake merges its --configfile list (config/validate.py load_config)
        cfg = budget_config(fill_defaults(load_config(*a.configfile)))
    else:
        cfg = a.cfg
    # only prompt files this config's data made: a tree may hold another study's (the toy world's, after `make run`)
    used, ignored = prompt_files(prompt_jobs(cfg), a.prompts_dir)
    rows, facts = plan(cfg, used, a.measured)
    facts["prompt_files"] = prompt_files_line(used, ignored)
    md = report_markdown(cfg, rows, facts)
    if a.out:
        write_text(a.out, md)
        # the report is the output; its rows beside it keep six significant digits (GPU-hours span decades)
        write_csv(rows_frame(rows), Path(a.out).with_suffix(".csv"), float_format="%.6g")
    print(md)


def register(verb) -> None:
    s = verb("budget", cmd_budget,
             "A study's budget before it runs: per rule kind, generated tokens and scored samples, GPU-hours, "
             "disk for samples and checkpoints, and jobs; sequence counts are exact, lengths and throughputs "
             "are the config's `budget` assumptions or, with --measured, measured on an earlier run.")
    s.add_argument("--configfile", nargs="+", action="extend", metavar="CONFIG",
                   help="the study's config file(s), as for snakemake: several are merged in order, mappings key "
                        "by key and any other value (a list too) replaced (validated, defaults filled in)")
    s.add_argument("--cfg", type=_json, help="instead: the budget keys as JSON (planning/budget.py budget_config)")
    s.add_argument("--prompts-dir", default="results/data/prompts",
                   help="prompt files (<task>.jsonl) to count eval prompts from, where they exist and their "
                        "provenance sidecar records this config's data (world keys); else, and for another "
                        "study's files, the sources' limit/size or the known sizes of public splits "
                        "(default: %(default)s)")
    s.add_argument("--measured", metavar="RESULTS_DIR|PILOT_JSON|CHECK_JSON",
                   help="measurements that replace the assumptions: an earlier run's results/ folder (the base's "
                        "samples suffice): mean response length per benchmark from samples/base/*.parquet, "
                        "tokens/s from its logs and manifests; or a pilot's JSON file (python -m rlvr_support "
                        "pilot, measurements/pilot/pilot.json): its GRPO phase times measure the throughput model's "
                        "utilisations on a GPU kind the planner knows; or the GPU check's (scripts/gpu_check.sh "
                        "--plan, measurements/plan_check.json): its update MFU replaces the assumed one, its decode "
                        "ceiling bounds the decode efficiency, and the report lists its failing terms")
    s.add_argument("--out", help="write the Markdown here (e.g. results/budget.md) and the CSV beside it")
