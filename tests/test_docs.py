"""The user documentation (README.md, docs/*.md) against the repository: links resolve, `make` targets and
CLI verbs named in code exist, config files named exist and validate (tests/docs_checks.py). Each test
names every problem of every page at once, as `file:line: ...`; the synthetic pages below show that each
check catches what it is for."""

from __future__ import annotations

import functools
import os
import sys
import textwrap
from pathlib import Path

import pytest

from conftest import REPO
from docs_checks import (Command, command_problems, commands, config_problems, configfile_sequences,
                         configfile_trap, documented_sequences, link_problems, make_problems, makefile_targets,
                         measurement_problems, needs_problems, parse, snakemake_targets, verb_problems)
from rlvr_support.cli.main import build_parser
from rlvr_support.config.validate import load_config
from rlvr_support.data.toyworld.limits import check_toy_world

DOCS = [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]
# where commands are shown besides the pages: the configs' header comments (how to run each study)
COMMAND_SOURCES = [*DOCS, REPO / "config.yaml", *sorted((REPO / "configs").glob("*.yaml"))]
# pages a verb writes whole or in part (config-reference, results-doc), whose numbers their own tests check
# against their sources (tests/test_config_reference.py, tests/test_results_doc.py)
GENERATED_PAGES = {REPO / "docs" / "configuration.md", REPO / "docs" / "results.md"}


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


