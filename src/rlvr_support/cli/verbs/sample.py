"""`python -m rlvr_support sample`: n samples per eval prompt from one checkpoint, as Parquet.

Run by `sample_large_k` (workflow/rules/large_k.smk), `sample_routed` (workflow/rules/routed.smk),
`sample` (workflow/rules/sample.smk); registered by cli/main.py.
"""

from __future__ import annotations

import time

from rlvr_support.cli.args import GPUS_HELP, json_arg as _json
from rlvr_support.models.devices import require_gpus


def cmd_sample(a):
    require_gpus(a.gpus)
    from rlvr_support.sampling.jobs import sample_checkpoint

    t0 = time.time()
    routing = ({"reference": a.route_from, "gamma": a.route_gamma, "tokens": a.route_tokens}
               if a.route_from else None)
    df = sample_checkpoint(a.model, a.prompts, a.out, a.cfg, a.job, threads=a.threads, shard=a.shard,
                           routing=routing)
    dt = time.time() - t0
    print(f"{len(df)} samples, {int(df['n_tokens'].sum())} tokens in {dt:.1f}s "
          f"({df['n_tokens'].sum() / max(dt, 1e-9):.0f} tokens/s)")


def register(verb) -> None:
    s = verb("sample", cmd_sample, "n samples per eval prompt from one checkpoint, as Parquet.")
    s.add_argument("--model", required=True)
    s.add_argument("--prompts", required=True)
    s.add_argument("--cfg", type=_json, required=True, help="the config's `sampling` section as JSON")
    s.add_argument("--job", required=True, help="job name that, with the weights' checksums, fixes the seed: the eval "
                   "set (e.g. if), routed/<eval set> for a routed job")
    s.add_argument("--out", required=True)
    s.add_argument("--threads", type=int, default=1)
    s.add_argument("--gpus", type=int, default=0, help=GPUS_HELP)
    s.add_argument("--shard", type=int, default=0, help="which of the config's sampling.shards prompt blocks (0-based)")
    s.add_argument("--route-from", help="routing prior: the reference policy's manifest (first tokens come from it)")
    s.add_argument("--route-gamma", type=float, default=0.5, help="routing prior: share of samples routed")
    s.add_argument("--route-tokens", type=int, default=3, help="routing prior: tokens taken from the reference")
