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


# ---- `model:` and `tokenizer:` of an imported label (config/import_models.py)

def with_model(tmp_path, **model) -> dict:
    from test_external_checkpoints import model_folder

    cfg = mixed(lab=entry())
    cfg["imports"]["lab"]["model"] = {"kind": "local", "path": str(model_folder(tmp_path / "weights")), **model}
    return cfg


def test_a_label_with_a_model_is_an_external_checkpoint_of_the_base_that_model_analyses_may_name(files):
    from rlvr_support.config.import_models import import_models

    cfg = with_model(files)
    cfg["analysis"]["large_k"]["checkpoints"] = ["base", "lab"]
    cfg["analysis"]["single_token"]["checkpoints"] = ["if", "lab"]
    validate_config(cfg)
    assert import_models(cfg) == {"lab": {**cfg["imports"]["lab"]["model"], "base": "base"}}
    assert import_models(mixed(lab=entry())) == {}


def tokenizer_folder(path):
    path.mkdir(parents=True, exist_ok=True)
    (path / "tokenizer_config.json").write_text("{}")
    return str(path)


@pytest.mark.parametrize("edit, message", [
    (lambda c, t: c["imports"]["lab"]["model"].update(path=str(t / "nowhere")),
     "imports.lab.model.path: cannot read the checkpoint: "),
    (lambda c, t: c["imports"]["lab"]["model"].update(revision="main"),
     "imports.lab.model.revision: only a hub checkpoint (kind: hf) has a revision"),
    (lambda c, t: c["imports"]["lab"]["model"].update(kind="hf", path="not a hub id"),
     "imports.lab.model.path: cannot read the checkpoint: 'not a hub id' is neither"),
    (lambda c, t: c["imports"]["lab"]["model"].update(base="base"), "imports.lab.model.base: unknown key"),
    (lambda c, t: c["imports"]["lab"].update(tokenizer={"path": tokenizer_folder(t / "tok")}),
     "imports.lab.tokenizer: the label's `model` brings its own tokenizer"),
    (lambda c, t: (c["imports"].update(other=entry()), c["analysis"]["large_k"].update(checkpoints=["base", "other"])),
     "analysis.large_k.checkpoints: other is imported without a model"),
    (lambda c, t: (c["imports"].update(other=entry()), c["analysis"]["single_token"].update(checkpoints=["other"])),
     "analysis.single_token.checkpoints: other is imported without a model"),
    (lambda c, t: c["trajectory"].update(chains=["lab"]), "trajectory.chains: lab is imported"),
])
def test_a_bad_model_or_a_model_analysis_of_a_label_without_one_is_named(files, edit, message):
    cfg = with_model(files)
    edit(cfg, files)
    with pytest.raises(ConfigError, match=message.replace("(", r"\(").replace(")", r"\)").replace(".", r"\.")):
        validate_config(cfg)


def test_a_labels_tokenizer_is_a_folder_or_a_hub_id(files):
    from rlvr_support.config.import_models import import_tokenizers

    cfg = mixed(lab=entry())
    cfg["imports"]["lab"]["tokenizer"] = {"path": tokenizer_folder(files / "tok")}
    validate_config(cfg)
    assert import_tokenizers(cfg) == {"lab": {"path": str(files / "tok")}}
    cfg["imports"]["lab"]["tokenizer"] = {"path": "HuggingFaceTB/SmolLM2-135M-Instruct", "revision": "main"}
    validate_config(cfg)  # a hub id: fetched by its local rule on the submit host
    for tokenizer, message in (
            ({"path": str(files / "files")}, r"imports\.lab\.tokenizer\.path: cannot read the tokenizer: .* has no "
                                             r"tokenizer files"),
            ({"path": str(files / "nowhere")}, r"imports\.lab\.tokenizer\.path: .* does not exist"),
            ({"path": "a b"}, r"imports\.lab\.tokenizer\.path: .* neither a tokenizer folder nor a hub id"),
            ({"path": tokenizer_folder(files / "tok"), "revision": "main"},
             r"imports\.lab\.tokenizer\.revision: only a hub tokenizer"),
            ({"revision": "main"}, r"imports\.lab\.tokenizer\.path: missing required key")):
        cfg["imports"]["lab"]["tokenizer"] = tokenizer
        with pytest.raises(ConfigError, match=message):
            validate_config(cfg)


def test_a_model_beside_an_imported_base_is_refused(files):
    from test_external_checkpoints import model_folder

    cfg = imported_only()
    cfg["imports"]["rl"]["model"] = {"kind": "local", "path": str(model_folder(files / "weights"))}
    with pytest.raises(ConfigError, match=r"imports\.rl\.model: the study's base is imported"):
        validate_config(cfg)
    cfg["imports"]["rl"].pop("model")
    cfg["imports"]["rl"]["tokenizer"] = {"path": tokenizer_folder(files / "tok")}
    validate_config(cfg)  # a tokenizer counts its openings in tokens, on both sides: no model needed


def test_an_unpinned_hub_model_or_tokenizer_of_an_import_is_named():
    from rlvr_support.config.revisions import unpinned_revisions

    cfg = mixed(lab=entry(), other=entry())
    cfg["imports"]["lab"]["model"] = {"kind": "hf", "path": "org/rl-model"}
    cfg["imports"]["other"]["tokenizer"] = {"path": "org/base-model", "revision": "v1"}
    found = unpinned_revisions(cfg)
    assert "imports.lab.model (org/rl-model): no revision" in found
    assert "imports.other.tokenizer (org/base-model): revision 'v1' is a branch or tag, not a commit" in found
    cfg["imports"]["lab"]["model"]["revision"] = "0" * 40
    assert not any(line.startswith("imports.lab") for line in unpinned_revisions(cfg))


def test_a_labels_base_must_be_another_label_or_an_external_checkpoint():
    assert validate_config(mixed(sft=entry(), rl={**entry(), "base": "sft"}))["imports"]["rl"]["base"] == "sft"
    for other, why in (("rl", "'rl' is not another imported label"), ("nowhere", "'nowhere' is not another")):
        with pytest.raises(ConfigError, match=f"imports.rl.base: {why}"):
            validate_config(mixed(sft=entry(), rl={**entry(), "base": other}))
