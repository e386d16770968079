"""What the budget (verb `budget`) reads: several --configfile merged as Snakemake merges them, and prompt files
counted only where their provenance records this config's data (lineage/prompt_files.py, data/prompt_job.py),
so a results tree that holds another study's prompts leaves a study's budget as it is in an empty folder."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pandas as pd
import pytest
import yaml

from rlvr_support.planning.budget import budget_config, prompt_jobs
from rlvr_support.cli.main import main
from rlvr_support.config.defaults import fill_defaults
from rlvr_support.config.validate import load_config, validate_config
from rlvr_support.data.prompt_job import job_differences, prompt_job, task_sources, world_prompts_cfg
from rlvr_support.data.verifiers import task_verifiers, verifiers_arg
from rlvr_support.lineage.prompt_files import prompt_files

REPO = Path(__file__).resolve().parents[1]
SMOKE = REPO / "tests" / "config" / "smoke.yaml"
SMOL = REPO / "tests" / "config" / "smollm2-reduced.yaml"
PAPER = REPO / "configs" / "paper.yaml"
TEACHERS = REPO / "configs" / "paper-teachers.yaml"
PROMPTS = Path("results") / "data" / "prompts"


def _budget(workdir: Path, out_dir: Path, monkeypatch, *configs: Path) -> tuple[pd.DataFrame, str]:
    """The verb's CSV and Markdown, run in `workdir` with its default --prompts-dir (results/data/prompts)."""
    monkeypatch.chdir(workdir)
    out = out_dir / "budget.md"
    assert main(["budget", "--configfile", *map(str, configs), "--out", str(out)]) == 0
    return pd.read_csv(out.with_suffix(".csv")), out.read_text()


def _prompt_lines(md: str) -> list[str]:
    """The report's prompt counts per task, with where they come from."""
    return [line for line in md.splitlines() if line.startswith(("- math:", "- if:", "- joint:"))]


def _toy_prompts(workdir: Path, config: Path, monkeypatch) -> None:
    """The toy world's prompt files as the toy_data rule makes them: verb `data` with the rule's param."""
    workdir.mkdir(parents=True, exist_ok=True)
    monkeypatch.chdir(workdir)
    cfg = json.dumps(world_prompts_cfg(fill_defaults(load_config(config))))
    assert main(["data", "--cfg", cfg, "--out-dir", str(PROMPTS)]) == 0


def test_several_configfiles_merge_as_snakemake_merges_them(tmp_path, monkeypatch):
    """`--configfile paper.yaml paper-teachers.yaml`: the overlay's chains (a list: replaced) and its
    trajectory.every (a key of the second file wins) are costed, with the paper's seeds and steps."""
    frame, md = _budget(tmp_path, tmp_path, monkeypatch, PAPER, TEACHERS)
    paper, overlay = yaml.safe_load(PAPER.read_text()), yaml.safe_load(TEACHERS.read_text())
    chains, seeds = overlay["chains"], paper["rl"]["seeds"]
    assert paper["chains"] != chains and paper["trajectory"]["every"] != overlay["trajectory"]["every"]
    assert f"(base + {len(chains)} chains x {len(seeds)} seeds)" in md
    every, steps = overlay["trajectory"]["every"], paper["rl"]["steps"]
    points = len(overlay["trajectory"]["chains"]) * len(seeds) * len(range(every, steps, every))
    assert f"; {points} trajectory points at n={overlay['trajectory']['n']}" in md
    train = frame[frame["kind"] == "train"]
    assert list(train["jobs"]) == [len(chains) * len(seeds)] * len(paper["models"])


def test_another_studys_prompt_files_are_not_counted(tmp_path, monkeypatch):
    """A toy world's prompt files (as after `make run`) leave the paper's budget as in an empty folder; the
    smoke study counts its own files, and not after an edit of world.seed (the files are another world's)."""
    tree, empty = tmp_path / "tree", tmp_path / "empty"
    empty.mkdir()
    _toy_prompts(tree, SMOKE, monkeypatch)
    in_tree, md_tree = _budget(tree, tmp_path, monkeypatch, PAPER)
    in_empty, md_empty = _budget(empty, tmp_path, monkeypatch, PAPER)
    assert in_tree[["kind", "sequences", "jobs"]].equals(in_empty[["kind", "sequences", "jobs"]])
    assert _prompt_lines(md_tree) == _prompt_lines(md_empty)
    ignored = next(line for line in md_tree.splitlines() if line.startswith("- Prompt files:"))
    assert all(str(PROMPTS / f"{t}.jsonl") in ignored for t in ("math", "if", "joint"))
    assert "ignored" in ignored and "world.kind" in ignored and "used" not in ignored
    assert "Prompt files:" not in md_empty

    _, md = _budget(tree, tmp_path, monkeypatch, SMOKE)
    assert f"(from {PROMPTS / 'math.jsonl'})" in md and f"used {PROMPTS / 'math.jsonl'}" in md
    reseeded = tmp_path / "reseeded.yaml"
    reseeded.write_text(yaml.safe_dump({"world": {"seed": yaml.safe_load(SMOKE.read_text())["world"]["seed"] + 1}}))
    _, md = _budget(tree, tmp_path, monkeypatch, SMOKE, reseeded)
    assert "(from world.math.eval)" in md and "world.seed" in md and f"used {PROMPTS}" not in md


