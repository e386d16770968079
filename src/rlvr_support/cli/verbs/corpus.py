"""`python -m rlvr_support corpus`: generate the base pretraining corpus (mixed styles, partial
compliance).

Run by `toy_corpus` (workflow/rules/data.smk); registered by cli/main.py.
"""

from __future__ import annotations

from pathlib import Path

from rlvr_support.cli.args import json_arg as _json


def cmd_corpus(a):
    from rlvr_support.storage.atomic import read_jsonl, write_jsonl
    from rlvr_support.data.toyworld.world import build_corpus

    sets = {t: read_jsonl(Path(a.prompts_dir) / f"{t}.jsonl") for t in ("math", "if", "joint")}
    corpus = build_corpus(a.cfg, sets)
    write_jsonl(a.out, corpus)
    print(f"{len(corpus)} corpus examples")


def register(verb) -> None:
    s = verb("corpus", cmd_corpus, "Generate the base pretraining corpus (mixed styles, partial compliance).")
    s.add_argument("--cfg", type=_json, required=True, help="the config's `world` section as JSON")
    s.add_argument("--prompts-dir", required=True)
    s.add_argument("--out", required=True)
