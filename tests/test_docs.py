"""The user documentation (README.md, docs/*.md) against the repository: links resolve, `make` targets and
CLI verbs named in code exist, config files named exist and validate (tests/docs_checks.py). Each test
names every problem of every page at once, as `file:line: ...`; the synthetic pages below show that each
check catches what it is for."""

from __future__ import annotations

import functools
import textwrap

import pytest

from conftest import REPO
from docs_checks import (config_problems, configfile_sequences, documented_sequences, link_problems,
                         make_problems, makefile_targets, parse, verb_problems)
from rlvr_support.cli.main import build_parser
from rlvr_support.config.validate import load_config
from rlvr_support.data.toyworld.limits import check_toy_world

DOCS = [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]


def cli_verbs() -> set[str]:
    parser = build_parser()
    sub = next(a for a in parser._actions if a.__class__.__name__ == "_SubParsersAction")
    return set(sub.choices)


@functools.lru_cache(maxsize=None)
def validate(*paths) -> None:
    """What the workflow checks before any job (common.smk): the schema and cross-key rules, then the toy world."""
    config = load_config(*paths)
    if config["world"]["kind"] == "toy":
        check_toy_world(config)


def _report(problems: list[str]) -> str:
    return f"{len(problems)} problem(s) in the docs:\n  " + "\n  ".join(problems)


def test_the_docs_exist():
    assert (REPO / "README.md").is_file() and (REPO / "docs" / "configuration.md").is_file()


def test_every_relative_link_resolves():
    problems = [p for doc in DOCS for p in link_problems(doc, REPO)]
    assert not problems, _report(problems)


def test_every_make_target_in_code_exists():
    targets = makefile_targets(REPO / "Makefile")
    assert {"setup", "run", "test", "run-seeds"} <= targets  # the parser still reads this Makefile
    problems = [p for doc in DOCS for p in make_problems(doc, REPO, targets)]
    assert not problems, _report(problems)


def test_every_cli_verb_in_code_exists():
    verbs = cli_verbs()
    assert {"budget", "audit", "why", "config-reference"} <= verbs
    problems = [p for doc in DOCS for p in verb_problems(doc, REPO, verbs)]
    assert not problems, _report(problems)


def test_every_config_file_named_exists_and_validates():
    sequences = documented_sequences(REPO, DOCS)
    # `make run-seeds` puts the overlay on the default: the Makefile is one of the places commands are read from
    assert ("config.yaml", "configs/toy-seeds.yaml") in sequences
    problems = [p for doc in DOCS for p in config_problems(doc, REPO, sequences, validate)]
    assert not problems, _report(problems)


# ---- each check on a page made to fail it


@pytest.fixture
def repo(tmp_path):
    """A repository with a Makefile, two configs (one an overlay) and a docs/ page."""
    (tmp_path / "docs").mkdir()
    (tmp_path / "configs").mkdir()
    (tmp_path / "Makefile").write_text(".PHONY: run test\nrun: setup\n\techo run\ntest:\n\techo\n$(STAMP): x\n\ttouch\n"
                                       "seeds:\n\tsnakemake --configfile config.yaml configs/overlay.yaml -- all\n")
    (tmp_path / "config.yaml").write_text((REPO / "tests" / "config" / "smoke.yaml").read_text())
    (tmp_path / "configs" / "overlay.yaml").write_text("# an overlay\nrl: {seeds: [0, 1]}\n")
    (tmp_path / "configs" / "broken.yaml").write_text("study: x\n")
    (tmp_path / "slurm").mkdir()
    (tmp_path / "slurm" / "config.yaml").write_text("executor: slurm\n")  # a profile: it must exist, not validate
    return tmp_path


def _page(repo, text: str, name: str = "README.md"):
    path = repo / name
    path.write_text(textwrap.dedent(text))
    return path


