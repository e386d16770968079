"""Hash the package code a rule runs, so that editing a file reruns exactly what it affects.

Snakemake's rerun triggers see params but not imported modules; rules pass the code their job
runs as a param (`code=get_code("passk-table")` in workflow/rules/*.smk, names from
lineage/job_code.py). The code of a job is its verb's CLI module (cli/verbs/<verb>.py, one module
per verb) and every package module it imports, transitively, wherever the import stands (module
level or inside a function), plus the modules a job loads by name (the verifier families and
remedies it names, lineage/job_code.py). Three choices keep the hash exact:

* **What runs, not how it is written.** A module is hashed by its syntax tree with comments,
  docstrings (and any other bare string statement) and formatting left out, dumped field by field
  (`canonical_source`). A changed constant, default, branch, called function or import changes
  the tree, so it still reruns. Docstrings are left out knowingly: the package reads them only for
  `--help` texts and the audit's explanations, never for an output.
* **Whole modules, not reachable definitions.** Python binds names at run time: importing a module
  runs all of its top-level statements (registries filled by `update`, decorators, class bodies),
  and calls go through dicts, `getattr` and attributes of imported modules. A definition-level
  closure would have to prove which of those a job reaches; where it cannot (a checker found as
  `_REGISTRY[iid][0]`), it must take everything (no gain) or it misses an edge, and a missed edge
  is a stale result that nothing reports. A module is the smallest unit whose effect on a job is
  decidable from its imports, so the precision comes from module boundaries drawn along what jobs
  use instead: one CLI module per verb, one module per verifier family, remedies in their own
  modules.
* **Imports that never run are not followed**: those under `if TYPE_CHECKING:`. A string constant
  that names a package module (`"rlvr_support.scoring.verifiers._math_worker"`, started with
  `python -m`) is followed like an import.

`code_manifest` gives the hash of every file of a job's code, which rules record as their code
param: the `why` verb (review/rerun_reasons.py) compares it with what Snakemake recorded, to name the
files whose change reruns a job. `code_hash` is its digest (16 hex digits).

Every parse of the workflow (each `snakemake` command, dry runs included) hashes the ~200 modules the
rules run: about 1.7 s of a 9 s dry run of the smoke config on 2 cores, 2026-12-04. The result per
file (its hash and the package modules it imports) depends only on the file's text, the Python
version (the syntax tree's fields) and this module's own code, so it is kept on disk under those three
(`$RLVR_CODEHASH_CACHE`, default ~/.cache/rlvr-support/codehash; `off` turns it off): an edited file,
another Python or an edit of this module misses the cache and is parsed again.
"""

from __future__ import annotations

import ast
import functools
import hashlib
import json
import os
import sys
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1]
CACHE_ENV = "RLVR_CODEHASH_CACHE"
# what a cached summary depends on besides the file's text: the Python version and this module's code
_CACHE_KEY = f"py{sys.version.split()[0]}-{hashlib.sha256(Path(__file__).read_bytes()).hexdigest()[:16]}"


def module_files(name: str) -> list[Path]:
    """`training` -> every .py under training/ (and the package __init__ files above it);
    `cli.verbs.score` -> cli/verbs/score.py."""
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


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def _runtime_nodes(tree: ast.AST):
    """Every node of `tree` but the bodies of `if TYPE_CHECKING:` (their `else:` runs, so it is kept)."""
    todo = [tree]
    while todo:
        node = todo.pop()
        yield node
        if isinstance(node, ast.If) and _is_type_checking(node.test):
            todo += [node.test, *node.orelse]
        else:
            todo += list(ast.iter_child_nodes(node))


def imported_modules(path: Path) -> list[Path]:
    """Package modules the file `path` imports (absolute `rlvr_support.` imports, anywhere in it but
    under TYPE_CHECKING; the package uses no relative ones, which tests/test_import_graph.py checks)
    and the package modules it names as strings (a module started with `python -m`)."""
    out: list[Path] = []
    for parts in _summary(path.read_text(), str(path))[1]:
        f = _module_path(list(parts[1:]))
        if f is not None:
            out += _parent_inits(f) + [f]
    return out


