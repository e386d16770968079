"""Reruns redo exactly what a change affects: config and code edits against a finished smoke run.

Each test plans (`snakemake -n`) the finished smoke run after one edit and checks which jobs
Snakemake would run, and why. Config edits go through an edited copy of the smoke config;
code edits through a copy of the workflow and package (the finished run is never touched).
"""

from __future__ import annotations

import ast
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from conftest import REPO, SMOKE_CONFIG, run_snakemake

TRAINING = {"pretrain_base", "train_stage"}
SAMPLING = {"sample", "sample_routed", "sample_merge", "sample_large_k"}
SCORING = {"score", "score_routed", "score_large_k"}
MODEL_ANALYSES = {"base_metrics", "positional_js", "opening_intervention", "single_token", "perplexity"}


def plan(workdir: Path, config: Path = SMOKE_CONFIG, snakefile: Path = REPO / "Snakefile") -> list[dict]:
    """The jobs a dry run of `all` would run: [{rule, wildcards, reason}]."""
    proc = run_snakemake(workdir, "all", "-n", config=config, snakefile=snakefile)
    text = proc.stdout + proc.stderr
    if "Nothing to be done" in text:
        return []
    jobs = []
    for block in re.split(r"\n(?=(?:local)?rule \w+:\n)", text):
        m = re.match(r"(?:local)?rule (\w+):\n", block)
        if not m:
            continue
        wc = re.search(r"^\s+wildcards: (.*)$", block, re.M)
        reason = re.search(r"^\s+reason: (.*)$", block, re.M)
        jobs.append({"rule": m.group(1), "wildcards": wc.group(1) if wc else "",
                     "reason": reason.group(1) if reason else ""})
    assert jobs, f"could not read the plan:\n{text[-3000:]}"
    return jobs


def rules(jobs) -> set[str]:
    return {j["rule"] for j in jobs} - {"all"}


def edited_config(tmp_path: Path, edit) -> Path:
    cfg = yaml.safe_load(SMOKE_CONFIG.read_text())
    edit(cfg)
    out = tmp_path / "edited.yaml"
    out.write_text(yaml.safe_dump(cfg, sort_keys=False))
    return out


COMMENT = "\n# an edit that changes no behaviour, but the file's contents\n"
CONSTANT = "\n_RERUN_PROBE = 1  # a change of the syntax tree: every job whose code covers the file reruns\n"


def copied_checkout(tmp_path: Path) -> Path:
    """A copy of the workflow and package to edit (the finished run is never touched); its root."""
    root = tmp_path / "repo"
    root.mkdir()
    for part in ("Snakefile", "config.yaml", "workflow", "src", "envs", "configs", "scripts"):
        src = REPO / part
        (shutil.copytree(src, root / part, ignore=shutil.ignore_patterns("__pycache__", "*.egg-info"))
         if src.is_dir() else shutil.copy2(src, root / part))
    return root


def edited_code(tmp_path: Path, module: str, edit: str = CONSTANT) -> Path:
    """A copy of the workflow with `edit` appended to `module` (a path under src/rlvr_support); its Snakefile."""
    root = copied_checkout(tmp_path)
    path = root / "src" / "rlvr_support" / module
    path.write_text(path.read_text() + edit)
    return root / "Snakefile"


def dry_run_commands(workdir: Path, config: Path) -> dict[tuple[str, str], str]:
    """Every job of a dry run of `all` in a fresh working directory: (rule, wildcards) -> shell command.
    A job's command holds its config params (`--cfg '{...}'`), so it shows what the job reads."""
    proc = run_snakemake(workdir, "all", "-n", "-p", config=config)
    jobs, key = {}, None
    for line in (proc.stdout + proc.stderr).splitlines():
        if m := re.match(r"^(?:local)?rule (\w+):", line):
            key = [m.group(1), ""]
        elif key and (m := re.match(r"^\s+wildcards: (.*)$", line)):
            key[1] = m.group(1)
        elif key and line.startswith("Shell command: "):
            jobs[tuple(key)] = line.removeprefix("Shell command: ")
    assert jobs, f"could not read the dry run:\n{(proc.stdout + proc.stderr)[-3000:]}"
    return jobs


