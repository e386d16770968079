"""codehash: a rule's code hash covers the modules it names and what they import at module level."""

from __future__ import annotations

import shutil

import pytest

from rlvr_support import codehash


@pytest.fixture
def pkg(tmp_path, monkeypatch):
    root = tmp_path / "rlvr_support"
    shutil.copytree(codehash.PACKAGE, root, ignore=shutil.ignore_patterns("__pycache__"))
    monkeypatch.setattr(codehash, "PACKAGE", root)
    return root


def _rel(files, root):
    return {f.relative_to(root).as_posix() for f in files}


def test_closure_follows_module_level_imports(pkg):
    files = _rel(codehash.closure(codehash.module_files("figures.passk_curves")), pkg)
    assert {"figures/passk_curves.py", "figures/style.py", "figures/__init__.py", "analysis/passk_table.py",
            "analysis/__init__.py", "atomic.py", "metrics/passk.py"} <= files
    assert "grpo.py" not in files and "cli.py" not in files


def test_cli_does_not_pull_in_every_verb(pkg):
    files = _rel(codehash.closure(codehash.module_files("cli")), pkg)
    assert "grpo.py" not in files and "sample.py" not in files


def test_editing_an_imported_helper_changes_the_hash_of_its_importers_only(pkg):
    fig, train = codehash.code_hash("figures.passk_curves"), codehash.code_hash("pretrain")
    style = pkg / "figures/style.py"
    style.write_text(style.read_text() + "\n# edit\n")
    assert codehash.code_hash("figures.passk_curves") != fig
    assert codehash.code_hash("pretrain") == train
    atomic = pkg / "atomic.py"
    atomic.write_text(atomic.read_text() + "\n# edit\n")
    assert codehash.code_hash("pretrain") != train, "pretrain writes through atomic.py: its hash must follow it"