def test_links_name_the_missing_file_and_the_missing_heading(repo):
    (repo / "docs" / "guide.md").write_text(
        "# Running on a cluster\n\n## The budget, before the run\n\n## Setup\n\n## Setup\n")
    page = _page(repo, """\
        # Top
        [ok](docs/guide.md#the-budget-before-the-run) and [dup](docs/guide.md#setup-1) and [self](#top)
        [gone](docs/missing.md) then [bad anchor](docs/guide.md#budget)
        ![img](docs/figure.png) <a href="#nowhere">x</a> [web](https://example.org/x.md)
        `[in code](nothere.md)`

        [ref]: ../outside.md
        ```
        [also code](nothere.md)
        ```
        """)
    problems = link_problems(page, repo)
    assert problems == ["README.md:3: link `docs/missing.md`: no file docs/missing.md",
                        "README.md:3: link `docs/guide.md#budget`: guide.md has no heading with anchor #budget",
                        "README.md:4: link `docs/figure.png`: no file docs/figure.png",
                        "README.md:4: link `#nowhere`: README.md has no heading with anchor #nowhere",
                        "README.md:7: link `../outside.md` leaves the repository"]


def test_github_anchors_of_headings():
    """Anchors as GitHub writes them (checked by hand on github.com headings of this README)."""
    from rlvr_support.config.reference import github_anchor

    assert github_anchor("Quick start (fresh machine)") == "quick-start-fresh-machine"
    assert github_anchor("Reliability: resume, integrity, storage") == "reliability-resume-integrity-storage"
    assert github_anchor("`rl.vllm.importance_sampling`") == "rlvllmimportance_sampling"
    assert github_anchor("`models.<name>`") == "modelsname"
    assert github_anchor("IFEval instructions (all 25 types)") == "ifeval-instructions-all-25-types"


def test_setext_and_html_anchors(repo):
    page = _page(repo, "Title here\n==========\n\n<a name=\"custom\"></a>\n\n[a](#title-here) [b](#custom)\n")
    assert parse(page).anchors == {"title-here", "custom"}
    assert link_problems(page, repo) == []


def test_make_targets_in_code_only(repo):
    page = _page(repo, """\
        Run `make run` and `make -j4 test CORES=8`, then `make bench`.
        To make sure it works, make nothing of prose.
        ```bash
        make -C . run  # make sure
        make setup-vllm
        make test > log; make run -> results/
        ```
        """)
    assert make_problems(page, repo, makefile_targets(repo / "Makefile")) == [
        "README.md:1: `make bench`: the Makefile has no target 'bench'",
        "README.md:5: `make setup-vllm`: the Makefile has no target 'setup-vllm'"]
    assert makefile_targets(repo / "Makefile") == {"run", "test", "seeds"}


def test_cli_verbs_in_code(repo):
    page = _page(repo, """\
        `python -m rlvr_support budget --configfile x.yaml` and `python -m rlvr_support <verb> --help`
        ```
        python -m rlvr_support --help
        accelerate launch -m rlvr_support pilot --model m
        python -m rlvr_support budgett
        rlvr-support claimz --cfg '{}'
        ```
        """)
    assert verb_problems(page, repo, cli_verbs()) == [
        "README.md:5: `rlvr_support budgett`: no such verb (the verbs: python -m rlvr_support --help)",
        "README.md:6: `rlvr_support claimz`: no such verb (the verbs: python -m rlvr_support --help)"]


def test_config_files_exist_validate_and_overlays_are_merged(repo):
    page = _page(repo, """\
        The default is config.yaml; `configs/overlay.yaml` adds a seed (`make seeds`).
        configs/broken.yaml and configs/missing.yaml; slurm/config.yaml and configs/accelerate/zero3.yaml exist.
        ```
        snakemake --configfile configs/overlay.yaml -- all
        ```
        """, name="docs/page.md")
    sequences = documented_sequences(repo, [page])
    assert sequences == {("config.yaml", "configs/overlay.yaml"), ("configs/overlay.yaml",)}
    problems = config_problems(page, repo, sequences, validate)
    assert [p.split(" does not validate")[0] for p in problems] == [
        "docs/page.md:2: configs/accelerate/zero3.yaml: no file configs/accelerate/zero3.yaml",
        "docs/page.md:2: configs/broken.yaml",
        "docs/page.md:2: configs/missing.yaml: no file configs/missing.yaml",
        "docs/page.md:4: --configfile configs/overlay.yaml"]  # an overlay alone misses every other key
    assert "missing required key" in problems[1] and "missing required key" in problems[3]


def test_configfile_sequences_stop_at_the_next_option():
    assert configfile_sequences("snakemake --configfile a.yaml configs/b.yaml -- all --configfile <config> prefetch "
                                "budget --configfile configs/paper.yaml --measured results; "
                                "why --configfile=c.yaml x") == [
        ("a.yaml", "configs/b.yaml"), ("configs/paper.yaml",), ("c.yaml",)]
