"""A bare virtual environment for tests: only the named distributions of the test's own interpreter and what they
require (their Requires-Dist without extras, markers evaluated), linked into a fresh venv, nothing else. It stands
in for a GPU node that has torch, transformers, accelerate and safetensors and no `make setup`: built in about a
second, no download (the same installed files, so the same versions as .venv)."""

from __future__ import annotations

import re
import subprocess
import sys
from importlib.metadata import distribution
from pathlib import Path

from packaging.requirements import Requirement


def closure(names: list[str]) -> dict[str, object]:
    """{normalised name: distribution} of `names` and everything they require (no extras)."""
    seen: dict[str, object] = {}
    todo = list(names)
    while todo:
        name = todo.pop()
        key = re.sub(r"[-_.]+", "-", name).lower()
        if key in seen:
            continue
        dist = distribution(name)
        seen[key] = dist
        for line in dist.requires or []:
            req = Requirement(line)
            if req.marker is None or req.marker.evaluate({"extra": ""}):
                todo.append(req.name)
    return seen


def bare_venv(root: Path, names: list[str]) -> Path:
    """A venv at `root` holding `names` and their requirements (symbolic links to this interpreter's installed
    files); returns its python."""
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(root)], check=True)
    site = next(root.glob("lib/python*/site-packages"))
    for dist in closure(names).values():
        tops = {f.parts[0] for f in dist.files or [] if f.parts[0] not in ("..", "__pycache__")}
        for top in tops:
            src, dest = Path(dist.locate_file(top)), site / top
            if src.exists() and not dest.exists():
                dest.symlink_to(src)
    return root / "bin" / "python"
