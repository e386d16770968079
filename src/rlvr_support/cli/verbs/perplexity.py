"""`python -m rlvr_support perplexity`: nLL of the reference math solutions (every style) under each
checkpoint.

Run by `perplexity` (workflow/rules/support.smk); registered by cli/main.py.
"""

from __future__ import annotations

from rlvr_support.cli.args import add_device_args, json_arg as _json
from rlvr_support.models.devices import require_gpus

CFG_HELP = "the config's `analysis` section as JSON"


def cmd_perplexity(a):
    from rlvr_support.probes.perplexity import perplexity_run
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


def register(verb) -> None:
    s = verb("perplexity", cmd_perplexity, "NLL of the reference math solutions (every style) under each checkpoint.")
    s.add_argument("--model", nargs="+", required=True, help="checkpoint manifests")
    s.add_argument("--prompts", required=True, help="the math prompt JSONL")
    s.add_argument("--cfg", type=_json, required=True, help=CFG_HELP)
    s.add_argument("--out", nargs="+", required=True, help="one Parquet per --model, in the same order")
    s.add_argument("--threads", type=int, default=1)
    add_device_args(s)
