"""codehash: a rule's code hash covers the folders it names and every module they import
(wherever the import stands), and every rule names the code its verb runs."""

from __future__ import annotations

import ast
import inspect
import re
import shutil
from pathlib import Path

import pytest

from rlvr_support.cli.main import build_parser
from rlvr_support.lineage import codehash

RULES = Path(__file__).resolve().parents[1] / "workflow" / "rules"


@pytest.fixture
def pkg(tmp_path, monkeypatch):
    root = tmp_path / "rlvr_support"
    shutil.copytree(codehash.PACKAGE, root, ignore=shutil.ignore_patterns("__pycache__"))
    monkeypatch.setattr(codehash, "PACKAGE", root)
    return root


def _rel(files, root):
    return {f.relative_to(root).as_posix() for f in files}


def test_closure_follows_imports_inside_functions(pkg):
    files = _rel(codehash.files_of("analysis.opening_intervention"), pkg)
    # intervention_run imports sampling and scoring inside the function
    assert {"sampling/backends.py", "sampling/jobs.py", "scoring/score.py", "metrics/openings.py",
            "storage/atomic.py", "analysis/__init__.py"} <= files
    assert not any(f.startswith(("training/", "figures/", "cli/")) for f in files)


def test_cli_modules_are_hashed_without_pulling_in_every_verb(pkg):
    files = _rel(codehash.files_of("cli.main"), pkg)
    assert {"cli/main.py", "cli/args.py"} <= files
    assert not any(f.startswith(("training/", "sampling/", "analysis/")) for f in files)


def test_a_folder_name_covers_the_whole_folder(pkg):
    files = _rel(codehash.files_of("sampling"), pkg)
    assert {"sampling/vllm_backend.py", "sampling/routed.py", "sampling/fast.py"} <= files


def test_editing_a_helper_changes_the_hash_of_its_importers_only(pkg):
    sample, train, table = (codehash.code_hash("sampling"), codehash.code_hash("training"),
                            codehash.code_hash("analysis.passk_table"))
    boot = pkg / "metrics/bootstrap.py"
    boot.write_text(boot.read_text() + "\n# edit\n")
    assert codehash.code_hash("analysis.passk_table") != table
    assert (codehash.code_hash("sampling"), codehash.code_hash("training")) == (sample, train)
    vllm = pkg / "sampling/vllm_backend.py"
    vllm.write_text(vllm.read_text() + "\n# edit\n")
    assert codehash.code_hash("sampling") != sample
    assert codehash.code_hash("training") == train, "training does not run the vLLM backend"
    atomic = pkg / "storage/atomic.py"
    atomic.write_text(atomic.read_text() + "\n# edit\n")
    assert codehash.code_hash("training") != train, "training writes through storage/atomic.py"


def _rule_code_names() -> dict[str, tuple[str, list[str]]]:
    """{rule: (verb, names given to get_code)} from the rule files."""
    out = {}
    for f in sorted(RULES.glob("*.smk")):
        for block in re.split(r"^\s*rule (?=\w+:)", f.read_text(), flags=re.M)[1:]:
            name = block.split(":", 1)[0]
            code = re.search(r"code=get_code\(([^)]*)\)", block)
            verb = re.search(r'(?:python -m rlvr_support|\{params\.launcher\}) ([a-z-]+)', block)
            if code and verb:
                out[name] = (verb.group(1), [s.strip().strip('"') for s in code.group(1).split(",")])
    return out


def _verb_functions() -> dict[str, object]:
    parser = build_parser()
    sub = next(a for a in parser._actions if a.__class__.__name__ == "_SubParsersAction")
    return {verb: p.get_default("fn") for verb, p in sub.choices.items()}


def _imported_files(fn, seen=None) -> set[Path]:
    """Package modules a verb function imports, and those of the helpers of its CLI module it calls."""
    seen = set() if seen is None else seen
    seen.add(fn)
    tree = ast.parse(inspect.getsource(fn).lstrip())
    module = inspect.getmodule(fn)
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
            helper = getattr(module, node.func.id, None)
            if inspect.isfunction(helper) and helper.__module__ == module.__name__ and helper not in seen:
                out |= _imported_files(helper, seen)
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("rlvr_support."):
            for parts in [node.module.split(".")] + [node.module.split(".") + [a.name] for a in node.names]:
                f = codehash._module_path(parts[1:])
                if f is not None:
                    out.add(f)
    return out


def test_every_rule_names_the_code_its_verb_imports():
    rules, verbs = _rule_code_names(), _verb_functions()
    assert len(rules) >= 30, "the rule files changed shape: the parser of this test missed rules"
    for rule, (verb, names) in rules.items():
        covered = set(codehash.files_of(*names))
        missing = {f for f in _imported_files(verbs[verb]) if f not in covered}
        assert not missing, f"rule {rule}: verb {verb} imports {sorted(map(str, missing))}, not covered by {names}"
        assert any(n.startswith("cli.") for n in names), f"rule {rule}: name the CLI module of verb {verb}"