@pytest.mark.snakemake
def test_math_extraction_is_read_by_the_scoring_and_training_jobs_only(tmp_path):
    """`scoring.math_extraction` changes the commands of the jobs that score math answers (and so
    their params), the training stages' among them (their reward scores as the score jobs do), no
    sampling job; spelling out its default changes nothing."""
    before = dry_run_commands(tmp_path / "strict", SMOKE_CONFIG)
    lenient = dry_run_commands(tmp_path / "lenient", edited_config(
        tmp_path, lambda c: c["scoring"].update(math_extraction="lenient")))
    assert lenient.keys() == before.keys()
    changed = {rule for (rule, wc), cmd in before.items() if lenient[(rule, wc)] != cmd}
    assert changed == SCORING | {"base_metrics", "opening_intervention", "single_token", "train_stage"}, changed
    scored = [cmd for (rule, _), cmd in lenient.items() if rule in SCORING | {"train_stage"}]
    assert scored and all('"math_extraction":"lenient"' in cmd for cmd in scored)
    left_out = dry_run_commands(tmp_path / "default", edited_config(
        tmp_path, lambda c: c["scoring"].pop("math_extraction")))
    assert left_out == before


@pytest.mark.slow
def test_a_finished_run_plans_nothing(smoke_run):
    assert plan(smoke_run) == []


@pytest.mark.slow
def test_writing_every_default_out_plans_nothing(smoke_run, tmp_path):
    """Every schema default the smoke config leaves out, written out at once (tests/test_default_keys.py checks each
    alone against the filled config): the same params, so no job."""
    from test_default_keys import RAW, all_defaults_written

    written = tmp_path / "defaults.yaml"
    written.write_text(yaml.safe_dump(all_defaults_written(RAW), sort_keys=False))
    assert plan(smoke_run, written) == []


@pytest.mark.slow
def test_adding_an_rl_seed_plans_only_the_new_seed_and_the_tables(smoke_run, tmp_path):
    jobs = plan(smoke_run, edited_config(tmp_path, lambda c: c["rl"].update(seeds=[0, 1])))
    per_checkpoint = [j for j in jobs if j["rule"] in TRAINING | SAMPLING | SCORING | MODEL_ANALYSES]
    assert per_checkpoint and all("seed=1" in j["wildcards"] or "seed1" in j["wildcards"] for j in per_checkpoint
                                  if j["rule"] not in ("opening_intervention", "perplexity")), per_checkpoint
    assert {j["rule"] for j in jobs if j["rule"] == "train_stage"} and \
        all("seed=1" in j["wildcards"] for j in jobs if j["rule"] == "train_stage")
    assert not any(j["rule"] in ("pretrain_base", "base_metrics") for j in jobs)
    # the budget (it counts the checkpoints), the trajectory table (its points are per seed) and the
    # trainability table (each seed's reward curve) read rl.seeds; no other job's params hold them
    assert not [j for j in jobs if "Params have changed" in j["reason"]
                and j["rule"] not in ("budget", "trajectory_table", "trainability_table")], \
        "a job's params changed with rl.seeds"


@pytest.mark.slow
def test_listing_a_chain_in_the_trajectory_retrains_that_chain_only(smoke_run, tmp_path):
    """`trajectory.chains` is read by the listed chains' train jobs (they keep weights), no other."""
    jobs = plan(smoke_run, edited_config(tmp_path, lambda c: c["trajectory"]["chains"].append("joint")))
    trained = [j["wildcards"] for j in jobs if j["rule"] == "train_stage"]
    assert trained == ["chain=joint, seed=0"], trained
    points = {j["wildcards"] for j in jobs if j["rule"] == "trajectory_point"}
    assert points == {"run=joint/seed0, step=1"}, points
    assert not any(j["rule"] == "sample" and "ckpt=joint" not in j["wildcards"] for j in jobs)


@pytest.mark.slow
def test_adding_an_external_checkpoint_plans_its_own_jobs_and_the_tables(smoke_run, tmp_path):
    weights = smoke_run / "results" / "checkpoints" / "if" / "seed0" / "model"
    jobs = plan(smoke_run, edited_config(tmp_path, lambda c: c.update(
        checkpoints={"mine": {"kind": "local", "path": str(weights), "base": "base"}})))
    assert not rules(jobs) & TRAINING, rules(jobs)
    per_checkpoint = [j for j in jobs if j["rule"] in SAMPLING | SCORING | {"positional_js", "external_checkpoint"}]
    assert per_checkpoint and all("mine" in j["wildcards"] for j in per_checkpoint), per_checkpoint
    assert {"external_checkpoint", "passk_table", "claims_table"} <= rules(jobs)


