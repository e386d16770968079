"""Hash the package code a rule runs, so that editing a file reruns exactly what it affects.

Snakemake's rerun triggers see params but not imported modules; rules pass this hash as a
param (`code=get_code("training", "cli.main")` in workflow/rules/*.smk). A rule names the
folders (stages) its verb runs and the CLI module that parses the verb's arguments. The hash
covers the files of those folders and every package module they import, transitively,
wherever the import stands (module level or inside a function), computed from the files'
contents. Two limits keep it exact rather than total:

* imports are followed at module granularity, so a stage that uses `metrics/passk.py` is not
  rerun by an edit to `metrics/bootstrap.py`;
* imports made by `cli/` modules are followed only into cli/ itself and the bottom layers
  every verb reads and writes through (storage/, config/): each CLI module registers many
  verbs and imports each verb's code lazily, so following everything would make every rule
  depend on every stage. The folders a rule names are its verb's code; tests/test_codehash.py
  checks, verb by verb, that they cover every module the verb imports.
"""

from __future__ import annotations

import ast
import hashlib
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1]
CLI = "cli"  # the top layer: its modules are hashed, their imports followed only into FOLLOWED_FROM_CLI
FOLLOWED_FROM_CLI = (CLI, "storage", "config")


def module_files(name: str) -> list[Path]:
    """`training` -> every .py under training/ (and the package __init__ files above it);
    `cli.main` -> cli/main.py."""
    target = PACKAGE.joinpath(*name.split("."))
    if target.is_dir():
        files = sorted(target.rglob("*.py"))
    elif target.with_suffix(".py").is_file():
        files = [target.with_suffix(".py")]
    else:
        raise FileNotFoundError(f"no module or folder {name!r} in {PACKAGE}")
    return _parent_inits(files[0]) + files


def _parent_inits(path: Path) -> list[Path]:
    """The __init__.py files Python runs before `path` (importing a.b.c runs a/ and a/b/ first)."""
    out, d = [], path.parent
    while d != PACKAGE.parent and d.is_relative_to(PACKAGE):
        if (d / "__init__.py").is_file() and d / "__init__.py" != path:
            out.append(d / "__init__.py")
        d = d.parent
    return sorted(out)


def _module_path(dotted: list[str]) -> Path | None:
    """The file of a package module (`["a", "b"]` -> a/b.py or a/b/__init__.py); None if there is none."""
    target = PACKAGE.joinpath(*dotted)
    if dotted and target.with_suffix(".py").is_file():
        return target.with_suffix(".py")
    if (target / "__init__.py").is_file():
        return target / "__init__.py"
    return None


def imported_modules(path: Path) -> list[Path]:
    """Package modules the file `path` imports, anywhere in it (absolute `rlvr_support.` imports;
    the package uses no relative ones, which tests/test_import_graph.py checks)."""
    out: list[Path] = []
    for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            parts = node.module.split(".")
            candidates = [parts] + [parts + [a.name] for a in node.names]  # `from a import b`: b may be a module
        elif isinstance(node, ast.Import):
            candidates = [a.name.split(".") for a in node.names]
        else:
            continue
        for parts in candidates:
            if parts[0] != PACKAGE.name:
                continue
            f = _module_path(parts[1:])
            if f is not None:
                out += _parent_inits(f) + [f]
    return out


def closure(files: list[Path]) -> list[Path]:
    """`files` and every package module they import, transitively, sorted (cli/ imports: see above)."""
    seen: set[Path] = set()
    todo = list(files)
    while todo:
        f = todo.pop()
        if f in seen:
            continue
        seen.add(f)
        imports = imported_modules(f)
        if _top(f) == CLI:
            imports = [g for g in imports if _top(g) in FOLLOWED_FROM_CLI]
        todo += imports
    return sorted(seen)


def _top(path: Path) -> str:
    """The package folder a file belongs to (`""` for the package's own top-level files)."""
    parts = path.relative_to(PACKAGE).parts
    return parts[0] if len(parts) > 1 else ""


def files_of(*names: str) -> tuple[Path, ...]:
    """Every file the hash of `names` covers."""
    return tuple(closure([f for name in sorted(set(names)) for f in module_files(name)]))


def code_hash(*names: str) -> str:
    """sha256 (16 hex digits) over the paths and contents of `files_of(*names)`."""
    h = hashlib.sha256()
    for path in files_of(*names):
        h.update(str(path.relative_to(PACKAGE)).encode())
        h.update(path.read_bytes())
    return h.hexdigest()[:16]
