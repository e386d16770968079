"""Imported samples in a study (config `imports:`, workflow/rules/imports.smk), end to end on the smoke run.

The import is the base's own samples, written out as another tool would (a plain JSONL of prompt text,
response, sample number and a score of its own): every samples-only table must then show the imported
label exactly as the base, which a wrong prompt match, a dropped or reordered sample or a lost benchmark
would break. One copy of the finished smoke tree is run once per module; the tests read it.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest
import yaml

from conftest import SMOKE_CONFIG, run_snakemake

pytestmark = pytest.mark.snakemake

LABEL = "copied-base"
EVAL_SETS = ("math", "if", "joint")
FLIPPED = 3  # source scores flipped against ours, in the math file: the agreement table must name them


def write_source(tree: Path, folder: Path, drop_prompt: bool = False) -> dict[str, list[str]]:
    """The base's samples of each eval set as a plain JSONL (`question`, `completion`, `n`, `correct`: our
    reward, flipped for the first FLIPPED math samples); returns the prompt ids whose score was flipped."""
    folder.mkdir(parents=True, exist_ok=True)
    flipped: dict[str, list[str]] = {}
    for e in EVAL_SETS:
        prompts = {r["id"]: r for r in map(json.loads, (tree / f"results/data/prompts/{e}.jsonl").open())}
        samples = pd.read_parquet(tree / f"results/samples/base/{e}.parquet")
        scores = pd.read_parquet(tree / f"results/scores/base/{e}.parquet").set_index(["prompt_id", "sample_idx"])
        if drop_prompt:
            samples = samples[samples["prompt_id"] != samples["prompt_id"].iloc[0]]
        with (folder / f"{e}.jsonl").open("w") as f:
            for i, r in enumerate(samples.itertuples()):
                correct = float(scores.loc[(r.prompt_id, r.sample_idx), "reward"] >= 1.0)
                if e == "math" and i < FLIPPED:
                    correct = 1.0 - correct
                    flipped.setdefault(e, []).append(r.prompt_id)
                f.write(json.dumps({"question": prompts[r.prompt_id]["prompt"], "completion": r.text,
                                    "n": int(r.sample_idx), "correct": correct}) + "\n")
    return flipped


def imports_config(path: Path, folder: str) -> Path:
    fields = {"prompt": "question", "response": "completion", "sample": "n", "score": "correct"}
    entry = {e: {"format": "plain_jsonl", "files": [f"{folder}/{e}.jsonl"], "fields": fields} for e in EVAL_SETS}
    path.write_text(yaml.safe_dump({"imports": {LABEL: {"eval_sets": entry}}}))
    return path


def copy_tree(src: Path, dst: Path) -> Path:
    shutil.copytree(src, dst, symlinks=True, ignore=shutil.ignore_patterns(".snakemake"))
    return dst


@pytest.fixture(scope="module")
def mixed(smoke_run, tmp_path_factory):
    """The smoke tree with the imported label added, `all` run again; (tree, config, flipped ids, plan)."""
    tree = copy_tree(smoke_run, tmp_path_factory.mktemp("mixed") / "tree")
    flipped = write_source(tree, tree / "elsewhere")
    cfg = imports_config(tree / "imports.yaml", "elsewhere")
    plan = run_snakemake(tree, "all", "-n", "--quiet", "rules", config=[SMOKE_CONFIG, cfg]).stdout
    run_snakemake(tree, "all", config=[SMOKE_CONFIG, cfg])
    return tree, cfg, flipped, plan


def test_adding_an_import_plans_its_jobs_and_the_tables_only(mixed):
    *_, plan = mixed
    assert "import_samples" in plan and "agreement_table" in plan, plan
    for rule in ("sample", "train_stage", "pretrain_base", "positional_js", "opening_intervention", "perplexity"):
        assert f"\n{rule} " not in f"\n{plan}", f"an import replanned {rule}:\n{plan}"


def test_the_imported_copy_of_the_base_reads_exactly_as_the_base(mixed):
    tree = mixed[0]
    passk = pd.read_csv(tree / "results/tables/passk.csv")
    cols = [c for c in passk.columns if c not in ("chain",)]
    base = passk[passk["chain"] == "base"][cols].reset_index(drop=True)
    imported = passk[passk["chain"] == LABEL][cols].reset_index(drop=True)
    assert len(imported) == len(base) > 0
    pd.testing.assert_frame_equal(imported, base)
    entropy = pd.read_csv(tree / "results/tables/entropy.csv")
    rows = entropy[entropy["chain"] == LABEL]
    # no token ids came with the import: answer entropy only, equal to the base's (difference 0)
    assert set(rows["metric"]) == {"answer_entropy"} and (rows["diff"] == 0).all()
    openings = pd.read_csv(tree / "results/tables/openings_summary.csv")
    mine = openings[openings["chain"] == LABEL]
    assert set(mine["unit"]) == {"words"} and (mine["in_base_mass"] == 1.0).all()


def test_the_agreement_table_names_exactly_the_flipped_samples(mixed):
    tree, _, flipped, _ = mixed
    t = pd.read_csv(tree / f"results/tables/verifier_agreement/{LABEL}/math.csv", keep_default_na=False)
    row = t.iloc[0]
    disagree = [p for col in ("ours_only_prompts", "theirs_only_prompts") for p in str(row[col]).split(";") if p]
    assert row["ours_only"] + row["theirs_only"] == FLIPPED
    assert sorted(set(disagree)) == sorted(set(flipped["math"]))
    for e in ("if", "joint"):
        t = pd.read_csv(tree / f"results/tables/verifier_agreement/{LABEL}/{e}.csv")
        assert (t["ours_only"] + t["theirs_only"]).sum() == 0 and t["compared"].sum() > 0


def test_audit_of_an_imported_number_ends_at_the_source_file_and_an_edit_fails_it(mixed):
    tree = mixed[0]
    audit = [sys.executable, "-m", "rlvr_support", "audit", "results/samples/copied-base/math.parquet"]
    ok = subprocess.run(audit, cwd=tree, capture_output=True, text=True)
    assert ok.returncode == 0, ok.stdout + ok.stderr
    source = tree / "elsewhere/math.jsonl"
    assert f"elsewhere/math.jsonl  sha256 {hashlib.sha256(source.read_bytes()).hexdigest()[:12]} ok" in ok.stdout
    data = bytearray(source.read_bytes())
    data[-2:-1] = b" " if data[-2:-1] != b" " else b"\t"
    original = source.read_bytes()
    source.write_bytes(bytes(data))
    try:
        bad = subprocess.run(audit, cwd=tree, capture_output=True, text=True)
    finally:
        source.write_bytes(original)
    assert bad.returncode != 0 and "elsewhere/math.jsonl" in bad.stdout + bad.stderr and "STALE" in bad.stdout


def test_a_prompt_set_that_is_not_the_studys_stops_the_import(smoke_run, tmp_path):
    tree = copy_tree(smoke_run, tmp_path / "tree")
    write_source(tree, tree / "short", drop_prompt=True)
    cfg = imports_config(tmp_path / "imports.yaml", "short")
    proc = run_snakemake(tree, "all", config=[SMOKE_CONFIG, cfg], check=False)
    assert proc.returncode != 0
    out = proc.stdout + proc.stderr
    assert "its prompts are not the study's" in out and "1 study prompt(s) not imported" in out, out[-3000:]
    # the failed import left no samples file (atomic writes), so nothing downstream could read one
    assert not (tree / f"results/samples/{LABEL}/math.parquet").exists()


def test_a_glob_that_matches_nothing_is_a_config_error_before_any_job(smoke_run, tmp_path):
    cfg = imports_config(tmp_path / "imports.yaml", "nowhere")
    proc = run_snakemake(smoke_run, "all", "-n", config=[SMOKE_CONFIG, cfg], check=False)
    assert proc.returncode != 0
    assert "imports.copied-base.eval_sets.math.files: 'nowhere/math.jsonl' matches no file" in proc.stdout + proc.stderr


def write_labelled(tree: Path, ckpt: str, folder: Path, name: str) -> None:
    """One checkpoint's samples of each eval set as a plain JSONL with its gold fields (an import-only study's
    base must bring the prompts' answers and instructions), ids the prompt ids' key part."""
    folder.mkdir(parents=True, exist_ok=True)
    for e in EVAL_SETS:
        prompts = {r["id"]: r for r in map(json.loads, (tree / f"results/data/prompts/{e}.jsonl").open())}
        with (folder / f"{name}_{e}.jsonl").open("w") as f:
            for r in pd.read_parquet(tree / f"results/samples/{ckpt}/{e}.parquet").itertuples():
                p = prompts[r.prompt_id]
                f.write(json.dumps({"id": r.prompt_id.rsplit("-", 1)[-1], "question": p["prompt"],
                                    "completion": r.text, "n": int(r.sample_idx),
                                    **{k: p[k] for k in ("answer", "instruction_id_list", "kwargs") if k in p}}) + "\n")


def test_a_study_of_imported_samples_only_reads_as_the_run_they_came_from(smoke_run, tmp_path):
    """base kind import + world kind imports: the smoke run's base and math chain brought back as files give
    the smoke run's own pass@k rows, with nothing trained, sampled or run from a model."""
    write_labelled(smoke_run, "base", tmp_path / "files", "base")
    write_labelled(smoke_run, "math/seed0", tmp_path / "files", "rl")
    smoke = yaml.safe_load(SMOKE_CONFIG.read_text())
    fields = {"prompt": "question", "response": "completion", "sample": "n"}
    entry = lambda name, extra: {e: {"format": "plain_jsonl", "files": [f"files/{name}_{e}.jsonl"],  # noqa: E731
                                     "fields": {**fields, **extra}} for e in EVAL_SETS}
    cfg = {**{k: smoke[k] for k in ("sampling", "eval_sets", "scoring", "resources")},
           "study": "imported", "world": {"kind": "imports", "seed": 0}, "chains": [],
           "base": {"kind": "import", "eval_sets": entry("base", {"id": "id"})},
           "imports": {"rl": {"eval_sets": entry("rl", {})}},
           "analysis": {k: smoke["analysis"][k] for k in ("bootstrap", "ci", "seed", "opening_tokens")}}
    cfg["sampling"].pop("routing")  # the smoke config routes one of its chains; this study trains none
    (tmp_path / "study.yaml").write_text(yaml.safe_dump(cfg))
    plan = run_snakemake(tmp_path, "all", "-n", "--quiet", "rules", config=tmp_path / "study.yaml").stdout
    for rule in ("sample", "train_stage", "pretrain_base", "base_model", "base_metrics", "budget", "positional_js"):
        assert f"\n{rule} " not in f"\n{plan}", f"an import-only study planned {rule}:\n{plan}"
    run_snakemake(tmp_path, "all", config=tmp_path / "study.yaml")
    ours = pd.read_csv(tmp_path / "results/tables/passk.csv")
    theirs = pd.read_csv(smoke_run / "results/tables/passk.csv")
    cols = [c for c in ours.columns if c != "chain"]
    for label, chain in (("base", "base"), ("rl", "math")):
        got = ours[ours["chain"] == label][cols].reset_index(drop=True)
        want = theirs[theirs["chain"] == chain][cols].reset_index(drop=True)
        assert len(got) > 0
        pd.testing.assert_frame_equal(got, want)
    for e in EVAL_SETS:
        assert (tmp_path / f"results/figures/passk_{e}.png").stat().st_size > 0
        assert (tmp_path / f"results/tables/verifier_agreement/rl/{e}.csv").exists()


