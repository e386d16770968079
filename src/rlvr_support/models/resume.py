"""Resumable training state kept in `_partial/` beside a checkpoint manifest.

A job killed mid-way (SIGKILL, preemption, wall-time limit) leaves its last saved state in
`_partial/`; the rerun continues from it. Three ways this goes wrong, guarded here:

* the state belongs to a *different* job (the config, seed, parent, data, the code the verb
  runs or its pinned numerics changed before the rerun, or the previous run finished and its
  final checkpoint was kept): resuming would skip training or mix two runs, and the provenance
  would name only the second. `prepare` keeps `_partial/` only when its fingerprint matches this
  job's (the caller puts the hash of its code in it, cli/main.py), and says what changed when it
  does not;
  `discard` removes it once the job's output is written.
* the job was killed while writing a TRL checkpoint: Trainer writes `checkpoint-N/` in place
  and `trainer_state.json` last (transformers 5.23 `Trainer._save_checkpoint`), so a folder
  without it is incomplete and is removed before resuming (the previous one is still there:
  rotation runs only after a save completes).
* a complete checkpoint was damaged afterwards (a full disk, a copy cut short): loading it
  fails the same way on every rerun. `prepare` drops a checkpoint whose files do not read
  back (`damage`), so the job falls back to the one before it or starts afresh.

TRL's checkpoints get the umask's file modes after each save (`SharedModes`; safetensors writes
its weights 0600), like every published output (storage/atomic.py).
"""

from __future__ import annotations

import hashlib
import json
import re
import shutil
import zipfile
from pathlib import Path

from safetensors import SafetensorError, safe_open
from transformers import TrainerCallback

from rlvr_support.config.numerics import requested as numerics_requested
from rlvr_support.storage.atomic import shared_modes, write_json

FINGERPRINT = "fingerprint.json"


def file_digest(path: str | Path) -> str:
    """sha256 of a file; for a model directory, of its file names, sizes and mtimes (cheap, changes when it does)."""
    h = hashlib.sha256()
    path = Path(path)
    if path.is_dir():
        for p in sorted(path.rglob("*")):
            if p.is_file():
                st = p.stat()
                h.update(f"{p.relative_to(path)}\0{st.st_size}\0{st.st_mtime_ns}\n".encode())
        return h.hexdigest()
    with open(path, "rb") as f:
        while block := f.read(1 << 20):
            h.update(block)
    return h.hexdigest()


# What transformers' Trainer (5.23) loads from a checkpoint on resume, and how: torch files with
# `torch.load(weights_only=True)` (rng_state*.pth with numpy's globals allowed), trainer_state.json
# into a TrainerState, the model's safetensors. training_args.bin is never loaded.
TORCH_STATE = ("optimizer.pt", "scheduler.pt", "scaler.pt", "pytorch_model.bin")


def _loads_weights_only(f: Path) -> None:
    """Load `f` as the Trainer will, weights-only; memory-mapped, so tensors are not read in."""
    import torch
    from transformers.trainer_pt_utils import safe_globals

    with safe_globals():
        torch.load(f, map_location="cpu", weights_only=True, mmap=True)


def damage(path: Path) -> str | None:
    """Why a saved file, or any file of a saved folder, would not load on resume; None if all do.

    Every file the Trainer loads is loaded here as it would be, tensors memory-mapped rather than
    read: a torch file weights-only (a cut file, and a crafted pickle that would import anything
    beyond tensors, fail here, not in the rerun: a refusal there would repeat on every rerun), the
    trainer state into a TrainerState, a safetensors header that must cover its file exactly, any
    other JSON parsed. A flipped bit inside a tensor would need checksums written at save time."""
    import pickle

    from transformers import TrainerState

    path = Path(path)
    for f in sorted(path.rglob("*")) if path.is_dir() else [path]:
        try:
            if f.suffix == ".safetensors":
                with safe_open(f, "pt") as st:
                    st.keys()
            elif f.name in TORCH_STATE or (f.name.startswith("rng_state") and f.suffix == ".pth"):
                _loads_weights_only(f)
            elif f.suffix in (".pt", ".pth", ".bin"):
                zipfile.ZipFile(f).close()
            elif f.name == "trainer_state.json":
                TrainerState(**json.loads(f.read_text()))
            elif f.suffix == ".json":
                json.loads(f.read_text())
        except (SafetensorError, zipfile.BadZipFile, pickle.UnpicklingError, RuntimeError, EOFError, TypeError,
                AttributeError, ValueError, OSError) as e:
            said = " ".join(re.sub(r"\x1b\[[0-9;]*m", "", str(e)).split())  # one log line, no colour codes
            return f"{f.name}: {type(e).__name__}: {said[:300]}"
    return None


def _fingerprint_of(fp_file: Path) -> dict | None:
    try:
        return json.loads(fp_file.read_text())
    except (OSError, ValueError):  # missing, or cut short: not known to be this job's
        return None


def prepare(partial: Path, fingerprint: dict) -> None:
    """Make `partial` (created if missing) hold only this job's complete, readable saved progress."""
    partial = Path(partial)
    fp_file = partial / FINGERPRINT
    # progress made under other numerics (config/numerics.py) would finish as a mix of two runs
    fingerprint = {**fingerprint, "numerics": numerics_requested()}
    if partial.exists():
        old, new = _fingerprint_of(fp_file), json.loads(json.dumps(fingerprint, sort_keys=True, default=str))
        if old != new:
            changed = "no fingerprint" if not isinstance(old, dict) else ", ".join(
                sorted(k for k in old.keys() | new.keys() if old.get(k) != new.get(k))) + " changed"
            print(f"discarding {partial}: it was written by a different job ({changed})", flush=True)
            shutil.rmtree(partial)
    partial.mkdir(parents=True, exist_ok=True)
    if _fingerprint_of(fp_file) is None:
        write_json(fp_file, fingerprint)
    for ck in partial.glob("checkpoint-*"):
        if ck.is_dir() and not (ck / "trainer_state.json").is_file():
            print(f"removing incomplete checkpoint {ck} (killed while saving)", flush=True)
            shutil.rmtree(ck)
    # Newest first, down to the first that reads back: that one is resumed, older ones are not read.
    for ck in reversed(checkpoints(partial)):
        why = damage(ck)
        if why is None:
            break
        shutil.rmtree(ck)
        left = checkpoints(partial)
        print(f"dropping unreadable checkpoint {ck} ({why}); "
              + (f"falling back to {left[-1].name}" if left else "starting afresh"), flush=True)
    shared_modes(partial)  # what a kill between a save and SharedModes left private


def checkpoints(partial: Path) -> list[Path]:
    """The TRL checkpoints in `partial`, oldest first."""
    return sorted((p for p in Path(partial).glob("checkpoint-*") if p.is_dir()), key=lambda p: int(p.name.split("-")[-1]))


def discard(partial: Path) -> None:
    shutil.rmtree(partial, ignore_errors=True)


class SharedModes(TrainerCallback):
    """After each save, the files of the new checkpoint get the modes the umask gives."""

    def on_save(self, args, state, control, **kwargs):
        ckpt = Path(args.output_dir) / f"checkpoint-{state.global_step}"
        if state.is_world_process_zero and ckpt.is_dir():
            shared_modes(ckpt)
