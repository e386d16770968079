"""`python -m rlvr_support <verb>`: one verb per pipeline rule, each runnable without Snakemake.

Config sections are passed as JSON strings (`--cfg '{...}'`), so a rule's parameters are
visible in its command line and in Snakemake's rerun triggers.

Each verb is a module of cli/verbs/ (its `register(verb)` adds it); this module only finds them
and frames every job alike (offline hub, provenance sidecars, one-line errors, the verifier
families a job may load). It is no rule's code (lineage/job_code.py), so adding a verb here or
there reruns no existing job: nothing in it may change what a verb computes.
"""

from __future__ import annotations

import argparse
import importlib
import pkgutil
import sys

from rlvr_support.cli import verbs as _verbs
from rlvr_support.models.devices import GPUUnavailableError


def verb_modules() -> list[str]:
    """The verb modules of cli/verbs/, in name order (the order of `--help`)."""
    return sorted(m.name for m in pkgutil.iter_modules(_verbs.__path__) if not m.name.startswith("_"))


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m rlvr_support", description=__doc__.split("\n\n")[0])
    p.add_argument("--prov-rule", dest="prov_rule_name", metavar="RULE",
                   help="the Snakemake rule running this verb, for the provenance sidecars "
                        "(default: $RLVR_PROV_RULE, else the rule known to run the verb)")
    sub = p.add_subparsers(dest="verb", required=True)

    def verb(name, fn, help_):
        s = sub.add_parser(name, help=help_, description=help_)
        s.set_defaults(fn=fn)
        if name != "audit":
            s.add_argument("--import-input", dest="prov_import", action="append", default=[], metavar="PATH",
                           help="use PATH, a file of the results tree without a provenance sidecar (put there by "
                                "hand), as it is: it gets a sidecar recording the import; without this flag such "
                                "an input stops the job (repeatable)")
        return s

    for name in verb_modules():
        importlib.import_module(f"{_verbs.__name__}.{name}").register(verb)
    return p


def rerun_verb(argv: list[str], scratch) -> dict:
    """Run a verb again, in-process, as a sidecar recorded its command line, with its outputs written
    under `scratch` instead; returns {recorded output: where the rerun wrote it}. What `audit`
    recomputes a table with (review/recompute.py); nothing is written beside the tree, no sidecar."""
    import contextlib
    import io
    from pathlib import Path

    from rlvr_support.lineage.provenance import output_dests

    args = build_parser().parse_args(argv)
    moved: dict[str, Path] = {}

    def elsewhere(value: str, slot: str) -> str:
        new = Path(scratch) / slot / Path(value).name
        new.parent.mkdir(parents=True, exist_ok=True)
        moved[value] = new
        return str(new)

    for i, dest in enumerate(output_dests(args)):
        value = getattr(args, dest, None)
        if isinstance(value, list):
            setattr(args, dest, [elsewhere(v, f"{i}-{j}") for j, v in enumerate(value)])
        elif isinstance(value, str) and value:
            setattr(args, dest, elsewhere(value, str(i)))
    from rlvr_support.scoring.verifiers import families

    with families.only(getattr(args, "verifiers", ())), \
            contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        args.fn(args)
    return moved


# The verbs that fetch: they run as local rules on the submit host (workflow/rules/data.smk, base.smk, imports.smk).
DOWNLOAD_VERBS = ("data-sources", "base-model", "checkpoint", "import-hub-files", "import-tokenizer")
OFFLINE_ENV = ("HF_HUB_OFFLINE", "HF_DATASETS_OFFLINE", "TRANSFORMERS_OFFLINE")


def stay_offline(verb: str) -> None:
    """Every other verb reads the Hugging Face cache only: on a compute node without network a job
    must not wait on hub timeouts or fetch a newer revision than the one the manifest recorded."""
    import os

    if verb not in DOWNLOAD_VERBS:
        for var in OFFLINE_ENV:
            os.environ.setdefault(var, "1")


def missing_column(e: KeyError, inputs: list[str]) -> str | None:
    """The error to show when a verb fails with `e` because an input Parquet/CSV lacks a column it
    needs: pandas names the column, not the file, so find the input without it. None when no input
    lacks it (a bug, whose traceback is the better report)."""
    import re

    from rlvr_support.storage.atomic import columns_of

    key = e.args[0] if e.args else None
    if not isinstance(key, str):
        return None
    # KeyError('a'), or KeyError("['a', 'b'] not in index") when several were asked for at once
    wanted = re.findall(r"'([^']+)'", key) if "not in index" in key or "are in the" in key else [key]
    for path in inputs:
        cols = columns_of(path)
        lacking = [c for c in wanted if cols is not None and c not in cols]
        if lacking:
            return f"{path}: no column {lacking[0]!r}, which this verb needs (its columns: {', '.join(cols)})"
    return None


def main(argv: list[str] | None = None) -> int:
    from rlvr_support.lineage import provenance

    import warnings

    # Library deprecation notices repeat every training step and bury the progress in the logs.
    warnings.filterwarnings("ignore", category=FutureWarning)
    argv = sys.argv[1:] if argv is None else list(argv)
    args = build_parser().parse_args(argv)
    # a verb that re-runs itself in the vLLM environment passes these on (prov_*: no file argument of the sidecar)
    args.prov_argv = argv
    stay_offline(args.verb)
    if args.verb == "train" and args.cfg.get("rollout_backend") == "vllm":
        from rlvr_support.training.vllm_rollouts import run_train_in_vllm_env, vllm_importable

        if not vllm_importable():  # before the sidecar: it records the interpreter that trains
            return run_train_in_vllm_env(argv)
    # The verifier families this job may load: the ones its rule hashed (`--verifiers`), none for a
    # verb without the argument (scoring/verifiers/families.py refuses any other).
    from rlvr_support.scoring.verifiers import families

    with families.only(getattr(args, "verifiers", ())):
        return _run(args, argv, provenance)


def _run(args, argv, provenance) -> int:
    try:
        # Every verb gets a provenance sidecar beside each output (see lineage/provenance.py for how a
        # verb declares its inputs and outputs); `audit` reads them.
        record = provenance.begin(args, argv, rule=args.prov_rule_name)
        rc = args.fn(args)
        provenance.finish(record)
        if isinstance(rc, int) and rc:
            return rc
    except (ValueError, FileNotFoundError, GPUUnavailableError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    except OSError as e:
        if e.filename is None:  # not about a path: a bug, whose traceback is the better report
            raise
        # an unreadable or unwritable path (a read-only results folder, a file of another user)
        print(f"error: {e.filename}: {e.strerror or e}", file=sys.stderr)
        return 1
    except KeyError as e:
        from rlvr_support.storage.atomic import MissingColumnError

        message = missing_column(e, provenance.declared_files(args)[0] if getattr(args, "prov", True) else [])
        if message is None and not isinstance(e, MissingColumnError):
            raise
        print(f"error: {message or e}", file=sys.stderr)
        return 1
    return 0