def _environment() -> dict:
    """A user's shell in the checkout: the venv's programs first, no SLURM job or profile variables of ours."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SLURM_", "SBATCH_", "SRUN_", "RLVR_SLURM_"))
           and k != "SNAKEMAKE_PROFILE"}
    env["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), env.get("PATH", "")])
    env["PYTHONPATH"] = os.pathsep.join([str(REPO / "src"), *filter(None, [env.get("PYTHONPATH")])])
    return env


def check_commands(cmds: list[Command], workdir: Path) -> list[str]:
    return command_problems(cmds, REPO, workdir, parser=build_parser(), python=sys.executable,
                            snakemake=str(Path(sys.executable).parent / "snakemake"), env=_environment())


def documented_commands() -> list[Command]:
    return [c for path in COMMAND_SOURCES for c in commands(path, REPO)]


def test_every_command_that_needs_the_hub_or_a_gpu_says_so():
    cmds = documented_commands()
    assert {"snakemake", "verb", "make"} <= {c.kind for c in cmds}  # the extraction still finds them
    assert any(c.needs == {"hub"} for c in cmds) and any("GPU" in c.needs for c in cmds)
    problems = needs_problems(cmds, REPO, load_config)
    assert not problems, _report(problems)


@pytest.mark.snakemake
@pytest.mark.slow
def test_every_documented_command_runs_as_typed(tmp_path):
    """Each distinct command of the pages and the configs' headers, as a user runs it from the repository root:
    snakemake as a dry run in a fresh --directory, make as `make -n`, a verb parsed by the CLI (and run, in an
    empty directory, where it reads only files of the repository and is not marked `# needs:`)."""
    cmds = documented_commands()
    assert any(c.kind == "snakemake" and "prefetch" in snakemake_targets(c.words) for c in cmds)
    problems = check_commands(cmds, tmp_path)
    assert not problems, _report(problems)


def test_every_measured_number_says_where_it_was_measured():
    """A duration, size, rate or GPU-hours typed in a page (not a generated one) names its commit, date and
    machine in its paragraph or table, sits in a generated block, or says it is no measurement."""
    problems = [p for doc in DOCS if doc not in GENERATED_PAGES for p in measurement_problems(doc, REPO)]
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


def _shown(page: Path, repo: Path = REPO) -> list[tuple]:
    return [(c.where, c.kind, c.text, "".join(sorted(c.needs)), c.reference) for c in commands(page, repo)]


def test_commands_are_read_as_a_user_types_them(tmp_path):
    page = tmp_path / "page.md"
    page.write_text(textwrap.dedent("""\
        Run `make gpu-check` (needs: GPU), not `make`; `snakemake` plans, `python -m rlvr_support budget` costs.
        <!-- generated by `python -m rlvr_support results-doc --summary` -->
        ```bash
        $ snakemake --cores 2 -- all   # the study
        RLVR_X=1 python -m rlvr_support budget --configfile configs/paper.yaml  # needs: hub, GPU (a note)
        accelerate launch --num_processes 8 -m rlvr_support pilot \\
            --model Qwen/Qwen3-8B-Base   # needs: GPU
        cd x && make test > log; bash scripts/gpu_check.sh --quick
        export RLVR_SLURM_PARTITION=cpu
        python -m rlvr_support budget --configfile <config>
        ```

            make run-seeds   # an indented code block
        """))
    assert _shown(page) == [
        ("page.md:1", "make", "make gpu-check", "GPU", False),
        ("page.md:1", "make", "make", "", True),
        ("page.md:1", "snakemake", "snakemake", "", True),
        ("page.md:1", "verb", "python -m rlvr_support budget", "", True),
        ("page.md:4", "snakemake", "snakemake --cores 2 -- all", "", False),
        ("page.md:5", "verb", "RLVR_X=1 python -m rlvr_support budget --configfile configs/paper.yaml", "GPUhub",
         False),
        ("page.md:6", "accelerate", "accelerate launch --num_processes 8 -m rlvr_support pilot --model "
         "Qwen/Qwen3-8B-Base", "GPU", False),
        ("page.md:8", "make", "make test", "", False),
        ("page.md:8", "script", "bash scripts/gpu_check.sh --quick", "", False),
        ("page.md:10", "verb", "python -m rlvr_support budget --configfile <config>", "", False),
        ("page.md:13", "make", "make run-seeds", "", False)]
    config = tmp_path / "study.yaml"
    config.write_text("# A study. Its cost: `python -m rlvr_support budget --configfile <this file>`\n"
                      "#     snakemake --profile slurm --configfile configs/paper.yaml \\\n"
                      "#         -- prefetch   # needs: hub\n# rlvr-support is not a command here\nstudy: x\n")
    assert _shown(config) == [
        ("study.yaml:1", "verb", "python -m rlvr_support budget --configfile <this file>", "", False),
        ("study.yaml:2", "snakemake", "snakemake --profile slurm --configfile configs/paper.yaml -- prefetch", "hub",
         False)]


def _commands(tmp_path, text: str) -> list[Command]:
    page = tmp_path / "page.md"
    page.write_text(textwrap.dedent(text))
    return commands(page, REPO)


def test_a_command_that_needs_the_hub_or_a_gpu_must_say_so(tmp_path):
    cmds = _commands(tmp_path, """\
        ```
        snakemake --profile slurm --configfile configs/paper.yaml -- prefetch
        snakemake --profile slurm --configfile configs/paper.yaml -- prefetch   # needs: hub
        snakemake --profile slurm --configfile configs/paper.yaml -- all
        snakemake --profile slurm --configfile configs/paper.yaml -n -- all
        snakemake --profile slurm --configfile configs/paper.yaml --unlock
        snakemake --cores 2 -- all
        python -m rlvr_support pilot --model Qwen/Qwen2.5-1.5B
        python -m rlvr_support pilot --quick
        python -m rlvr_support base-model --cfg '{}'
        make gpu-pilot
        make gpu-pilot PILOT_ARGS=--quick
        ```
        """)
    assert needs_problems(cmds, REPO, load_config) == [
        "page.md:2: `snakemake --profile slurm --configfile configs/paper.yaml -- prefetch`: needs hub: end it with "
        "`# needs: hub`",
        "page.md:4: `snakemake --profile slurm --configfile configs/paper.yaml -- all`: needs GPU: end it with "
        "`# needs: GPU`",
        "page.md:8: `python -m rlvr_support pilot --model Qwen/Qwen2.5-1.5B`: needs GPU: end it with `# needs: GPU`",
        "page.md:10: `python -m rlvr_support base-model --cfg '{}'`: needs hub: end it with `# needs: hub`",
        "page.md:11: `make gpu-pilot`: needs GPU: end it with `# needs: GPU`"]


def test_snakemake_targets_and_the_configfile_trap():
    def cmd(text):
        return Command("x:1", text, "snakemake", (), tuple(text.split()), frozenset())

    assert snakemake_targets(cmd("snakemake --profile slurm --configfile a.yaml b.yaml prefetch").words) == []
    assert snakemake_targets(cmd("snakemake --cores 2 -d w results/x.png").words) == ["results/x.png"]
    assert snakemake_targets(cmd("snakemake --configfile a.yaml -- all prefetch").words) == ["all", "prefetch"]
    assert configfile_trap(cmd("snakemake --profile slurm --configfile configs/paper.yaml prefetch")) == (
        "--configfile reads 'prefetch' as config file(s): put `--` before the targets")
    assert configfile_trap(cmd("snakemake --configfile a.yaml b.yml --cores 2 all")) is None
    assert configfile_trap(cmd("snakemake --configfile <config> -- prefetch")) is None


def test_verbs_are_parsed_and_run_where_they_read_only_the_repository(tmp_path):
    cmds = _commands(tmp_path, """\
        ```
        python -m rlvr_support budget --configfile configs/paper.yaml --bogus
        python -m rlvr_support budget --configfile configs/paper.yaml --cfg '{}'
        python -m rlvr_support budget --configfile configs/paper.yaml --measured measurements/pilot/pilot.json
        python -m rlvr_support audit results/
        python -m rlvr_support <verb> --help
        accelerate launch --num_processes 8 -m rlvr_support pilot --modle x   # needs: GPU
        make no-such-target
        bash scripts/no_such.sh
        python bench/no_such.py
        ```
        """)
    problems = check_commands(cmds, tmp_path / "work")
    assert [p.split(": `")[0] for p in problems] == ["page.md:2", "page.md:3", "page.md:7", "page.md:8",
                                                     "page.md:9", "page.md:10"], problems
    assert "unrecognized arguments: --bogus" in problems[0]
    assert "exit 1: error: budget: give exactly one of --configfile" in problems[1]  # run, in an empty directory
    assert "unrecognized arguments: --modle x" in problems[2]  # a marked verb is still parsed
    assert "No rule to make target 'no-such-target'" in problems[3]
    assert problems[4].endswith("no file scripts/no_such.sh") and problems[5].endswith("no file bench/no_such.py")


@pytest.mark.snakemake
def test_a_target_after_configfile_fails_its_dry_run_and_a_bad_target_is_named(tmp_path):
    """The README's cluster command as it was typed (commit aab6337): snakemake reads `prefetch` as a config file.
    Two commands that share one dry run (same options, targets after `--`) are told apart when it fails."""
    cmds = _commands(tmp_path, """\
        ```
        snakemake --profile slurm --configfile configs/paper.yaml prefetch   # hub weights and data
        snakemake --cores 2 -- no-such-target
        snakemake --cores 2 --directory elsewhere -- prefetch
        ```
        """)
    problems = check_commands(cmds, tmp_path / "work")
    assert len(problems) == 2, problems
    assert problems[0].startswith("page.md:2: `snakemake --profile slurm --configfile configs/paper.yaml prefetch`: "
                                  "dry run: exit 1: FileNotFoundError:")
    assert "'prefetch'" in problems[0] and problems[0].endswith("put `--` before the targets")
    assert problems[1].startswith("page.md:3: `snakemake --cores 2 -- no-such-target`: dry run: exit 1: ")
    assert "no-such-target" in problems[1].split("dry run:")[1]


def test_measured_numbers_name_commit_date_and_machine(tmp_path):
    page = tmp_path / "page.md"
    page.write_text(textwrap.dedent("""\
        # Numbers

        The study took 19:18 and 1.5 GB; sampling runs at 2,000 tokens/s.

        It took 12 s on this project's 2-core VM at commit 1a2b3c4 (2026-12-04).

        Cost (commit 1a2b3c4, 2026-12-04, AMD EPYC VM):

        | case | s |
        |---|---|
        | a | 8.5 s |

        - a list after a table has no caption of its own: 3 minutes
        - the CUDA context: 3 GB (assumed); a GPU of 80 GB (datasheet); the paper's figures: 9.8x to 106.7x

        ```bash
        make test   # 49:28
        ```

        <!-- numbers: begin -->
        generated: 300 MiB, 2.5x
        <!-- numbers: end -->
        Ten products 8 x 8 and 10x larger trees are no ratios; 3,072 new tokens no measurement.
        """))
    problems = measurement_problems(page, tmp_path)
    assert [p.split(": a measured")[0] for p in problems] == [
        "page.md:3: `19:18`", "page.md:3: `1.5 GB`", "page.md:3: `2,000 tokens/s`", "page.md:13: `3 minutes`",
        "page.md:17: `49:28`"]
    assert problems[0].endswith("names no commit, no date, no machine: say where it was measured (commit, date, "
                                "machine), or generate it")
