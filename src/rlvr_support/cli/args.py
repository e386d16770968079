"""Argument types and groups shared by the CLI's verb modules (cli/verbs/)."""

from __future__ import annotations

import argparse
import json


def json_arg(s: str) -> dict:
    """A config section passed as JSON on the command line (`--cfg '{...}'`)."""
    try:
        return json.loads(s)
    except json.JSONDecodeError as e:
        raise argparse.ArgumentTypeError(f"not valid JSON: {e}") from None


GPUS_HELP = "GPUs this process must see (per node); it stops at once with a clear error if it sees fewer (0: none needed)"


def add_device_args(s: argparse.ArgumentParser) -> None:
    """`--gpus` and `--dtype` of a verb that loads a model for an analysis (resources.analyse)."""
    s.add_argument("--gpus", type=int, default=0, help=GPUS_HELP + "; with GPUs the models run on them")
    s.add_argument("--dtype", default="auto", choices=["auto", "float32", "bfloat16", "float16"],
                   help="weights dtype (auto: bfloat16 on GPUs, float32 on CPU)")


def label_pairs(items: list[str], what: str) -> dict[str, str]:
    """`label=path` arguments (`--models base=... math/seed0=...`) as a dict, in order."""
    out = {}
    for it in items:
        if "=" not in it:
            raise ValueError(f"--{what}: expected label=path, got {it!r}")
        k, v = it.split("=", 1)
        out[k] = v
    return out


def add_figure_args(s: argparse.ArgumentParser, table_help: str) -> None:
    """A figure verb's arguments: one table in, one eval set's PNG (and PDF) out."""
    s.add_argument("--table", required=True, help=table_help)
    s.add_argument("--eval-set", required=True)
    s.add_argument("--out", required=True, help="<name>.png; the PDF is written beside it")
