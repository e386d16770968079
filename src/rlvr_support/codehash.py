"""Hash the package modules a rule runs, so that editing one reruns exactly what it affects.

Snakemake's rerun triggers see params but not imported modules; rules pass this hash as a
param (see workflow/rules/common.smk).
"""

from __future__ import annotations

import hashlib
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent


def module_files(name: str) -> list[Path]:
    """`grpo` -> grpo.py; `verifiers` -> every .py under verifiers/."""
    target = PACKAGE / name.replace(".", "/")
    if target.is_dir():
        return sorted(target.rglob("*.py"))
    path = target.with_suffix(".py")
    if not path.exists():
        raise FileNotFoundError(f"no module {name!r} in {PACKAGE}")
    return [path]


def code_hash(*modules: str) -> str:
    h = hashlib.sha256()
    for name in sorted(set(modules)):
        for path in module_files(name):
            h.update(str(path.relative_to(PACKAGE)).encode())
            h.update(path.read_bytes())
    return h.hexdigest()[:16]
