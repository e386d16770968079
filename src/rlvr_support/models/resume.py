"""Resumable training state kept in `_partial/` beside a checkpoint manifest.

A job killed mid-way (SIGKILL, preemption, wall-time limit) leaves its last saved state in
`_partial/`; the rerun continues from it. Two ways this goes silently wrong, guarded here:

* the state belongs to a *different* job (the config, seed, parent or data changed before the
  rerun, or the previous run finished and its final checkpoint was kept): resuming would
  skip training or mix two runs. `prepare` keeps `_partial/` only when its fingerprint
  matches this job's; `discard` removes it once the job's output is written.
* the job was killed while writing a TRL checkpoint: Trainer writes `checkpoint-N/` in place
  and `trainer_state.json` last (transformers 5.23 `Trainer._save_checkpoint`), so a folder
  without it is incomplete and is removed before resuming (the previous one is still there:
  rotation runs only after a save completes).
"""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

from rlvr_support.storage.atomic import write_json

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


def prepare(partial: Path, fingerprint: dict) -> None:
    """Make `partial` (created if missing) hold only this job's complete saved progress."""
    partial = Path(partial)
    fp_file = partial / FINGERPRINT
    if partial.exists():
        old = json.loads(fp_file.read_text()) if fp_file.is_file() else None
        if old != json.loads(json.dumps(fingerprint, sort_keys=True, default=str)):
            print(f"discarding {partial}: it was written by a different job (inputs, config or seed changed)", flush=True)
            shutil.rmtree(partial)
    partial.mkdir(parents=True, exist_ok=True)
    if not fp_file.is_file():
        write_json(fp_file, fingerprint)
    for ck in partial.glob("checkpoint-*"):
        if ck.is_dir() and not (ck / "trainer_state.json").is_file():
            print(f"removing incomplete checkpoint {ck} (killed while saving)", flush=True)
            shutil.rmtree(ck)


def discard(partial: Path) -> None:
    shutil.rmtree(partial, ignore_errors=True)
