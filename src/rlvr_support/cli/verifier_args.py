"""`--verifiers`, the argument of every verb that scores or validates prompts (its own module: a
verb without it does not depend on the verifier families' loader)."""

from __future__ import annotations

import argparse

from rlvr_support.scoring.verifiers.families import ALL, parse


def families_arg(spec: str) -> tuple[str, ...]:
    try:
        return parse(spec)
    except ValueError as e:
        raise argparse.ArgumentTypeError(str(e)) from None


def add_verifier_args(s: argparse.ArgumentParser) -> None:
    """The verifier families (scoring/verifiers/families.py) the verb may load: the ones its rule
    hashes (lineage/job_code.py); cli/main.py holds the process to them."""
    s.add_argument("--verifiers", type=families_arg, default=ALL,
                   help=f"verifier families the data needs, comma-separated ({', '.join(ALL)}), or all; the rules "
                        "pass those data/verifiers.py derives from the config, and hash them (default for a hand "
                        "run: all)")
