"""Imported samples in a Hugging Face dataset repo (`hub:` entries, imports/hub_files.py): the fetch's manifest,
its errors, the import that reads through it, the config checks, and the plan of `prefetch`.

No network: huggingface_hub.snapshot_download is replaced by a fake that lays the repo's files out as the
Hugging Face cache does (blobs, and a snapshot folder named by the commit whose files link to them)."""

from __future__ import annotations

import copy
import hashlib
import json
import os
import shutil
from pathlib import Path

import pytest
import yaml

from conftest import REPO, SMOKE_CONFIG, run_snakemake
from rlvr_support.cli.main import OFFLINE_ENV, main
from rlvr_support.config.imports import ImportConfigError, check_import_files, hub_imports
from rlvr_support.config.revisions import unpinned_revisions
from rlvr_support.config.validate import ConfigError, validate_config

FIXTURES = REPO / "tests" / "data" / "imports"
LIGHTEVAL = next((FIXTURES / "lighteval").glob("details_*.parquet"))  # its name holds lighteval's `|`
VERL = FIXTURES / "verl" / "validation" / "0.jsonl"
COMMIT = "0123456789abcdef0123456789abcdef01234567"
REPO_ID = "some-org/details_smollm2"
# the repo as lighteval pushes it, plus files no entry asks for
REPO_FILES = {f"details/smollm2/2026-12-06/{LIGHTEVAL.name}": LIGHTEVAL,
              "results/smollm2/results_2026-12-06.json": FIXTURES / "lighteval" / "results_2026-12-06T03-02-03.577697.json",
              "verl/validation/0.jsonl": VERL}
MATH_DETAILS = "details/**/details_*math*.parquet"


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.fixture
def hub(tmp_path, monkeypatch):
    """A fake hub: snapshot_download puts every file of REPO_FILES into a cache snapshot named by COMMIT (a snapshot
    folder holds what earlier fetches at that commit brought too) and returns it; its calls are recorded."""
    import huggingface_hub

    calls = []

    def fake_snapshot_download(repo_id, **kwargs):
        calls.append({"repo_id": repo_id, **kwargs})
        if fake_snapshot_download.error is not None:
            raise fake_snapshot_download.error
        root = tmp_path / "hf-cache" / f"datasets--{repo_id.replace('/', '--')}"
        snapshot = root / "snapshots" / COMMIT
        for rel, src in REPO_FILES.items():
            blob = root / "blobs" / sha256(src)
            blob.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(src, blob)
            link = snapshot / rel
            link.parent.mkdir(parents=True, exist_ok=True)
            if not link.is_symlink():
                link.symlink_to(os.path.relpath(blob, link.parent))
        return str(snapshot)

    fake_snapshot_download.error = None
    fake_snapshot_download.calls = calls
    monkeypatch.setattr(huggingface_hub, "snapshot_download", fake_snapshot_download)
    monkeypatch.chdir(tmp_path)
    for var in OFFLINE_ENV:  # main() sets them for every verb but the downloads; keep them to this test
        monkeypatch.setenv(var, os.environ.get(var, "1"))
    return fake_snapshot_download


def fetch(entry: dict, out: str = "results/imports/lighteval/math.hub.json") -> int:
    return main(["import-hub-files", "--hub", json.dumps(entry), "--out", out])


# ---- the fetch and its manifest


