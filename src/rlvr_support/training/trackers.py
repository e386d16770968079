"""Where a stage's training curves go besides reward_curve.csv: `rl.report_to`, the trackers of TRL / transformers
(TrainingArguments.report_to, transformers 5: integrations/integration_utils.py).

Every tracker writes under the stage's log folder (`results/logs/train/<chain>/seed<k>/`, the train rule's
`trackers` log), locally: the jobs run on nodes without network, so

* tensorboard: event files in the folder itself (`TENSORBOARD_LOGGING_DIR`, read by transformers' callback),
  so `tensorboard --logdir results/logs/train` shows one run per chain and seed;
* wandb: an offline run in `<folder>/wandb/` (`WANDB_MODE=offline` and `WANDB_DIR` unless set), synced from
  the submit host with `wandb sync`;
* trackio: a local project database in `<folder>/trackio/` (`TRACKIO_DIR` unless set; no Space is named).

The run is named after the chain, the stage's task and the seed. A stage that starts afresh (not resumed) clears
the folder, so a rerun's curves are not drawn over a superseded run's.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import sys
from pathlib import Path

TRACKERS = ("tensorboard", "wandb", "trackio")
# the modules transformers' callback of each tracker imports (tensorboard: torch.utils.tensorboard needs the
# tensorboard package; the callback falls back to tensorboardX)
MODULES = {"tensorboard": ("tensorboard", "tensorboardX"), "wandb": ("wandb",), "trackio": ("trackio",)}
PROJECT = "rlvr-support"  # wandb's and trackio's project unless WANDB_PROJECT / TRACKIO_PROJECT name another


def report_to(rl: dict) -> list[str]:
    """The trackers of `rl.report_to` (`none`, one tracker, or a list of them) as TRL's report_to list."""
    value = rl.get("report_to", "none")
    trackers = [value] if isinstance(value, str) else list(value)
    unknown = [t for t in trackers if t != "none" and t not in TRACKERS]
    if unknown:
        raise ValueError(f"rl.report_to: {', '.join(unknown)} is none of {', '.join(TRACKERS)} (or none)")
    return [t for t in trackers if t != "none"]


def run_name(chain: str, task: str, seed: int) -> str:
    """The run's name in every tracker: chain, the stage's task and the seed (`math-if/if/seed0`)."""
    return f"{chain}/{task}/seed{seed}"


def check_installed(trackers: list[str]) -> None:
    """Stop before the model loads when a tracker's package is missing from this job's interpreter."""
    missing = [t for t in trackers if not any(importlib.util.find_spec(m) for m in MODULES[t])]
    if missing:
        raise ValueError(f"rl.report_to: {', '.join(missing)} is not installed in this job's environment "
                         f"({sys.prefix}): pip install {' '.join(missing)} there, or set rl.report_to: none")


def tracker_environment(trackers: list[str], folder: str | Path, environ=os.environ) -> dict[str, str]:
    """The environment variables that send each tracker's output to `folder`, offline; a wandb or trackio
    variable the user set is kept (WANDB_MODE=online on a node with network syncs as it goes)."""
    folder = Path(folder)
    env: dict[str, str] = {}
    if "tensorboard" in trackers:
        env["TENSORBOARD_LOGGING_DIR"] = str(folder)
    if "wandb" in trackers:
        env.update({k: v for k, v in (("WANDB_MODE", "offline"), ("WANDB_DIR", str(folder)),
                                      ("WANDB_PROJECT", PROJECT)) if k not in environ})
    if "trackio" in trackers:
        env.update({k: v for k, v in (("TRACKIO_DIR", str(folder / "trackio")),) if k not in environ})
    return env


def project(environ=os.environ) -> str:
    """trackio's project (TrainingArguments.project; wandb reads WANDB_PROJECT itself)."""
    return environ.get("TRACKIO_PROJECT") or PROJECT


def start(rl: dict, folder: str | Path | None, environ=os.environ) -> list[str]:
    """TRL's report_to for this stage, with the environment set for it; [] when no tracker is asked for.
    Raises when trackers are asked for without a folder or without their packages."""
    trackers = report_to(rl)
    if not trackers:
        return []
    if folder is None:
        raise ValueError(f"rl.report_to: {', '.join(trackers)} needs the stage's log folder (train --log-dir)")
    check_installed(trackers)
    environ.update(tracker_environment(trackers, folder, environ))
    Path(folder).mkdir(parents=True, exist_ok=True)  # wandb falls back to a temporary folder when WANDB_DIR is missing
    return trackers


def clear(folder: str | Path | None) -> None:
    """Empty the folder of an earlier run's curves before a stage starts afresh (the main process only)."""
    if folder is not None and Path(folder).is_dir():
        shutil.rmtree(folder)
        Path(folder).mkdir(parents=True)
