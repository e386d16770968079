"""Provenance sidecars and `audit`, on the cheap verbs (data, corpus) run in a temp dir."""

from __future__ import annotations

import argparse
import csv
import json
import shutil
from pathlib import Path

import pandas as pd

import pytest
import yaml

from conftest import SMOKE_CONFIG
from rlvr_support.lineage import provenance as prov
from rlvr_support.review.audit import run as run_audit
from rlvr_support.cli.main import main, rerun_verb

WORLD = json.dumps(yaml.safe_load(SMOKE_CONFIG.read_text())["world"])


@pytest.fixture
def data_dir(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert main(["data", "--cfg", WORLD, "--out-dir", "results/data/prompts"]) == 0
    assert main(["corpus", "--cfg", WORLD, "--prompts-dir", "results/data/prompts",
                 "--out", "results/data/corpus.jsonl"]) == 0
    return tmp_path


def audit(path, **kw) -> int:
    """The `audit` verb as the CLI runs it: tables recomputed by rerunning their verbs."""
    return run_audit(path, rerun=rerun_verb, **kw)


def _audit(path):
    lines = []
    rc = audit(str(path), say=lines.append)
    return rc, "\n".join(lines)


def test_every_output_gets_a_sidecar_pointing_at_its_inputs(data_dir):
    rec = prov.load("results/data/corpus.jsonl.prov.json")
    assert rec["verb"] == "corpus" and rec["rule"] == "toy_corpus"
    assert rec["config"]["cfg"]["seed"] == 7 and rec["seeds"] == {"cfg.seed": 7}
    assert [o["path"] for o in rec["outputs"]] == ["results/data/corpus.jsonl"]
    assert rec["outputs"][0]["sha256"] == prov.sha256_file("results/data/corpus.jsonl")
    inputs = {i["path"]: i for i in rec["inputs"]}
    assert set(inputs) == {f"results/data/prompts/{t}.jsonl" for t in ("math", "if", "joint")}
    for path, i in inputs.items():
        assert i["sha256"] == prov.sha256_file(path) and i["sidecar"] == path + ".prov.json"
    for key in ("git_commit", "git_dirty", "package_hash"):
        assert key in rec["code"]
    assert rec["packages"]["torch"] and rec["packages"]["trl"] and rec["host"] and rec["started"] <= rec["finished"]
    data_rec = prov.load("results/data/prompts/math.jsonl.prov.json")
    assert data_rec["inputs"] == [] and len(data_rec["outputs"]) == 3


def test_sidecars_leave_outputs_byte_identical(data_dir, tmp_path_factory, monkeypatch):
    other = tmp_path_factory.mktemp("again")
    monkeypatch.chdir(other)
    assert main(["data", "--cfg", WORLD, "--out-dir", "results/data/prompts"]) == 0
    for t in ("math", "if", "joint"):
        a, b = data_dir / f"results/data/prompts/{t}.jsonl", other / f"results/data/prompts/{t}.jsonl"
        assert a.read_bytes() == b.read_bytes()
        assert not any(p.name.endswith(".prov.json") for p in a.parent.glob("*.jsonl"))


def test_audit_passes_then_names_an_edited_input(data_dir):
    rc, text = _audit("results/data/corpus.jsonl")
    assert rc == 0, text
    assert "made by rule toy_data" in text and "all 4 files match" in text
    with open("results/data/prompts/if.jsonl", "a") as f:
        f.write("\n")
    rc, text = _audit("results/data/corpus.jsonl")
    assert rc == 1
    assert text.splitlines()[-1].startswith("error: results/data/prompts/if.jsonl no longer matches")


def test_audit_names_a_stale_result_whose_input_was_remade(data_dir):
    world = json.loads(WORLD)
    world["seed"] += 1
    assert main(["data", "--cfg", json.dumps(world), "--out-dir", "results/data/prompts"]) == 0
    rc, text = _audit("results/data/corpus.jsonl")
    assert rc == 1 and "STALE" in text
    assert "no longer matches its provenance (stale)" in text.splitlines()[-1]


def test_audit_names_an_edited_output_and_a_missing_input(data_dir):
    Path("results/data/prompts/joint.jsonl").unlink()
    rc, text = _audit("results/data/corpus.jsonl")
    assert rc == 1 and "error: results/data/prompts/joint.jsonl" in text and "MISSING" in text
    corpus = Path("results/data/corpus.jsonl")
    corpus.write_text(corpus.read_text().replace("a", "b", 1))
    rc, text = _audit(corpus)
    assert rc == 1 and "error: results/data/corpus.jsonl no longer matches its provenance (edited)" in text


def test_audit_of_a_file_without_sidecar_fails(tmp_path):
    f = tmp_path / "x.csv"
    f.write_text("a\n1\n")
    rc, text = _audit(f)
    assert rc == 1 and "no-sidecar" in text


def test_failed_verb_leaves_neither_output_nor_sidecar(data_dir):
    Path("results/data/prompts/math.jsonl").write_text('{"id": 1}\n{broken\n')
    assert main(["corpus", "--cfg", WORLD, "--prompts-dir", "results/data/prompts", "--out", "results/bad.jsonl"]) == 1
    assert not Path("results/bad.jsonl").exists() and not Path("results/bad.jsonl.prov.json").exists()
    assert not list(Path("results").glob(".bad.jsonl*")), "a temp file was left behind"


def test_rerun_replaces_a_stale_sidecar_even_if_the_verb_fails(data_dir):
    out = Path("results/data/corpus.jsonl")
    Path("results/data/prompts/math.jsonl").write_text("{broken\n")
    assert main(["corpus", "--cfg", WORLD, "--prompts-dir", "results/data/prompts", "--out", str(out)]) == 1
    assert not prov.sidecar_of(out).exists(), "an old sidecar survived a failed rerun of its job"


def _ns(**kw):
    return argparse.Namespace(verb="x", fn=None, **kw)


def test_declared_files_convention_and_override(tmp_path):
    a, b, d = tmp_path / "a.jsonl", tmp_path / "b.parquet", tmp_path / "dir"
    a.write_text("1")
    b.write_text("2")
    d.mkdir()
    (d / "c.txt").write_text("3")
    (d / "c.txt.prov.json").write_text("{}")
    ins, outs = prov.declared_files(_ns(prompts=[f"math={a}"], samples=str(b), dir=str(d), job="m/seed0/if", empty="",
                                        cfg={"seed": 1}, out=str(tmp_path / "o.csv"), headline=None))
    assert ins == [str(a), str(b), str(d / "c.txt")] and outs == [str(tmp_path / "o.csv")]
    ins, outs = prov.declared_files(_ns(src=str(a), dst=str(b), prov_inputs=["src"], prov_outputs=["dst"]))
    assert ins == [str(a)] and outs == [str(b)]


def test_manifest_lists_checkpoint_files_as_artifacts(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "ck/model").mkdir(parents=True)
    (tmp_path / "ck/model/weights.bin").write_bytes(b"w" * 10)
    (tmp_path / "ck/manifest.json").write_text('{"model_dir": "model"}')
    rec = prov.begin(_ns(out="ck/manifest.json"), ["x"])
    prov.finish(rec)
    side = prov.load("ck/manifest.json.prov.json")
    arts = side["outputs"][0]["artifacts"]
    assert [a["path"] for a in arts] == ["ck/model/weights.bin"]
    assert _audit("ck/manifest.json")[0] == 0
    (tmp_path / "ck/model/weights.bin").unlink()
    rc, text = _audit("ck/manifest.json")
    assert rc == 1 and "error: ck/model/weights.bin no longer matches its provenance (missing)" in text


SIDECAR_DIRS = ("data", "tables", "figures", "samples", "scores")


@pytest.mark.snakemake
def test_smoke_run_has_a_sidecar_beside_every_result_and_audits_clean(smoke_run, monkeypatch):
    results = smoke_run / "results"
    files = [p for d in SIDECAR_DIRS for p in (results / d).rglob("*")
             if p.is_file() and not p.name.endswith(".prov.json") and not p.name.startswith(".")]
    files += list((results / "checkpoints").rglob("manifest.json"))
    missing = [str(p.relative_to(smoke_run)) for p in files if not prov.sidecar_of(p).is_file()]
    assert not missing, f"results without a provenance sidecar: {missing[:10]}"
    monkeypatch.chdir(smoke_run)
    rc, text = _audit("results/tables/headline.csv")
    assert rc == 0, text[-3000:]
    for needle in ("made by rule passk_table", "made by rule score", "made by rule sample", "made by rule train_stage",
                   "made by rule pretrain_base", "made by rule toy_corpus", "made by rule toy_data",
                   "checkpoint files ok", "recomputed from its inputs (passk-table rerun"):
        assert needle in text, f"lineage lacks {needle!r}"


@pytest.mark.snakemake
def test_a_copied_smoke_tree_audits_clean_with_every_table_recomputed(smoke_run, tmp_path, monkeypatch):
    """`audit results/` on a copy of the smoke run elsewhere (sidecars hold relative paths): every
    table of every verb the default DAG runs is recomputed from its inputs and matches; then the
    forgery of the issue (one headline cell, its sha256 written into the sidecar) fails it."""
    shutil.copytree(smoke_run / "results", tmp_path / "results", symlinks=True)
    monkeypatch.chdir(tmp_path)
    lines = []
    assert run_audit("results", say=lines.append, rerun=rerun_verb) == 0, "\n".join(lines)[-3000:]
    tables = {p for p in Path("results").rglob("*") if p.suffix in (".csv", ".md") and prov.sidecar_of(p).is_file()}
    assert f"tables recomputed from their inputs: {len(tables)}, all matching" in lines[-1], lines[-3:]
    head = Path("results/tables/headline.csv")
    df = pd.read_csv(head)
    df.loc[0, "pass@1"] += 0.2
    head.write_text(df.to_csv(index=False, float_format="%.6f"))
    side = prov.sidecar_of(head)
    rec = json.loads(side.read_text())
    next(o for o in rec["outputs"] if o["path"] == str(head))["sha256"] = prov.sha256_file(head)
    side.write_text(json.dumps(rec))
    lines.clear()
    assert run_audit("results", say=lines.append, rerun=rerun_verb) == 1
    assert lines[-1] == f"error: {head} is not what its inputs give when recomputed (differs)", lines[-3:]


@pytest.mark.snakemake
def test_explain_one_number_recomputes_it_from_the_score_files(smoke_run, monkeypatch):
    monkeypatch.chdir(smoke_run)
    lines = []
    rc = audit("results/tables/passk.csv", row="chain=math,eval_set=if,metric=pass@k,k=1", column="mean",
               say=lines.append)
    text = "\n".join(lines)
    assert rc == 0, text[-3000:]
    assert "scores  results/scores/math/seed0/if.parquet: " in text
    assert "samples results/samples/math/seed0/if.parquet" in text
    assert "Unbiased pass@k estimator (Chen et al. 2021)" in text and text.rstrip().endswith("matches")
    lines.clear()
    assert audit("results/tables/headline.csv", row="chain=joint,eval_set=math", column="best@kmax_hi",
                 say=lines.append) == 0, "\n".join(lines)[-2000:]


@pytest.fixture
def passk_tables(tmp_path, monkeypatch):
    """passk.csv and headline.csv of a score file with two benchmarks, made by the passk-table verb."""
    from benchmark_scores import write_benchmark_scores
    from provenance_helpers import declare

    monkeypatch.chdir(tmp_path)
    scores = write_benchmark_scores(Path("results/scores"), "base", "math",
                                    {"gsm8k": {"g0": [1, 0, 0, 0], "g1": [0, 0, 0, 0]},
                                     "math500": {"m0": [1, 1], "m1": [0, 1], "m2": [0, 0]}})
    declare(scores, "score")  # a score file without sidecar would be a finding of the audit
    assert main(["passk-table", "--scores", str(scores), "--scores-root", "results/scores",
                 "--cfg", json.dumps({"bootstrap": 50, "ci": 0.9, "seed": 0}), "--out", "results/tables/passk.csv",
                 "--headline", "results/tables/headline.csv", "--out-difficulty", "results/tables/difficulty.csv"]) == 0
    return tmp_path


def test_explain_a_number_of_the_difficulty_table_and_an_edit_of_it(passk_tables):
    # gsm8k's bin (0-0.25] holds g0 (1 of 4 correct): the base's pass@1 there is 0.25
    lines = []
    row = "chain=base,benchmark=gsm8k,bin=(0-0.25]"
    assert audit("results/tables/difficulty.csv", row=row, column="pass@1", say=lines.append) == 0, "\n".join(lines)
    text = "\n".join(lines)
    assert "pass@1 = 0.25" in text and "base/math.parquet" in text and text.rstrip().endswith("matches")
    table = Path("results/tables/difficulty.csv")
    rows = list(csv.reader(table.read_text().splitlines()))
    cell = [r for r in rows[1:] if r[rows[0].index("benchmark")] == "gsm8k" and r[rows[0].index("bin")] == "(0-0.25]"]
    assert len(cell) == 1 and cell[0][rows[0].index("pass@1")] == "0.250000"
    cell[0][rows[0].index("pass@1")] = "0.350000"
    with table.open("w", newline="") as f:
        csv.writer(f, lineterminator="\n").writerows(rows)
    lines.clear()
    assert audit(str(table), row=row, column="pass@1", say=lines.append) == 1
    assert "0.250000; table says 0.350000: DOES NOT MATCH" in "\n".join(lines)


def test_explain_a_number_of_one_benchmark_of_a_file_with_two(passk_tables):
    lines = []
    assert audit("results/tables/passk.csv", row="chain=base,eval_set=math,benchmark=math500,metric=pass@k,k=2",
                 column="mean", say=lines.append) == 0, "\n".join(lines)[-2000:]
    text = "\n".join(lines)
    assert "results/scores/base/math.parquet [math500]: 3 prompts x 2 samples" in text and "[gsm8k]" not in text
    assert text.rstrip().endswith("matches")
    for table, row, column in (("passk", "benchmark=all,metric=pass@k,k=1", "ci_high"),
                               ("headline", "benchmark=gsm8k", "best@kmax")):
        lines.clear()
        assert audit(f"results/tables/{table}.csv", row=f"chain=base,eval_set=math,{row}", column=column,
                     say=lines.append) == 0, "\n".join(lines)[-2000:]
        assert "\n".join(lines).rstrip().endswith("matches")


@pytest.mark.parametrize("sidecar", ["kept", "forged"])
def test_explain_names_an_edited_cell_and_its_recomputed_value(passk_tables, sidecar):
    # math500's pass@1 by hand: prompts with 2/2, 1/2 and 0/2 successes, (1 + 0.5 + 0) / 3 = 0.5; the cell says 0.75
    table = Path("results/tables/passk.csv")
    rows = list(csv.reader(table.read_text().splitlines()))
    col, key = rows[0].index("mean"), [rows[0].index(c) for c in ("benchmark", "metric", "k")]
    edited = [r for r in rows[1:] if [r[i] for i in key] == ["math500", "pass@k", "1"]]
    assert len(edited) == 1 and float(edited[0][col]) == pytest.approx(0.5)
    edited[0][col] = "0.75"
    with table.open("w", newline="") as f:
        csv.writer(f, lineterminator="\n").writerows(rows)
    if sidecar == "forged":  # the edit covered up: the sidecar records the new file's sha256
        side = prov.sidecar_of(table)
        rec = json.loads(side.read_text())
        next(o for o in rec["outputs"] if o["path"] == str(table))["sha256"] = prov.sha256_file(table)
        side.write_text(json.dumps(rec))
    lines = []
    rc = audit(str(table), row="chain=base,eval_set=math,benchmark=math500,metric=pass@k,k=1", column="mean",
               say=lines.append)
    text = "\n".join(lines)
    assert rc == 1, text[-2000:]
    assert "recomputed from the score files" in text and ": 0.500000; table says 0.750000: DOES NOT MATCH" in text
    assert ("error: results/tables/passk.csv [chain=base,eval_set=math,benchmark=math500,metric=pass@k,k=1] mean: "
            "the table's value does not match") in text
    last = text.splitlines()[-1]
    if sidecar == "kept":
        assert last == "error: results/tables/passk.csv no longer matches its provenance (edited)"
    else:  # the sha256 holds, but the audit recomputes the table by default: the cell differs
        assert "PROBLEM" in text and "differs" in text
        assert last == "error: results/tables/passk.csv is not what its inputs give when recomputed (differs)"