def test_the_fetch_lists_the_matching_files_with_their_size_and_sha256(hub, tmp_path):
    entry = {"repo": REPO_ID, "revision": COMMIT, "files": [MATH_DETAILS]}
    assert fetch(entry) == 0
    assert hub.calls == [{"repo_id": REPO_ID, "repo_type": "dataset", "revision": COMMIT,
                          "allow_patterns": [MATH_DETAILS]}]
    manifest = json.loads((tmp_path / "results/imports/lighteval/math.hub.json").read_text())
    assert {k: manifest[k] for k in ("repo", "repo_type", "revision", "commit", "patterns")} == {
        "repo": REPO_ID, "repo_type": "dataset", "revision": COMMIT, "commit": COMMIT, "patterns": [MATH_DETAILS]}
    # only the file the pattern matches, though the snapshot holds the repo's others too
    (listed,) = manifest["files"]
    assert listed["repo_path"] == f"details/smollm2/2026-12-06/{LIGHTEVAL.name}"
    assert Path(listed["path"]).read_bytes() == LIGHTEVAL.read_bytes()
    assert listed["bytes"] == LIGHTEVAL.stat().st_size and listed["sha256"] == sha256(LIGHTEVAL)
    sidecar = json.loads((tmp_path / "results/imports/lighteval/math.hub.json.prov.json").read_text())
    assert sidecar["verb"] == "import-hub-files" and sidecar["rule"] == "import_hub_files"
    assert sidecar["resolved"]["hub"] == {"repo": REPO_ID, "revision": COMMIT, "commit": COMMIT}


def test_a_branch_revision_is_named_in_the_log_with_the_commit_it_gave(hub, capsys):
    assert fetch({"repo": REPO_ID, "revision": "main", "files": [MATH_DETAILS]}) == 0
    out = capsys.readouterr().out
    assert f"WARNING: {REPO_ID}: revision 'main' is a branch or tag" in out and f"commit {COMMIT}" in out
    assert fetch({"repo": REPO_ID, "revision": COMMIT, "files": [MATH_DETAILS]}) == 0
    assert "WARNING" not in capsys.readouterr().out  # a commit pins it: nothing to warn about


def test_patterns_that_match_nothing_are_an_error_naming_repo_revision_and_patterns(hub, tmp_path, capsys):
    assert fetch({"repo": REPO_ID, "revision": "v1.0", "files": ["details/**/details_*gsm8k*.parquet"]}) == 1
    err = capsys.readouterr().err
    assert f"hub dataset {REPO_ID} at revision v1.0: no file matches ['details/**/details_*gsm8k*.parquet']" in err
    assert not (tmp_path / "results/imports/lighteval/math.hub.json").exists()


def test_a_hub_failure_names_the_repo(hub, tmp_path, capsys):
    hub.error = ConnectionError("offline")
    assert fetch({"repo": REPO_ID, "revision": COMMIT, "files": [MATH_DETAILS]}) == 1
    err = capsys.readouterr().err
    assert f"hub dataset {REPO_ID} (revision {COMMIT}): cannot fetch" in err and "ConnectionError: offline" in err
    assert not (tmp_path / "results/imports/lighteval/math.hub.json").exists()


# ---- the import reads through the manifest


def import_base(manifest: str) -> int:
    return main(["import-samples", "--spec", json.dumps({"format": "verl", "task": "math", "benchmark": "math"}),
                 "--files-manifest", manifest, "--out", "results/samples/base/math.parquet",
                 "--out-prompts", "results/data/prompts/math.jsonl",
                 "--out-source", "results/imports/base/math.source.parquet"])