@pytest.mark.slow
def test_changing_the_routing_prior_plans_only_routed_jobs(smoke_run, tmp_path):
    jobs = plan(smoke_run, edited_config(tmp_path, lambda c: c["sampling"]["routing"].update(gamma=0.25)))
    assert rules(jobs) == {"sample_routed", "score_routed", "routed_table"}, rules(jobs)


@pytest.mark.slow
def test_a_per_benchmark_budget_resamples_that_benchmark_only(smoke_run, tmp_path):
    """`sampling.benchmarks.math.n` is read by the math sample jobs, not by the other eval sets' jobs."""
    jobs = plan(smoke_run, edited_config(tmp_path, lambda c: c["sampling"].update(benchmarks={"math": {"n": 6}})))
    sampled = [j for j in jobs if j["rule"] in ("sample", "sample_routed")]
    assert sampled and all("eval_set=math" in j["wildcards"] for j in sampled), sampled
    assert not rules(jobs) & TRAINING, rules(jobs)


def test_changing_the_bootstrap_plans_no_training_sampling_or_scoring(smoke_run, tmp_path):
    jobs = plan(smoke_run, edited_config(tmp_path, lambda c: c["analysis"].update(bootstrap=50)))
    assert jobs and not rules(jobs) & (TRAINING | SAMPLING | SCORING | MODEL_ANALYSES), rules(jobs)
    assert {"passk_table", "support_table", "claims_table"} <= rules(jobs)


@pytest.mark.slow
def test_changing_the_rl_learning_rate_retrains_and_reruns_downstream(smoke_run, tmp_path):
    jobs = plan(smoke_run, edited_config(tmp_path, lambda c: c["rl"].update(lr=2e-4)))
    trained = [j for j in jobs if j["rule"] == "train_stage"]
    assert len(trained) == len(yaml.safe_load(SMOKE_CONFIG.read_text())["chains"])  # every chain, seed 0
    assert {"sample", "score", "passk_table", "positional_js"} <= rules(jobs)
    assert not any(j["rule"] in ("pretrain_base", "base_metrics", "toy_data") for j in jobs)
    assert not any(j["rule"] == "sample" and "ckpt=base" in j["wildcards"] for j in jobs)


@pytest.mark.slow
@pytest.mark.parametrize("module", ["metrics/bootstrap.py", "analysis/claims/claim.py"])
def test_editing_metrics_or_analysis_code_reruns_no_training_or_sampling(smoke_run, tmp_path, module):
    jobs = plan(smoke_run, snakefile=edited_code(tmp_path, module))
    assert jobs, f"editing {module} reran nothing: the code hash does not cover it"
    assert not rules(jobs) & (TRAINING | SAMPLING | SCORING), rules(jobs)
    if module == "analysis/claims/claim.py":
        assert rules(jobs) == {"claims_table"}


@pytest.mark.slow
def test_a_metrics_fix_retrains_nothing_while_the_monitor_cannot_stop_a_stage(smoke_run, tmp_path):
    """The support monitor runs inside train_stage and reports pass@k from metrics/passk.py; with
    early_stop_margin null (the smoke config's) it cannot move a weight, so its code is not the stage's."""
    jobs = plan(smoke_run, snakefile=edited_code(tmp_path, "metrics/passk.py"))
    assert "passk_table" in rules(jobs), rules(jobs)
    assert not rules(jobs) & (TRAINING | SAMPLING), rules(jobs)


def test_the_monitor_counts_in_the_stages_code_only_where_it_can_stop_it_early():
    from rlvr_support.lineage.job_code import job_manifest, monitor_moves_weights

    off = {"monitor": {"every": 1, "prompts": 2, "n": 2, "opening_tokens": 2, "early_stop_margin": None}}
    on = {"monitor": {**off["monitor"], "early_stop_margin": 0.1}}
    assert not monitor_moves_weights(off) and not monitor_moves_weights({}) and monitor_moves_weights(on)
    for rl, counted in ((off, False), (on, True)):
        files = job_manifest("train", ("math",), monitor=monitor_moves_weights(rl))
        assert ("metrics/passk.py" in files) is counted and ("training/support_monitor.py" in files) is counted


@pytest.mark.slow
def test_editing_a_figure_module_reruns_its_figures_only(smoke_run, tmp_path):
    jobs = plan(smoke_run, snakefile=edited_code(tmp_path, "figures/passk_curves.py"))
    assert rules(jobs) == {"figure_passk", "figure_bestk", "figure_bestk_large_k"}, rules(jobs)


