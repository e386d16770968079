"""The package's import graph: folders in layers, lower layers never import upper ones, no cycles.

Every import counts, also one inside a function (that is how the CLI loads a verb's code, and
how lineage/codehash.py follows a rule's code)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from rlvr_support.lineage.codehash import PACKAGE

# lowest first: a folder may import its own modules and those of folders before it
LAYERS = ["storage", "config", "metrics", "scoring", "data", "models", "sampling", "imports", "training",
          "lineage",   # per-job provenance: sidecars, input integrity, code hashes, the study tree
          "analysis",  # table builders: read run files, write tables; load no model
          "probes",    # analyses that load and run models (JS, perplexity, interventions, base metrics)
          "planning",  # the plan before a run: shapes, GPUs, memory, throughput, the pilot, the budget
          "figures",
          "review",    # tools a user runs on a results tree: audit, compare, why, the results page
          "cli"]
LOWER = ("metrics", "scoring", "models")
UPPER = ("analysis", "probes", "figures", "review", "cli")


def _modules() -> dict[str, Path]:
    out = {}
    for f in sorted(PACKAGE.rglob("*.py")):
        parts = list(f.relative_to(PACKAGE.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        out[".".join(parts)] = f
    return out


MODULES = _modules()


def _imports(path: Path) -> set[str]:
    """Package modules imported anywhere in `path` (`from a import b` counts b when b is a module)."""
    out = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module:
            names = [node.module] + [f"{node.module}.{a.name}" for a in node.names]
        elif isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        else:
            continue
        out |= {n for n in names if n in MODULES}
    return out


GRAPH = {m: _imports(f) - {m} for m, f in MODULES.items()}


def _folder(module: str) -> str | None:
    parts = module.split(".")
    return parts[1] if len(parts) > 2 or (len(parts) == 2 and (PACKAGE / parts[1]).is_dir()) else None


def test_every_folder_has_a_layer():
    folders = {d.name for d in PACKAGE.iterdir() if d.is_dir() and (d / "__init__.py").exists()}
    assert folders == set(LAYERS)


def test_no_relative_imports():
    rel = [(m, n.module) for m, f in MODULES.items() for n in ast.walk(ast.parse(f.read_text()))
           if isinstance(n, ast.ImportFrom) and n.level]
    assert not rel, f"relative imports (codehash follows absolute ones): {rel}"


def test_no_folder_imports_a_folder_above_it():
    bad = []
    for m, deps in GRAPH.items():
        src = _folder(m)
        for d in deps:
            dst = _folder(d)
            if src and dst and LAYERS.index(dst) > LAYERS.index(src):
                bad.append(f"{m} -> {d}")
    assert not bad, "upward imports:\n" + "\n".join(bad)


@pytest.mark.parametrize("lower", LOWER)
def test_lower_layers_import_nothing_from_the_upper_ones(lower):
    bad = [f"{m} -> {d}" for m, deps in GRAPH.items() if _folder(m) == lower for d in deps if _folder(d) in UPPER]
    assert not bad, bad


def test_no_import_cycles():
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    path: list[str] = []

    def visit(m):
        state[m] = 1
        path.append(m)
        for d in sorted(GRAPH[m]):
            if state.get(d) == 1:
                cycle = path[path.index(d):] + [d]
                raise AssertionError("import cycle: " + " -> ".join(cycle))
            if d not in state:
                visit(d)
        path.pop()
        state[m] = 2

    for m in sorted(GRAPH):
        if m not in state:
            visit(m)


def test_the_graph_sees_imports_inside_functions():
    # sampling/jobs.py's routed and vLLM paths, the probes' model loading: a test that found no
    # edges would pass whatever the package did
    assert "rlvr_support.sampling.jobs" in GRAPH["rlvr_support.probes.opening_intervention"]
    assert "rlvr_support.sampling.vllm_backend" in GRAPH["rlvr_support.sampling.backends"]
