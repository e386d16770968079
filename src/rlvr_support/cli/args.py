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
