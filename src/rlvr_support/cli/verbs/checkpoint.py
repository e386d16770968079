"""`python -m rlvr_support checkpoint`: declare a checkpoint trained elsewhere (checkpoints.<name>:
kind hf or local): record where its weights are, their checksums and hub commit, and write its
manifest.

Run by `external_checkpoint` (workflow/rules/base.smk), `trajectory_point`
(workflow/rules/trajectory.smk); registered by cli/main.py.
"""

from __future__ import annotations

import json

from rlvr_support.cli.args import json_arg as _json


def cmd_checkpoint(a):
    """An external checkpoint (or one of an external run's intermediate checkpoints): where its weights
    are, their sha256, its hub commit, prompt format, base and step."""
    from rlvr_support.models.base_models import hf_base
    from rlvr_support.storage.atomic import write_json

    spec = dict(a.cfg)
    if a.step is not None:
        from rlvr_support.config.checkpoints import external_step_path

        spec = {"kind": "local", "path": external_step_path(a.cfg, a.step),
                "prompt_format": a.cfg.get("prompt_format", "raw")}
    manifest = hf_base(spec, chain=a.name)
    manifest.update({"external": True, "base": a.cfg["base"], "step": a.step if a.step is not None else a.cfg.get("step")})
    write_json(a.out, manifest)
    print(json.dumps({k: v for k, v in manifest.items() if k != "config"}, indent=1))


def register(verb) -> None:
    s = verb("checkpoint", cmd_checkpoint,
             "Declare a checkpoint trained elsewhere (checkpoints.<name>: kind hf or local): record where its "
             "weights are, their checksums and hub commit, and write its manifest.")
    s.add_argument("--name", required=True, help="the checkpoint's name (its label in every table)")
    s.add_argument("--cfg", type=_json, required=True, help="the config's checkpoints.<name> entry as JSON")
    s.add_argument("--step", type=int, default=None,
                   help="an intermediate checkpoint of the run (one of the entry's `steps`) instead of the checkpoint")
    s.add_argument("--out", required=True)