def test_the_import_example_runs_from_a_clean_directory_on_the_tools_own_files(tmp_path):
    """configs/import-example.yaml, as the README runs it (its own directory beside tests/): every label's
    samples-only tables, the agreement tables, and audit lineage ending at the tools' files."""
    from conftest import REPO

    (tmp_path / "tests").symlink_to(REPO / "tests")
    work = tmp_path / "import-example"
    run_snakemake(work, "all", config=REPO / "configs" / "import-example.yaml")
    headline = pd.read_csv(work / "results/tables/headline.csv")
    assert set(headline["chain"]) == {"base", "verl-step3", "vllm-offline", "trl-grpo", "lighteval"}
    assert (headline["n_prompts"] == 6).all()
    for label in ("base", "verl-step3", "trl-grpo"):  # the tools that scored their samples themselves
        t = pd.read_csv(work / f"results/tables/verifier_agreement/{label}/math.csv")
        assert t["compared"].sum() == 24, label
    audit = subprocess.run([sys.executable, "-m", "rlvr_support", "audit", "results/samples/trl-grpo/math.parquet"],
                           cwd=work, capture_output=True, text=True)
    assert audit.returncode == 0 and "trl/completions/completions_00001.parquet" in audit.stdout, audit.stdout


# ---- `model:` and `tokenizer:` of an imported label (config/import_models.py): what the plan holds, dry runs only