@functools.lru_cache(maxsize=4096)
def _parsed(text: str, filename: str) -> tuple[str, tuple[tuple[str, ...], ...]]:
    """(canonical source, dotted names the source may import) of a module's text; cached by text, so an
    edited file is parsed again and an unchanged one once per process."""
    tree = ast.parse(text, filename=filename)
    names: list[tuple[str, ...]] = []
    for node in _runtime_nodes(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            parts = tuple(node.module.split("."))
            names += [parts] + [parts + (a.name,) for a in node.names]  # `from a import b`: b may be a module
        elif isinstance(node, ast.Import):
            names += [tuple(a.name.split(".")) for a in node.names]
        elif (isinstance(node, ast.Constant) and isinstance(node.value, str)
              and node.value.startswith(PACKAGE.name + ".") and node.value.replace(".", "_").isidentifier()):
            names.append(tuple(node.value.split(".")))
    return _dump(_Canonical().visit(tree)), tuple(n for n in names if n[0] == PACKAGE.name)


def closure(files: list[Path]) -> list[Path]:
    """`files` and every package module they import, transitively, sorted."""
    seen: set[Path] = set()
    todo = list(files)
    while todo:
        f = todo.pop()
        if f in seen:
            continue
        seen.add(f)
        todo += imported_modules(f)
    return sorted(seen)


def files_of(*names: str) -> tuple[Path, ...]:
    """Every file the hash of `names` covers."""
    return tuple(closure([f for name in sorted(set(names)) for f in module_files(name)]))


class _Canonical(ast.NodeTransformer):
    """Drops what does not run: docstrings and other bare string statements (`x = 1` then `"doc of x"`).
    A body left empty becomes `pass`, as a body of only a docstring behaves."""

    def generic_visit(self, node):
        super().generic_visit(node)
        for field in ("body", "orelse", "finalbody"):
            body = getattr(node, field, None)
            if not isinstance(body, list) or not body or not all(isinstance(s, ast.stmt) for s in body):
                continue
            kept = [s for s in body if not (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant)
                                            and isinstance(s.value.value, str))]
            if not kept and field == "body" and not isinstance(node, ast.Module):
                kept = [ast.Pass()]
            setattr(node, field, kept)
        return node


def _dump(node) -> str:
    """The tree as text, field by field, without positions; empty and None fields left out (so the
    fields a newer Python adds, such as `type_params`, do not change the text of the same source),
    and a string's `kind` (the `u` of u"...") too."""
    if isinstance(node, ast.AST):
        fields = [(k, v) for k, v in ast.iter_fields(node)
                  if v is not None and v != [] and not (isinstance(node, ast.Constant) and k == "kind")]
        return f"{type(node).__name__}(" + ",".join(f"{k}={_dump(v)}" for k, v in fields) + ")"
    if isinstance(node, list):
        return "[" + ",".join(_dump(x) for x in node) + "]"
    return repr(node)


def canonical_source(path: Path) -> str:
    """What of a module runs: its syntax tree without comments, docstrings and formatting."""
    return _parsed(path.read_text(), str(path))[0]


def file_hash(path: Path) -> str:
    """sha256 (16 hex digits) of the file's canonical source."""
    return _summary(path.read_text(), str(path))[0]


def _cache_dir() -> Path | None:
    where = os.environ.get(CACHE_ENV, "")
    if where == "off":
        return None
    if not where:
        where = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "rlvr-support" / "codehash"
    return Path(where) / _CACHE_KEY


@functools.lru_cache(maxsize=4096)
def _summary(text: str, filename: str) -> tuple[str, tuple[tuple[str, ...], ...]]:
    """(file_hash, the package names it may import) of a module's text: from the disk cache when a run before
    parsed the same text under the same Python and codehash.py, else parsed (and stored; a cache that cannot be
    read or written is only slower)."""
    folder = _cache_dir()
    entry = folder / f"{hashlib.sha256(text.encode()).hexdigest()}.json" if folder is not None else None
    if entry is not None:
        try:
            data = json.loads(entry.read_text())
            return str(data["hash"]), tuple(tuple(str(p) for p in n) for n in data["names"])
        except (OSError, ValueError, KeyError, TypeError):
            pass
    canonical, names = _parsed(text, filename)
    out = (hashlib.sha256(canonical.encode()).hexdigest()[:16], names)
    if entry is not None:
        try:  # write then rename: a concurrent reader sees the whole entry or none
            folder.mkdir(parents=True, exist_ok=True)
            tmp = entry.with_name(f".{entry.name}.{os.getpid()}.tmp")
            tmp.write_text(json.dumps({"hash": out[0], "names": [list(n) for n in names]}))
            os.replace(tmp, entry)
        except OSError:
            pass
    return out


def code_manifest(*names: str) -> dict[str, str]:
    """{file relative to the package: file_hash} of every file the hash of `names` covers, in path
    order (a rule's code param: a changed value names the files that changed, review/rerun_reasons.py)."""
    return {path.relative_to(PACKAGE).as_posix(): file_hash(path) for path in files_of(*names)}


def manifest_digest(manifest: dict[str, str]) -> str:
    """sha256 (16 hex digits) over a code manifest's paths and file hashes."""
    h = hashlib.sha256()
    for rel, digest in manifest.items():
        h.update(f"{rel}\0{digest}\0".encode())
    return h.hexdigest()[:16]


def code_hash(*names: str) -> str:
    """One digest of the code of `names`: its files' paths and canonical sources."""
    return manifest_digest(code_manifest(*names))