def test_the_import_reads_the_listed_files_and_its_lineage_ends_at_the_manifest(hub, tmp_path, capsys):
    import pandas as pd

    manifest = "results/imports/base/math.hub.json"
    assert fetch({"repo": REPO_ID, "revision": COMMIT, "files": ["verl/**/0.jsonl"]}, out=manifest) == 0
    assert import_base(manifest) == 0
    samples = pd.read_parquet(tmp_path / "results/samples/base/math.parquet")
    assert len(samples) == sum(1 for _ in VERL.open())  # verl: one row per response
    sidecar = json.loads((tmp_path / "results/samples/base/math.parquet.prov.json").read_text())
    # the job's one input is the manifest, recorded by its own sidecar; the manifest holds the files' sha256
    assert [(i["path"], i["sha256"], i["sidecar"]) for i in sidecar["inputs"]] == [
        (manifest, sha256(tmp_path / manifest), f"{manifest}.prov.json")]
    listed = json.loads((tmp_path / manifest).read_text())["files"]
    assert [f["sha256"] for f in listed] == [sha256(VERL)]
    capsys.readouterr()
    assert main(["audit", "results/samples/base/math.parquet"]) == 0
    assert f"{manifest}  sha256 {sha256(tmp_path / manifest)[:12]} ok" in capsys.readouterr().out
    # a cache file that changed after the fetch stops the import before it reads anything
    blob = Path(listed[0]["path"]).resolve()
    blob.write_text(blob.read_text().replace('"gts": "12"', '"gts": "13"', 1))
    capsys.readouterr()
    (tmp_path / "results/samples/base/math.parquet").unlink()
    assert import_base(manifest) == 1
    assert "no longer matches the sha256 the fetch recorded" in capsys.readouterr().err
    assert not (tmp_path / "results/samples/base/math.parquet").exists()


# ---- the config


SMOKE = yaml.safe_load(SMOKE_CONFIG.read_text())
HUB_ENTRY = {"format": "lighteval", "hub": {"repo": REPO_ID, "revision": COMMIT, "files": [MATH_DETAILS]}}


def mixed_with(math_entry: dict) -> dict:
    """The smoke study with one imported label: `math_entry` for math, local files for the other eval sets."""
    cfg = copy.deepcopy(SMOKE)
    local = {"format": "plain_jsonl", "files": ["files/x.jsonl"], "fields": {"prompt": "q", "response": "r"}}
    cfg["imports"] = {"lab": {"eval_sets": {e: copy.deepcopy(math_entry if e == "math" else local)
                                            for e in cfg["eval_sets"]}}}
    return cfg


@pytest.mark.parametrize("entry, message", [
    ({**HUB_ENTRY, "files": ["details.parquet"]}, "imports.lab.eval_sets.math: give exactly one of `files` (local paths or globs) and `hub`"),
    ({"format": "lighteval"}, "imports.lab.eval_sets.math: no files: give `files` (local paths or globs) or `hub`"),
    ({**HUB_ENTRY, "hub": {"repo": REPO_ID, "files": [MATH_DETAILS]}}, "imports.lab.eval_sets.math.hub.revision: missing required key"),
    ({**HUB_ENTRY, "hub": {**HUB_ENTRY["hub"], "repo": "not a repo"}}, "imports.lab.eval_sets.math.hub.repo"),
])
def test_an_entry_names_its_files_exactly_one_way(entry, message):
    validate_config(mixed_with(HUB_ENTRY))
    with pytest.raises(ConfigError, match=message.replace("(", r"\(").replace(")", r"\)").replace(".", r"\.")):
        validate_config(mixed_with(entry))


def test_the_imported_base_is_checked_too():
    from rlvr_support.config.imports import check_imports

    cfg = {"world": {"kind": "imports", "seed": 0}, "chains": [], "eval_sets": ["math"],
           "base": {"kind": "import", "eval_sets": {"math": {**HUB_ENTRY, "files": ["x.parquet"]}}}}
    with pytest.raises(ImportConfigError, match=r"base\.eval_sets\.math: give exactly one of `files`"):
        check_imports(cfg)


def test_a_hub_entry_is_not_globbed_at_parse_time_and_a_branch_is_named_before_any_job(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "files").mkdir()
    (tmp_path / "files/x.jsonl").write_text('{"q": "x", "r": "y"}\n')
    cfg = mixed_with(HUB_ENTRY)
    check_import_files(cfg)  # its files exist only after prefetch: nothing to glob here
    assert hub_imports(cfg) == [("lab", "math", HUB_ENTRY["hub"])]
    assert unpinned_revisions(cfg) == []
    cfg["imports"]["lab"]["eval_sets"]["math"]["hub"]["revision"] = "main"
    assert unpinned_revisions(cfg) == [
        f"imports.lab.eval_sets.math.hub ({REPO_ID}): revision 'main' is a branch or tag, not a commit"]
    with pytest.raises(ConfigError, match=r"(?s)revisions: require.*imports\.lab\.eval_sets\.math\.hub"):
        validate_config({**cfg, "revisions": "require"})
    # the same entry as local files that are not there would stop the study here
    cfg["imports"]["lab"]["eval_sets"]["math"] = {"format": "lighteval", "files": ["details/*.parquet"]}
    with pytest.raises(ImportConfigError, match="matches no file"):
        check_import_files(cfg)