@pytest.mark.slow
def test_editing_a_sampling_backend_reruns_sampling_and_downstream_but_no_training(smoke_run, tmp_path):
    jobs = plan(smoke_run, snakefile=edited_code(tmp_path, "sampling/vllm_backend.py"))
    assert {"sample", "sample_routed", "score", "passk_table"} <= rules(jobs)
    assert not rules(jobs) & TRAINING, rules(jobs)


# ---- code hashes that follow what a job computes (issue 27)

# a metrics module, a verifier, the CLI (a verb's module and the dispatcher)
NO_BEHAVIOUR = ("metrics/entropy.py", "scoring/verifiers/ifeval.py", "cli/verbs/score.py", "cli/main.py")


def _docstring_edit(text: str) -> str:
    tree = ast.parse(text)
    doc = tree.body[0].value
    assert isinstance(doc, ast.Constant) and isinstance(doc.value, str)
    lines = text.splitlines(keepends=True)
    first = lines[doc.lineno - 1]
    return "".join(lines[:doc.lineno - 1]) + first.replace('"""', '"""(Edited.) ', 1) + "".join(lines[doc.lineno:])


def _reformat(text: str) -> str:
    """The same syntax tree written out anew: every line re-indented and re-wrapped, comments gone."""
    return ast.unparse(ast.parse(text))


@pytest.mark.snakemake
@pytest.mark.parametrize("edit", ["comment", "docstring", "reformatting"])
def test_a_comment_a_docstring_or_a_reformatting_plans_no_job(smoke_run, tmp_path, edit):
    root = copied_checkout(tmp_path)
    for module in NO_BEHAVIOUR:
        path = root / "src" / "rlvr_support" / module
        before = path.read_text()
        after = {"comment": lambda t: t + COMMENT, "docstring": _docstring_edit, "reformatting": _reformat}[edit](before)
        assert after != before
        path.write_text(after)
    assert plan(smoke_run, snakefile=root / "Snakefile") == []


TOY_IF_CHECKER = ('def _no_comma(v, kw, _):\n    return "," not in v\n',  # punctuation:no_comma, a toy constraint
                  'def _no_comma(v, kw, _):\n    return "," not in v.replace(",,", "")\n')


@pytest.mark.snakemake
def test_a_changed_ifeval_checker_reruns_the_if_and_joint_stages_and_their_downstream_only(smoke_run, tmp_path):
    root = copied_checkout(tmp_path)
    path = root / "src/rlvr_support/scoring/verifiers/ifeval.py"
    assert TOY_IF_CHECKER[0] in path.read_text()
    path.write_text(path.read_text().replace(*TOY_IF_CHECKER))
    jobs = plan(smoke_run, snakefile=root / "Snakefile")
    chains = yaml.safe_load(SMOKE_CONFIG.read_text())["chains"]
    trained = {j["wildcards"] for j in jobs if j["rule"] == "train_stage"}
    # every chain with an IF or joint stage, or an earlier one (if-math's math stage: its monitor scores IF)
    assert trained == {f"chain={c}, seed=0" for c in chains if c != "math"}, trained
    assert not rules(jobs) & {"toy_data", "toy_corpus", "pretrain_base"}
    for j in jobs:
        if j["rule"] in SAMPLING | MODEL_ANALYSES - {"base_metrics", "opening_intervention", "single_token"}:
            assert "ckpt=base" not in j["wildcards"] and "ckpt=math/seed0" not in j["wildcards"], j
    scored = {j["wildcards"] for j in jobs if j["rule"] == "score"}
    assert {"ckpt=base, eval_set=if", "ckpt=math/seed0, eval_set=joint"} <= scored  # their verifier changed
    assert not {"ckpt=base, eval_set=math", "ckpt=math/seed0, eval_set=math"} & scored  # math-verify only
    # the jobs whose own code changed are those that score IFEval ids; the others follow a remade input
    own = {j["rule"] for j in jobs if "Params have changed" in j["reason"]}
    assert {"train_stage", "score", "base_metrics"} <= own <= {"train_stage", "score", "score_routed", "score_large_k",
                                                             "base_metrics", "reasoning_if_table"}, own
    assert not [j for j in jobs if "Params have changed" in j["reason"] and "eval_set=math" in j["wildcards"]]


@pytest.mark.snakemake
def test_an_ifbench_checker_reruns_only_jobs_that_score_ifbench_ids(smoke_run, tmp_path):
    """The smoke study scores IFEval's ids only (the toy world), so no job covers IFBench's checkers."""
    assert plan(smoke_run, snakefile=edited_code(tmp_path, "scoring/verifiers/ifbench_checks.py")) == []


