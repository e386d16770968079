"""The `imports:` block and an imported base (config/imports.py): what validation refuses before any job."""

from __future__ import annotations

import copy

import pytest
import yaml

from conftest import SMOKE_CONFIG
from rlvr_support.config.imports import (ImportConfigError, check_import_files, import_files,
                                         imports_world_config, study_benchmarks)
from rlvr_support.config.validate import ConfigError, validate_config

SMOKE = yaml.safe_load(SMOKE_CONFIG.read_text())
EVAL_SETS = SMOKE["eval_sets"]


def entry(folder: str = "files") -> dict:
    return {"eval_sets": {e: {"format": "plain_jsonl", "files": [f"{folder}/{e}*.jsonl"],
                              "fields": {"prompt": "q", "response": "r"}} for e in EVAL_SETS}}


@pytest.fixture
def files(tmp_path, monkeypatch):
    """A working directory with one source file per eval set (the globs of `entry` match them)."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "files").mkdir()
    for e in EVAL_SETS:
        for part in ("b", "a"):
            (tmp_path / "files" / f"{e}-{part}.jsonl").write_text('{"q": "x", "r": "y"}\n')
    return tmp_path


def mixed(**imports) -> dict:
    cfg = copy.deepcopy(SMOKE)
    cfg["imports"] = imports
    return cfg


def imported_only() -> dict:
    cfg = {k: copy.deepcopy(SMOKE[k]) for k in ("study", "sampling", "eval_sets", "scoring", "resources")}
    cfg["sampling"].pop("routing")  # the smoke config routes one of its chains; this study trains none
    cfg.update(world={"kind": "imports", "seed": 0}, chains=[], base={"kind": "import", **entry()},
               imports={"rl": entry()}, analysis={"bootstrap": 10, "ci": 0.9, "seed": 0})
    return cfg


def test_a_valid_import_passes_and_its_globs_expand_sorted(files):
    cfg = mixed(lab=entry())
    validate_config(cfg)
    assert import_files(cfg, "lab", "math") == ["files/math-a.jsonl", "files/math-b.jsonl"]


@pytest.mark.parametrize("edit, message", [
    (lambda c: c["imports"].update({"math": entry()}), "imports.math: cannot name an imported label: the name reads as a chain"),
    (lambda c: c["imports"].update({"base": entry()}), "imports.base: cannot name an imported label"),
    (lambda c: c["imports"]["lab"]["eval_sets"].pop("joint"), "imports.lab.eval_sets: joint missing"),
    (lambda c: c["analysis"]["large_k"].update(checkpoints=["lab"]), "analysis.large_k.checkpoints: lab is imported"),
    (lambda c: c["imports"]["lab"]["eval_sets"]["math"].update(format="lm-eval"), "format"),
    (lambda c: c["imports"]["lab"]["eval_sets"]["math"].update(match="fuzzy"), "match"),
])
def test_a_bad_import_is_a_config_error_naming_the_key(files, edit, message):
    cfg = mixed(lab=entry())
    edit(cfg)
    with pytest.raises(ConfigError, match=message.replace("(", r"\(").replace("*", r"\*").replace(".", r"\.")):
        validate_config(cfg)


def test_a_glob_that_matches_nothing_in_the_working_directory_names_the_key(files):
    cfg = mixed(lab=entry())
    cfg["imports"]["lab"]["eval_sets"]["if"]["files"] = ["nowhere/*.jsonl"]
    validate_config(cfg)  # the files are checked where the study runs (common.smk), not here
    with pytest.raises(ImportConfigError, match=r"imports\.lab\.eval_sets\.if\.files: 'nowhere/\*\.jsonl' matches no file"):
        check_import_files(cfg)
    check_import_files(mixed(lab=entry()))


def test_a_study_of_imports_only_is_valid_and_its_benchmarks_are_its_bases(files):
    cfg = imported_only()
    validate_config(cfg)
    assert study_benchmarks(cfg) == {e: [e] for e in EVAL_SETS}
    cfg["base"]["eval_sets"]["math"]["benchmark"] = "math500"
    assert study_benchmarks(cfg)["math"] == ["math500"]
    assert imports_world_config(cfg)["trajectory"]["n"] == 1 and "trajectory" not in cfg


@pytest.mark.parametrize("edit, message", [
    (lambda c: c.update(chains=["math"], rl=copy.deepcopy(SMOKE["rl"])), "chains: an imported base has no weights"),
    (lambda c: c.update(world=copy.deepcopy(SMOKE["world"])), "base.kind / world.kind"),
    (lambda c: c["base"]["eval_sets"].pop("if"), "base.eval_sets: if missing"),
    (lambda c: c["analysis"].update(large_k={"checkpoints": ["base"], "prompts": 2, "n": 8}), "analysis.large_k"),
])
def test_an_imported_base_refuses_what_needs_a_model(files, edit, message):
    cfg = imported_only()
    edit(cfg)
    with pytest.raises(ConfigError, match=message.replace(".", r"\.")):
        validate_config(cfg)
