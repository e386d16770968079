"""`python -m rlvr_support data`: generate the toy world's prompt sets (train and eval splits) as
JSONL.

Run by `toy_data` (workflow/rules/data.smk); registered by cli/main.py.
"""

from __future__ import annotations

from pathlib import Path

from rlvr_support.cli.args import json_arg as _json


def cmd_data(a):
    from rlvr_support.storage.atomic import write_jsonl
    from rlvr_support.data.toyworld.world import build_prompt_sets

    sets = build_prompt_sets(a.cfg)
    for task, records in sets.items():
        write_jsonl(Path(a.out_dir) / f"{task}.jsonl", records)
        print(f"{task}: {sum(r['split'] == 'train' for r in records)} train, "
              f"{sum(r['split'] == 'eval' for r in records)} eval prompts")


def register(verb) -> None:
    s = verb("data", cmd_data, "Generate the toy world's prompt sets (train and eval splits) as JSONL.")
    s.add_argument("--cfg", type=_json, required=True, help="the config's `world` section as JSON")
    s.add_argument("--out-dir", required=True, help="writes <task>.jsonl for math, if, joint")