def planned_jobs(plan: str) -> list[tuple[str, list[str], str]]:
    """(rule, outputs, shell command) of each job of a `snakemake -n -p` plan."""
    import re

    jobs = []
    for block in re.split(r"\n(?=(?:local)?rule \w+:\n)", plan):
        head = re.match(r"(?:local)?rule (\w+):\n", block)
        if head:
            out = re.search(r"^    output: (.*)$", block, re.M)
            shell = re.search(r"^Shell command: (.*)$", block, re.M)
            jobs.append((head.group(1), out.group(1).split(", ") if out else [], shell.group(1) if shell else ""))
    return jobs


def model_study(work: Path, shards: int = 1) -> Path:
    """The smoke study in a fresh directory with two imported labels: `lab` with its weights (a folder that passes
    the config's check; a dry run loads nothing), named by large k and single tokens, and `txt` with a tokenizer."""
    from test_external_checkpoints import model_folder

    work.mkdir(parents=True, exist_ok=True)
    (work / "files").mkdir()
    for e in EVAL_SETS:
        (work / "files" / f"{e}.jsonl").write_text('{"q": "x", "r": "y"}\n')
    (work / "tok").mkdir()
    (work / "tok" / "tokenizer_config.json").write_text("{}")
    entry = {e: {"format": "plain_jsonl", "files": [f"files/{e}.jsonl"], "fields": {"prompt": "q", "response": "r"}}
             for e in EVAL_SETS}
    smoke = yaml.safe_load(SMOKE_CONFIG.read_text())
    analysis = {"large_k": {**smoke["analysis"]["large_k"], "checkpoints": ["base", "lab"]},
                "single_token": {**smoke["analysis"]["single_token"], "checkpoints": ["if", "lab"]}}
    cfg = {"imports": {"lab": {"eval_sets": entry, "model": {"kind": "local", "path": str(model_folder(work / "w"))}},
                       "txt": {"eval_sets": entry, "tokenizer": {"path": str(work / "tok")}}},
           "analysis": analysis, "sampling": {"shards": shards}}
    (work / "imports.yaml").write_text(yaml.safe_dump(cfg))
    return work / "imports.yaml"


