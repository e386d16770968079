"""`python -m rlvr_support positional-js`: teacher-forced JS divergence base vs checkpoint by response
position (base and checkpoint prefixes).

Run by `positional_js` (workflow/rules/support.smk); registered by cli/main.py.
"""

from __future__ import annotations

from rlvr_support.cli.args import add_device_args, json_arg as _json
from rlvr_support.models.devices import require_gpus

CFG_HELP = "the config's `analysis` section as JSON"


def cmd_positional_js(a):
    from rlvr_support.probes.positional_js import positional_js_runs
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


def register(verb) -> None:
    s = verb("positional-js", cmd_positional_js,
             "Teacher-forced JS divergence base vs checkpoint by response position (base and checkpoint prefixes).")
    s.add_argument("--base-model", required=True, help="the base checkpoint manifest")
    s.add_argument("--model", required=True, help="the checkpoint manifest")
    s.add_argument("--base-samples", nargs="+", required=True, help="the base's samples, one file per eval set")
    s.add_argument("--samples", nargs="+", required=True, help="the checkpoint's samples of the same eval sets")
    s.add_argument("--prompts", nargs="+", required=True, help="the prompts of the same eval sets")
    s.add_argument("--cfg", type=_json, required=True, help=CFG_HELP)
    s.add_argument("--out", nargs="+", required=True,
                   help="Parquet per eval set: source, prompt_id, sample_idx, position, js")
    s.add_argument("--threads", type=int, default=1)
    add_device_args(s)
