"""Hub revisions: an unpinned paper config is named before any job, and the commit each hub
dataset resolved to is recorded in the data job's provenance sidecar."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

from rlvr_support.config.revisions import revision_warning, unpinned_revisions
from rlvr_support.config.validate import ConfigError, load_config, validate_config

REPO = Path(__file__).resolve().parents[1]
PAPER_CONFIGS = ["paper.yaml", "paper-limit.yaml", "paper-leash.yaml", "leash-prorl.yaml", "limit-simplerl.yaml"]
COMMIT = "0123456789abcdef0123456789abcdef01234567"


def _hub_entries(cfg: dict) -> list[dict]:
    models = [*cfg.get("models", {}).values(), *cfg.get("checkpoints", {}).values()]
    return [m for m in models if m["kind"] == "hf"] + [s for t in cfg["world"]["tasks"].values() for s in t if "hub" in s]


@pytest.mark.parametrize("name", PAPER_CONFIGS)
def test_an_unpinned_paper_config_names_every_hub_source(name):
    cfg = load_config(REPO / "configs" / name)
    lines = unpinned_revisions(cfg)
    assert len(lines) == len(_hub_entries(cfg)) > 0
    assert any("world.tasks.math[" in line for line in lines)
    assert any(line.startswith(("models.", "checkpoints.")) for line in lines)
    warning = revision_warning(cfg)
    assert warning.startswith("WARNING: not pinned") and "HuggingFaceH4/aime_2024" in warning
    for entry in _hub_entries(cfg):
        entry["revision"] = COMMIT
    assert unpinned_revisions(cfg) == [] and revision_warning(cfg) is None


def test_a_branch_is_not_a_pin_and_require_refuses_to_start():
    cfg = load_config(REPO / "configs" / "paper-leash.yaml")
    for entry in _hub_entries(cfg):
        entry["revision"] = COMMIT
    cfg["models"]["r1-distill-1.5b"]["revision"] = "main"
    assert unpinned_revisions(cfg) == [
        "models.r1-distill-1.5b (deepseek-ai/DeepSeek-R1-Distill-Qwen-1.5B): revision 'main' is a branch or tag, not a commit"]
    strict = copy.deepcopy(cfg) | {"revisions": "require"}
    with pytest.raises(ConfigError, match="r1-distill-1.5b"):
        validate_config(strict)
    strict["models"]["r1-distill-1.5b"]["revision"] = COMMIT
    validate_config(strict)  # everything pinned: starts


def test_the_toy_config_has_nothing_to_pin():
    assert unpinned_revisions(load_config(REPO / "config.yaml")) == []


def test_the_data_job_records_the_commit_a_hub_dataset_resolved_to(tmp_path, monkeypatch):
    import datasets

    from rlvr_support.cli.main import main

    # datasets caches a hub dataset's rows in a folder named by the commit it resolved to
    cached = tmp_path / "cache" / "openai___gsm8k" / "main" / "0.0.0" / COMMIT / "gsm8k-test.arrow"
    cached.parent.mkdir(parents=True)
    rows = [json.loads(line) for line in (REPO / "tests/data/sources/gsm8k_test.jsonl").read_text().splitlines()]
    datasets.Dataset.from_list(rows).save_to_disk(tmp_path / "saved")
    Path(next((tmp_path / "saved").glob("*.arrow"))).rename(cached)
    asked = []

    def fake_load_dataset(name, config=None, split=None, revision=None):
        asked.append(revision)
        return datasets.Dataset.from_file(str(cached))

    monkeypatch.setattr(datasets, "load_dataset", fake_load_dataset)
    monkeypatch.chdir(tmp_path)
    src = {"format": "gsm8k", "hub": "openai/gsm8k", "config": "main", "hf_split": "test", "split": "eval"}
    assert main(["data-sources", "--task", "math", "--sources", json.dumps([src]), "--out", "math.jsonl"]) == 0
    assert asked == [None]  # unpinned: the hub's main branch of the day
    sidecar = json.loads((tmp_path / "math.jsonl.prov.json").read_text())
    (resolved,) = sidecar["resolved"]["hub_sources"]
    assert resolved["hub"] == "openai/gsm8k" and resolved["revision"] is None and resolved["commit"] == COMMIT