def test_an_import_with_a_model_gets_the_model_analyses_and_keeps_its_samples_from_its_files(tmp_path):
    cfg = model_study(tmp_path)
    jobs = planned_jobs(run_snakemake(tmp_path, "all", "-n", "-p", config=[SMOKE_CONFIG, cfg]).stdout)
    outputs = {o: rule for rule, outs, _ in jobs for o in outs}
    shells = {rule: shell for rule, _, shell in jobs}
    for e in EVAL_SETS:  # its samples: imported, its own model's tokens given to their text; never sampled
        assert outputs[f"results/samples/lab/{e}.parquet"] == "import_samples"
        assert outputs[f"results/samples/txt/{e}.parquet"] == "import_samples"
    assert not [o for rule, outs, _ in jobs if rule == "sample" for o in outs if "/lab/" in o or "/txt/" in o]
    assert "--tokenizer results/checkpoints/lab/manifest.json" in next(
        s for r, outs, s in jobs if r == "import_samples" and "results/samples/lab/math.parquet" in outs)
    assert "--tokenizer" not in next(
        s for r, outs, s in jobs if r == "import_samples" and "results/samples/txt/math.parquet" in outs)
    # the model analyses cover it like an external checkpoint; the label without a model stays out of them
    assert outputs["results/checkpoints/lab/manifest.json"] == "external_checkpoint"
    assert outputs["results/analysis/js/lab/math.parquet"] == "positional_js"
    assert outputs["results/analysis/perplexity/lab/math.parquet"] == "perplexity"
    assert "lab=results/checkpoints/lab/manifest.json" in shells["opening_intervention"]
    assert outputs["results/large_k/samples/lab/math.parquet"] == "sample_large_k"
    assert outputs["results/single_token/lab/math.parquet"] == "single_token"
    assert not [o for o in outputs if "/txt/" in o and ("analysis/" in o or "large_k/" in o)]
    assert "txt=" not in shells["opening_intervention"]
    # openings: each label in the tokens of its tokenizer, its model's or its own (declared by a local rule)
    assert outputs["results/imports/txt/tokenizer.json"] == "import_tokenizer"
    assert ("--label-tokenizer lab=results/checkpoints/lab/manifest.json txt=results/imports/txt/tokenizer.json"
            in shells["openings_table"])


def test_an_imported_model_and_tokenizer_are_fetched_by_prefetch_and_shards_sample_nothing_for_them(tmp_path):
    cfg = model_study(tmp_path, shards=2)
    prefetch = planned_jobs(run_snakemake(tmp_path, "prefetch", "-n", config=[SMOKE_CONFIG, cfg]).stdout)
    fetched = {o for _, outs, _ in prefetch for o in outs}
    assert {"results/checkpoints/lab/manifest.json", "results/imports/txt/tokenizer.json"} <= fetched
    # with shards, sample_merge could also make the label's samples from sample jobs of its model: ruleorder
    jobs = planned_jobs(run_snakemake(tmp_path, "all", "-n", config=[SMOKE_CONFIG, cfg]).stdout)
    assert not [o for rule, outs, _ in jobs if rule in ("sample", "sample_merge") for o in outs if "/lab/" in o]
    assert {rule for rule, outs, _ in jobs if "results/samples/lab/math.parquet" in outs} == {"import_samples"}


