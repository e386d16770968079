"""Hash the package modules a rule runs, so that editing one reruns exactly what it affects.

Snakemake's rerun triggers see params but not imported modules; rules pass this hash as a
param (see workflow/rules/common.smk). A named module brings in the package modules it imports
at module level, transitively (`figures.passk_curves` -> `figures.style`, `analysis.passk_table`,
`metrics.*`, `atomic`), so editing a helper reruns every rule whose code imports it. Imports
inside functions are not followed: `cli` imports each verb's code lazily, and rules name the
modules their verb runs.
"""

from __future__ import annotations

import ast
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


def _module_path(dotted: str) -> Path | None:
    """The file of a package module (`a.b` -> a/b.py or a/b/__init__.py); None outside the package."""
    target = PACKAGE.joinpath(*dotted.split(".")) if dotted else PACKAGE
    if target.with_suffix(".py").is_file():
        return target.with_suffix(".py")
    if (target / "__init__.py").is_file():
        return target / "__init__.py"
    return None


def imported_files(path: Path) -> list[Path]:
    """Package modules imported at module level by the file `path` (relative or `rlvr_support.` imports)."""
    pkg = list(path.relative_to(PACKAGE).parts[:-1])  # the package `from .` refers to
    out = []
    for node in ast.parse(path.read_text(), filename=str(path)).body:
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = pkg[:len(pkg) - (node.level - 1)] if node.level > 1 else pkg
                mod = ".".join([*base, *(node.module.split(".") if node.module else [])])
            elif node.module and node.module.split(".")[0] == PACKAGE.name:
                mod = ".".join(node.module.split(".")[1:])
            else:
                continue
            names = [mod] + [f"{mod}.{a.name}" if mod else a.name for a in node.names]
        elif isinstance(node, ast.Import):
            names = [".".join(a.name.split(".")[1:]) for a in node.names if a.name.split(".")[0] == PACKAGE.name]
        else:
            continue
        for n in names:
            parts = n.split(".") if n else []
            # importing a.b.c runs the __init__ of a and a.b first
            out += [f for i in range(len(parts) + 1) if (f := _module_path(".".join(parts[:i]))) is not None
                    and (i == len(parts) or f.name == "__init__.py")]
    return out


def closure(files: list[Path]) -> list[Path]:
    """`files` and every package module they import at module level, transitively, sorted."""
    seen: set[Path] = set()
    todo = list(files)
    while todo:
        f = todo.pop()
        if f in seen:
            continue
        seen.add(f)
        todo += imported_files(f)
    return sorted(seen)


def code_hash(*modules: str) -> str:
    h = hashlib.sha256()
    files = closure([f for name in sorted(set(modules)) for f in module_files(name)])
    for path in files:
        h.update(str(path.relative_to(PACKAGE)).encode())
        h.update(path.read_bytes())
    return h.hexdigest()[:16]
