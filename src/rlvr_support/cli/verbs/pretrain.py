"""`python -m rlvr_support pretrain`: pretrain the toy base policy (resumable); writes a manifest.

Run by `pretrain_base` (workflow/rules/base.smk); registered by cli/main.py.
"""

from __future__ import annotations

import json
from pathlib import Path

from rlvr_support.cli.args import GPUS_HELP, json_arg as _json
from rlvr_support.models.devices import require_gpus


def cmd_pretrain(a):
    require_gpus(a.gpus)
    from rlvr_support.storage.atomic import write_json
    from rlvr_support.lineage.job_code import job_hash
    from rlvr_support.models.pretrain import pretrain

    from rlvr_support.models.base_models import weights_checksums

    summary = pretrain(a.corpus, str(Path(a.out).parent), a.cfg, a.seed, threads=a.threads,
                       code=job_hash("pretrain"))
    write_json(a.out, {"model_dir": "model", "chain": "base", "kind": "pretrain", **summary,
                       "sha256": weights_checksums(Path(a.out).parent / "model")})
    print(json.dumps(summary))


def register(verb) -> None:
    s = verb("pretrain", cmd_pretrain, "Pretrain the toy base policy (resumable); writes a manifest.")
    s.add_argument("--corpus", required=True)
    s.add_argument("--cfg", type=_json, required=True, help="the config's `base` section as JSON")
    s.add_argument("--seed", type=int, required=True)
    s.add_argument("--out", required=True, help="manifest.json; weights go to model/ beside it")
    s.add_argument("--threads", type=int, default=1)
    s.add_argument("--gpus", type=int, default=0, help=GPUS_HELP)