def test_the_math_checkpoints_samples_imported_with_its_weights_read_as_that_checkpoint(smoke_run, tmp_path):
    """The math checkpoint's samples imported as text with its weights (`model:`): the import job gives them the
    model's tokens, so JS teacher-forces them to the checkpoint's own divergences. The base's samples imported as
    text with the base's tokenizer (`tokenizer:`): split like the base's texts, every opening is in its support."""
    tree = copy_tree(smoke_run, tmp_path / "tree")
    write_labelled(tree, "math/seed0", tmp_path / "files", "math")
    write_labelled(tree, "base", tmp_path / "files", "base")
    shutil.copytree(tree / "results/checkpoints/math/seed0/model", tmp_path / "weights")
    fields = {"prompt": "question", "response": "completion", "sample": "n"}

    def entry(name):
        return {e: {"format": "plain_jsonl", "files": [str(tmp_path / f"files/{name}_{e}.jsonl")], "fields": fields}
                for e in EVAL_SETS}

    cfg = {"imports": {
        "lab": {"eval_sets": entry("math"), "model": {"kind": "local", "path": str(tmp_path / "weights")}},
        "txt": {"eval_sets": entry("base"), "tokenizer": {"path": str(tree / "results/checkpoints/base/model")}}}}
    (tmp_path / "imports.yaml").write_text(yaml.safe_dump(cfg))
    run_snakemake(tree, "results/analysis/js/lab/math.parquet", "results/tables/openings_summary.csv",
                  config=[SMOKE_CONFIG, tmp_path / "imports.yaml"])
    assert "24 of them tokenized from their text" in (tree / "results/logs/import/lab/math.log").read_text()
    ours = pd.read_parquet(tree / "results/analysis/js/lab/math.parquet")
    theirs = pd.read_parquet(tree / "results/analysis/js/math/seed0/math.parquet")
    keys = ["source", "prompt_id", "sample_idx", "position"]
    both = ours.merge(theirs, on=keys, suffixes=("", "_math"), validate="one_to_one")
    # the same sequences (the imported ones without the eos the sampler appended: no finish reason came with them)
    sequences = [set(map(tuple, t[keys[:3]].to_numpy())) for t in (ours, theirs)]
    assert len(both) == len(ours) > 0 and sequences[0] == sequences[1]
    assert (both["js"] - both["js_math"]).abs().max() < 1e-6
    summary = pd.read_csv(tree / "results/tables/openings_summary.csv", keep_default_na=False)
    txt = summary[summary["chain"] == "txt"]
    assert len(txt) == len(EVAL_SETS) and set(txt["unit"]) == {"tokens"} and set(txt["tokenizer"]) == {"txt"}
    assert (txt["in_base_mass"] == 1.0).all()


def test_import_jobs_run_first_among_the_ready_jobs(tmp_path):
    """A prompt set that is not the study's stops the run at the import job: the plan gives every import job
    a priority above the jobs that train or sample (workflow/rules/imports.smk)."""
    from conftest import REPO

    (tmp_path / "tests").symlink_to(REPO / "tests")
    plan = run_snakemake(tmp_path / "dry", "all", "-n", config=REPO / "configs" / "import-example.yaml").stdout
    blocks = [b for b in plan.split("rule ")[1:] if b.startswith("import_samples:")]
    assert len(blocks) == 4 and all("priority: 100" in b for b in blocks), plan


def test_a_labels_own_base_reaches_the_support_job(tmp_path):
    """`imports.<label>.base:`: the support job compares that label with the named one (analysis/support_table.py)."""
    from conftest import REPO

    (tmp_path / "tests").symlink_to(REPO / "tests")
    cfg = yaml.safe_load((REPO / "configs" / "import-example.yaml").read_text())
    cfg["imports"]["verl-step3"]["base"] = "lighteval"
    (tmp_path / "based.yaml").write_text(yaml.safe_dump(cfg, sort_keys=False))
    plan = run_snakemake(tmp_path / "dry", "all", "-n", "-p", config=tmp_path / "based.yaml").stdout
    support = [shell for rule, _, shell in planned_jobs(plan) if rule == "support_table"]
    assert len(support) == 1 and "--bases verl-step3=lighteval" in support[0], plan
