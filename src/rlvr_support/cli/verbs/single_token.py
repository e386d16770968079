"""`python -m rlvr_support single-token`: single-token interventions: a token of the base put into a
checkpoint's responses and the other way round, at each swept position, and the recipient's own
top-2 first token; scored.

Run by `single_token` (workflow/rules/single_token.smk); registered by cli/main.py.
"""

from __future__ import annotations

from rlvr_support.cli.args import add_device_args, json_arg as _json
from rlvr_support.cli.verifier_args import add_verifier_args
from rlvr_support.models.devices import require_gpus


def cmd_single_token(a):
    from rlvr_support.probes.single_token import single_token_run
    from rlvr_support.models.devices import require_gpus
    from rlvr_support.storage.atomic import write_parquet

    require_gpus(a.gpus)
    df = single_token_run(a.model, a.base, a.prompts, cfg=a.cfg["single_token"], sampling=a.sampling,
                          scoring=a.scoring, threads=a.threads, dtype=a.dtype)
    write_parquet(a.out, df)


def register(verb) -> None:
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
    add_verifier_args(s)
