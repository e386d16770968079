"""`python -m rlvr_support base-metrics`: greedy and sampled accuracy of a checkpoint on each eval set.

Run by `base_metrics` (workflow/rules/base.smk); registered by cli/main.py.
"""

from __future__ import annotations

import json

from rlvr_support.cli.args import add_device_args, json_arg as _json
from rlvr_support.cli.verifier_args import add_verifier_args
from rlvr_support.models.devices import require_gpus


def cmd_base_metrics(a):
    require_gpus(a.gpus)
    from rlvr_support.storage.atomic import write_json
    from rlvr_support.probes.base_metrics import base_metrics

    files = dict(p.split("=", 1) for p in a.prompts)
    result = base_metrics(a.model, files, sampling=a.sampling, scoring=a.scoring, seed=a.seed, threads=a.threads,
                          gpus=a.gpus, dtype=a.dtype)
    write_json(a.out, result)
    print(json.dumps(result, indent=1))


def register(verb) -> None:
    s = verb("base-metrics", cmd_base_metrics, "Greedy and sampled accuracy of a checkpoint on each eval set.")
    s.add_argument("--model", required=True, help="a checkpoint manifest or model directory")
    s.add_argument("--prompts", nargs="+", required=True, help="task=path pairs")
    s.add_argument("--sampling", type=_json, required=True,
                   help="generation settings as JSON: the `sampling` section's backend, prompt_batch, "
                        "max_new_tokens (and vllm)")
    s.add_argument("--scoring", type=_json, required=True, help="the config's `scoring` section as JSON")
    s.add_argument("--seed", type=int, default=0)
    s.add_argument("--out", required=True)
    s.add_argument("--threads", type=int, default=1)
    add_device_args(s)
    add_verifier_args(s)
