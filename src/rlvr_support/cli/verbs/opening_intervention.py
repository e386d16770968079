"""`python -m rlvr_support opening-intervention`: force the most frequent openings and sample
continuations from every model, scored.

Run by `opening_intervention` (workflow/rules/support.smk); registered by cli/main.py.
"""

from __future__ import annotations

from rlvr_support.cli.args import add_device_args, json_arg as _json, label_pairs
from rlvr_support.cli.verifier_args import add_verifier_args
from rlvr_support.models.devices import require_gpus

CFG_HELP = "the config's `analysis` section as JSON"


def cmd_opening_intervention(a):
    from rlvr_support.probes.opening_intervention import intervention_run
    from rlvr_support.storage.atomic import write_parquet

    require_gpus(a.gpus)
    df = intervention_run(label_pairs(a.models, "models"), label_pairs(a.samples, "samples"), a.prompts,
                          m=a.cfg["opening_tokens"], cfg=a.cfg["intervention"], sampling=a.sampling,
                          scoring=a.scoring, seed=a.cfg["seed"], threads=a.threads, dtype=a.dtype)
    write_parquet(a.out, df)


def register(verb) -> None:
    s = verb("opening-intervention", cmd_opening_intervention,
             "Force the most frequent openings and sample continuations from every model, scored.")
    s.add_argument("--models", nargs="+", required=True, help="label=manifest pairs, label 'base' or chain/seedK")
    s.add_argument("--samples", nargs="+", required=True, help="label=samples.parquet pairs (same labels)")
    s.add_argument("--prompts", required=True)
    s.add_argument("--cfg", type=_json, required=True, help=CFG_HELP)
    s.add_argument("--sampling", type=_json, required=True, help="the config's `sampling` section as JSON")
    s.add_argument("--scoring", type=_json, required=True, help="the config's `scoring` section as JSON")
    s.add_argument("--out", required=True)
    s.add_argument("--threads", type=int, default=1)
    add_device_args(s)
    add_verifier_args(s)