# ---- the plan: a local fetch rule, part of `prefetch`, whose manifest the import jobs read


@pytest.fixture
def hub_example(tmp_path):
    """configs/import-example.yaml with the base (verl, pinned) and the lighteval label (a branch) fetched from
    hub dataset repos; its own working directory beside a link to tests/, as the README runs it."""
    (tmp_path / "tests").symlink_to(REPO / "tests")
    work = tmp_path / "import-example"
    work.mkdir()
    cfg = yaml.safe_load((REPO / "configs" / "import-example.yaml").read_text())
    cfg["base"]["eval_sets"]["math"] = {"format": "verl", "hub": {"repo": "some-org/verl-dumps", "revision": COMMIT,
                                                                   "files": ["validation/0.jsonl"]}}
    cfg["imports"]["lighteval"]["eval_sets"]["math"] = {"format": "lighteval", "hub": {
        "repo": REPO_ID, "revision": "main", "files": [MATH_DETAILS]}}
    (work / "hub.yaml").write_text(yaml.safe_dump(cfg))
    return work


def local_rules(work: Path, config: Path) -> set[str]:
    """The rules Snakemake runs on the submit host (localrules) for this config, from its own API."""
    from snakemake.api import SnakemakeApi
    from snakemake.settings.types import ConfigSettings, OutputSettings, ResourceSettings, StorageSettings

    with SnakemakeApi(OutputSettings(quiet=True)) as api:
        wf = api.workflow(resource_settings=ResourceSettings(), storage_settings=StorageSettings(),
                          config_settings=ConfigSettings(configfiles=[config]), snakefile=REPO / "Snakefile",
                          workdir=work)._workflow
        return {r.name for r in wf.rules if r.group is None and (r.name in wf._localrules or r.norun)}


@pytest.mark.snakemake
def test_prefetch_plans_the_local_fetch_of_each_hub_entry_and_the_imports_read_its_manifest(hub_example, monkeypatch):
    cfg = hub_example / "hub.yaml"
    plan = run_snakemake(hub_example, "-n", "-p", "--", "prefetch", config=cfg)
    out = plan.stdout + plan.stderr
    manifests = ["results/imports/base/math.hub.json", "results/imports/lighteval/math.hub.json"]
    assert out.count("rule import_hub_files:") == 2, out[-3000:]
    for m in manifests:
        assert f"--out {m}" in out
    assert '"repo":"some-org/verl-dumps","revision":"' + COMMIT in out
    # the import-only study's prefetch asks for nothing else: no base weights, no prompts (the base's files)
    assert "rule import_base:" not in out and "checkpoints/base/manifest.json" not in out
    # the unpinned lighteval entry is named before any job
    assert f"imports.lighteval.eval_sets.math.hub ({REPO_ID}): revision 'main' is a branch or tag" in out
    plan = run_snakemake(hub_example, "-n", "-p", "--", "all", config=cfg).stdout
    assert f"--files-manifest {manifests[0]} --out results/samples/base/math.parquet" in plan
    assert f"--files-manifest {manifests[1]} --study-prompts" in plan
    assert "--files ../tests/data/imports/vllm/request_outputs.jsonl" in plan  # local entries as before
    monkeypatch.chdir(hub_example)
    assert "import_hub_files" in local_rules(hub_example, cfg)