@pytest.mark.snakemake
def test_a_new_cli_verb_reruns_nothing_existing(smoke_run, tmp_path):
    root = copied_checkout(tmp_path)
    (root / "src/rlvr_support/cli/verbs/probe_verb.py").write_text(
        'def register(verb) -> None:\n    verb("probe-verb", print, "A verb no rule runs.")\n')
    main = root / "src/rlvr_support/cli/main.py"
    main.write_text(main.read_text() + CONSTANT)  # and an edit of the dispatcher
    assert plan(smoke_run, snakefile=root / "Snakefile") == []


@pytest.mark.snakemake
def test_why_names_the_files_whose_edit_reruns_a_job(smoke_run, tmp_path):
    root = copied_checkout(tmp_path)
    path = root / "src/rlvr_support/scoring/verifiers/ifeval.py"
    path.write_text(path.read_text().replace(*TOY_IF_CHECKER))

    def why(checkout, *targets):
        env = {**os.environ, "PYTHONPATH": str(checkout / "src")}
        proc = subprocess.run([sys.executable, "-m", "rlvr_support", "why", *targets, "-s", str(checkout / "Snakefile"),
                               "-d", str(smoke_run), "--configfile", str(SMOKE_CONFIG)],
                              capture_output=True, text=True, env=env, timeout=600)
        assert proc.returncode == 0, proc.stderr[-3000:]
        return proc.stdout

    out = why(root, "results/tables/passk.csv")
    blocks = {b.split("  ->  ")[0]: b for b in out.split("\n\n")}
    stage = blocks["train_stage (chain=if, seed=0)"]
    assert "code: scoring/verifiers/ifeval.py changed" in stage and stage.count("code: ") == 1, stage
    assert "code: scoring/verifiers/ifeval.py changed" in blocks["score (ckpt=base, eval_set=if)"]
    assert "train_stage (chain=math, seed=0)" not in blocks
    assert re.search(r"only because an input is remade: .*sample x\d+", out), out[-2000:]
    assert "up to date" in why(REPO, "results/tables/passk.csv")


@pytest.mark.slow
def test_with_early_stopping_on_a_metrics_fix_is_in_the_stages_code(smoke_run, tmp_path):
    """The other side of test_a_metrics_fix_retrains_nothing_while_the_monitor_cannot_stop_a_stage: once
    rl.monitor.early_stop_margin is set, the monitor can stop a stage, so the stage's code holds metrics/passk.py."""
    root = copied_checkout(tmp_path)
    path = root / "src/rlvr_support/metrics/passk.py"
    path.write_text(path.read_text() + CONSTANT)
    config = edited_config(tmp_path, lambda c: c["rl"]["monitor"].update(early_stop_margin=0.5))
    env = {**os.environ, "PYTHONPATH": str(root / "src")}
    proc = subprocess.run([sys.executable, "-m", "rlvr_support", "why", "results/checkpoints/math/seed0/manifest.json",
                           "-s", str(root / "Snakefile"), "-d", str(smoke_run), "--configfile", str(config)],
                          capture_output=True, text=True, env=env, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    stage = next(b for b in proc.stdout.split("\n\n") if b.startswith("train_stage (chain=math, seed=0)"))
    assert "metrics/passk.py" in stage and "training/support_monitor.py" in stage, stage


@pytest.mark.snakemake
def test_changing_the_numerics_reruns_the_model_jobs_and_what_reads_them(smoke_run, tmp_path):
    # the model jobs carry `numerics` as a param (they read it from the environment, config/numerics.py)
    config = edited_config(tmp_path, lambda c: c.update(numerics={"pin": False}))
    jobs = plan(smoke_run, config)
    assert {"pretrain_base", "base_metrics", "sample", "positional_js", "perplexity"} <= rules(jobs)
    assert not rules(jobs) & {"toy_data", "toy_corpus", "prompt_subset"}
    # which outputs' own params changed: a dry run names only the first reason of a job whose input is
    # replanned as well, so ask snakemake's metadata directly
    proc = run_snakemake(smoke_run, "--list-changes", "params", config=config)
    changed = {line.strip() for line in proc.stdout.splitlines() if line.strip().startswith("results/")}
    assert "results/checkpoints/base/manifest.json" in changed and "results/checkpoints/base/metrics.json" in changed
    for folder in ("results/samples/", "results/analysis/js/", "results/analysis/perplexity/"):
        assert any(p.startswith(folder) for p in changed), (folder, sorted(changed))
