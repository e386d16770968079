"""The package code a job runs, by name: one definition for the rules' code params
(workflow/rules/common.smk `get_code`) and for the fingerprints of the resumable verbs (`train`,
`pretrain`: a code edit between a kill and the rerun starts the job afresh).

A job runs its verb's CLI module (cli/verbs/<verb>.py) and everything it imports, which
lineage/codehash.py follows; not cli/main.py, which only dispatches to the verb modules and
frames every job alike (parsing, provenance, error messages), so adding or editing one verb
reruns that verb's rules only. Beyond its imports, a job loads by name, and so names here:

* the verifier families of its data (`--verifiers`; scoring/verifiers/families.py), chosen from
  the config by data/verifiers.py;
* the modules of the remedies its chain variant turns on (training/remedy_code.py);
* a training stage's support monitor (training/support_monitor.py, with the metrics, sampling and scoring
  code it runs), but only where the monitor can move the weights, by stopping the stage early
  (`rl.monitor.early_stop_margin`). Otherwise it only reports (monitor.csv), and counting its code
  would retrain every stage for a fix of metrics/passk.py: at paper scale, every GRPO-hour of a
  study for a change that cannot move a weight. The price: with early stopping off, an edit of the
  monitor's code leaves the monitor.csv of finished stages as the old code wrote them.
"""

from __future__ import annotations

from rlvr_support.lineage.codehash import code_manifest, manifest_digest
from rlvr_support.scoring.verifiers import families
from rlvr_support.training.remedy_code import modules_of as remedy_modules

VERBS_PACKAGE = "cli.verbs"
MONITOR = "training.support_monitor"  # loaded by name (training/stage.py), so counted only as below


def verb_module(verb: str) -> str:
    """`passk-table` -> cli.verbs.passk_table (below rlvr_support)."""
    return f"{VERBS_PACKAGE}.{verb.replace('-', '_')}"


def monitor_moves_weights(rl: dict) -> bool:
    """Whether a stage's support monitor can change what the stage trains: only by stopping it early."""
    return (rl.get("monitor") or {}).get("early_stop_margin") is not None


def job_code(verb: str, verifiers=(), remedies: dict | None = None, monitor: bool = False) -> tuple[str, ...]:
    """The module names whose code a job of `verb` runs, with the verifier families and remedies it loads,
    and the support monitor where it counts (`monitor`: monitor_moves_weights)."""
    return (verb_module(verb), *families.modules(verifiers), *remedy_modules(remedies), *((MONITOR,) if monitor else ()))


def job_manifest(verb: str, verifiers=(), remedies: dict | None = None, monitor: bool = False) -> dict[str, str]:
    """{file: hash} of that code (codehash.code_manifest): what a rule records as its code param."""
    return code_manifest(*job_code(verb, verifiers, remedies, monitor))


def job_hash(verb: str, verifiers=(), remedies: dict | None = None, monitor: bool = False) -> str:
    """The digest of job_manifest: the resumable verbs' fingerprint of their own code."""
    return manifest_digest(job_manifest(verb, verifiers, remedies, monitor))