def test_a_datasets_worlds_prompt_file_is_counted_until_its_sources_change(tmp_path, monkeypatch):
    """The source_data rule's file (verb data-sources with the rule's params) is this config's; after an edit
    of the task's sources it is not, and the reason names world.tasks.<task>."""
    config = fill_defaults(load_config(SMOL))
    monkeypatch.chdir(tmp_path)
    assert main(["data-sources", "--task", "if", "--sources", json.dumps(task_sources(config, "if")),
                 "--out", str(PROMPTS / "if.jsonl"), "--verifiers", verifiers_arg(task_verifiers(config, "if"))]) == 0
    jobs = prompt_jobs(budget_config(config))
    assert prompt_files(jobs, PROMPTS) == ({"if": PROMPTS / "if.jsonl"}, {})
    raw = yaml.safe_load(SMOL.read_text())
    raw["world"]["tasks"]["if"][1]["size"] += 1
    edited = budget_config(fill_defaults(validate_config(raw)))
    used, ignored = prompt_files({"if": edited["prompt_jobs"]["if"]}, PROMPTS)
    assert used == {} and "world.tasks.if" in ignored[PROMPTS / "if.jsonl"]
    # a file without a sidecar says nothing of its making
    shutil.copy(PROMPTS / "if.jsonl", tmp_path / "if.jsonl")
    _, ignored = prompt_files({"if": jobs["if"]}, tmp_path)
    assert "no provenance sidecar" in ignored[tmp_path / "if.jsonl"]


def test_job_differences_name_the_config_keys():
    toy = {"world": {"kind": "toy", "seed": 1, "math": {"eval": 6}, "if": {"eval": 6}, "joint": {"eval": 6}}}
    job = prompt_job(toy, "math")
    assert job_differences(job, "math", "data", {"cfg": json.loads(json.dumps(job["args"]["cfg"]))}) == []
    other = {**job["args"]["cfg"], "seed": 2, "joint": {"eval": 7}}
    assert job_differences(job, "math", "data", {"cfg": other}) == ["world.seed", "world.joint"]
    assert job_differences(job, "math", "data-sources", {"task": "math", "sources": []}) == ["world.kind"]
    hub = {"world": {"kind": "datasets", "tasks": {"math": [{"format": "math", "split": "eval", "limit": (5,)}]}}}
    job = prompt_job(hub, "math")
    assert job_differences(job, "math", "data-sources", {"task": "math", "sources": [
        {"format": "math", "split": "eval", "limit": [5]}]}) == []  # as the sidecar records it: JSON
    assert job_differences(job, "if", "data-sources", job["args"]) == ["world.tasks.if"]


@pytest.mark.slow
def test_the_paper_budget_in_the_smoke_runs_folder(smoke_run, tmp_path, monkeypatch):
    """In the folder of a finished smoke run, `budget --configfile configs/paper.yaml` counts what it counts in an
    empty folder, and the smoke config's budget counts the run's own prompt files (read-only: --out elsewhere)."""
    empty = tmp_path / "empty"
    empty.mkdir()
    in_run, md_run = _budget(smoke_run, tmp_path, monkeypatch, PAPER)
    in_empty, md_empty = _budget(empty, tmp_path, monkeypatch, PAPER)
    assert in_run[["kind", "sequences", "jobs"]].equals(in_empty[["kind", "sequences", "jobs"]])
    assert _prompt_lines(md_run) == _prompt_lines(md_empty)
    _, md = _budget(smoke_run, tmp_path, monkeypatch, SMOKE)
    assert all(f"(from {PROMPTS / f'{t}.jsonl'})" in md for t in ("math", "if", "joint"))
