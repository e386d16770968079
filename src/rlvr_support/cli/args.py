"""Argument types shared by the CLI's verb modules."""

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
