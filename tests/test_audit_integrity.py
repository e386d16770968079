"""Damaged, swapped and forged results are found: by every job before it reads its inputs
(lineage/integrity.py, called from provenance.begin) and by `audit` (review/audit.py, which
recomputes every table: review/recompute.py), on a small results tree with real sidecars
written by the project's own provenance writer and a table and figure made by their verbs."""

from __future__ import annotations

import io
import json
import os
import shutil
import time
from pathlib import Path

import pandas as pd
import pytest
import yaml

from conftest import SMOKE_CONFIG
from provenance_helpers import declare
from rlvr_support.cli.main import main, rerun_verb
from rlvr_support.lineage import provenance as prov
from rlvr_support.review.audit import run as audit
from rlvr_support.storage.atomic import read_jsonl, write_json, write_parquet

CONFIG = yaml.safe_load(SMOKE_CONFIG.read_text())
PROMPTS = "results/data/prompts/if.jsonl"
TABLE = "results/tables/table.csv"
HEADLINE = "results/tables/headline.csv"
FIGURE = "results/figures/passk_if.png"
ANALYSIS = json.dumps({"bootstrap": 20, "ci": 0.95, "seed": 0})


def _checkpoint(name: str, weights: bytes) -> Path:
    """A checkpoint as the pipeline declares one: weights in model/, a manifest with their sha256."""
    model = Path(f"results/checkpoints/{name}/model")
    model.mkdir(parents=True)
    (model / "model.safetensors").write_bytes(weights)
    (model / "config.json").write_text('{"model_type": "llama"}\n')
    manifest = model.parent / "manifest.json"
    write_json(manifest, {"model_dir": "model", "chain": name,
                          "sha256": {p.name: prov.sha256_file(p) for p in sorted(model.iterdir())}})
    declare(manifest, "train")
    return manifest


def _samples(name: str, manifest: Path, word: str, drop: tuple = ()) -> Path:
    ids = [r["id"] for r in read_jsonl(PROMPTS) if r["split"] == "eval"]
    df = pd.DataFrame([{"prompt_id": pid, "benchmark": "if", "sample_idx": i, "text": f"{word} {pid} {i} " * 20,
                        "n_tokens": 16, "finish_reason": "length"} for pid in ids for i in range(4)])
    out = Path(f"results/samples/{name}/if.parquet")
    write_parquet(out, df.drop(columns=list(drop)))
    declare(out, "sample", model=manifest, prompts=PROMPTS)
    return out


def _score(samples: Path, out: Path, capsys=None, *flags: str) -> tuple[int, str]:
    rc = main(["score", "--samples", str(samples), "--prompts", PROMPTS, "--cfg", json.dumps(CONFIG["scoring"]),
               "--out", str(out), *flags])
    return rc, capsys.readouterr().err if capsys else ""


def _table(*flags: str) -> int:
    """The pass@k table (and headline) of every score file, by the passk-table verb."""
    scores = sorted(str(p) for p in Path("results/scores").glob("*/if.parquet"))
    return main(["passk-table", "--scores", *scores, "--scores-root", "results/scores", "--cfg", ANALYSIS,
                 "--out", TABLE, "--headline", HEADLINE, *flags])


def _build(root: Path, word: str) -> None:
    """results/: prompts, checkpoints a and b, their samples and scores, and a table made from both."""
    root.mkdir(parents=True, exist_ok=True)
    here = Path.cwd()
    os.chdir(root)
    try:
        assert main(["data", "--cfg", json.dumps(CONFIG["world"]), "--out-dir", "results/data/prompts"]) == 0
        scores = []
        for name, weights in (("a", b"\x01" * 4096), ("b", b"\x02" * 4096)):
            samples = _samples(name, _checkpoint(name, weights), f"{word}-{name}")
            scores.append(Path(f"results/scores/{name}/if.parquet"))
            assert _score(samples, scores[-1])[0] == 0
        assert _table() == 0
        assert main(["figure-passk", "--table", TABLE, "--eval-set", "if", "--out", FIGURE]) == 0
    finally:
        os.chdir(here)


@pytest.fixture
def tree(tmp_path, monkeypatch):
    _build(tmp_path, "w")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def _audit(path, quick: bool = False) -> tuple[int, str]:
    lines = []
    rc = audit(str(path), say=lines.append, quick=quick, rerun=rerun_verb)
    return rc, "\n".join(lines)


def _problems(text: str) -> list[str]:
    return [line.removeprefix("PROBLEM ") for line in text.splitlines() if line.startswith("PROBLEM ")]


WEIGHTS_A = "results/checkpoints/a/model/model.safetensors"
WEIGHTS_B = "results/checkpoints/b/model/model.safetensors"
MANIFEST_A = "results/checkpoints/a/manifest.json"


def _sample_job(capsys) -> tuple[int, str]:
    capsys.readouterr()
    rc = main(["sample", "--model", MANIFEST_A, "--prompts", PROMPTS, "--cfg", json.dumps(CONFIG["sampling"]),
               "--job", "if", "--out", "results/samples/new.parquet"])
    return rc, capsys.readouterr().err


def test_the_tree_audits_clean(tree):
    rc, text = _audit(TABLE)
    assert rc == 0, text
    assert "+ 2 checkpoint files ok" in text and "made by rule train" in text


def test_swapped_weights_are_found_when_the_manifest_sidecar_is_deleted(tree, capsys):
    shutil.copy(WEIGHTS_B, WEIGHTS_A)
    prov.sidecar_of(MANIFEST_A).unlink()
    rc, text = _audit(TABLE)
    assert rc == 1, text
    problems = _problems(text)
    assert any(p.startswith(f"{WEIGHTS_A}: edited:") and "recorded in manifest.json" in p for p in problems), text
    assert any(p.startswith(f"{MANIFEST_A}: no-sidecar:") and "is gone" in p for p in problems), text
    rc, err = _sample_job(capsys)  # and a job that reads the checkpoint stops before loading it
    assert rc == 1 and f"error: input {WEIGHTS_A}: edited: sha256" in err, err
    assert not Path("results/samples/new.parquet").exists()


def test_swapped_weights_are_found_when_the_sidecar_hash_is_patched(tree, capsys):
    shutil.copy(WEIGHTS_B, WEIGHTS_A)
    side = prov.sidecar_of(MANIFEST_A)
    rec = json.loads(side.read_text())
    for a in rec["outputs"][0]["artifacts"]:
        if a["path"] == WEIGHTS_A:
            a["sha256"] = prov.sha256_file(WEIGHTS_B)
    side.write_text(json.dumps(rec))
    rc, text = _audit(TABLE)
    assert rc == 1 and f"error: {WEIGHTS_A} no longer matches its provenance (edited)" in text, text
    assert "recorded in manifest.json" in text
    rc, err = _sample_job(capsys)
    assert rc == 1 and f"error: input {WEIGHTS_A}: edited:" in err and "recorded in manifest.json" in err, err


def test_truncated_weights_stop_the_job_and_are_found_by_the_audit_without_sidecar(tree, capsys):
    data = Path(WEIGHTS_A).read_bytes()
    Path(WEIGHTS_A).write_bytes(data[: len(data) // 2])
    rc, err = _sample_job(capsys)
    assert rc == 1 and f"error: input {WEIGHTS_A}: edited: sha256" in err, err
    prov.sidecar_of(MANIFEST_A).unlink()
    rc, text = _audit(TABLE)
    assert rc == 1 and any(p.startswith(f"{WEIGHTS_A}: edited:") for p in _problems(text)), text


@pytest.mark.parametrize("bit", [8 * 40 + 3, 8 * 700 + 5, 8 * 1200 + 1])
def test_a_bit_flip_in_a_samples_file_stops_scoring_naming_it(tree, capsys, bit):
    samples = Path("results/samples/a/if.parquet")
    data = bytearray(samples.read_bytes())
    data[bit // 8] ^= 1 << (bit % 8)
    samples.write_bytes(bytes(data))
    out = Path("results/scores/a/again.parquet")
    capsys.readouterr()
    rc, err = _score(samples, out, capsys)
    assert rc == 1, err
    assert f"error: input {samples}: edited: sha256" in err and "recorded in if.parquet.prov.json" in err, err
    assert not out.exists()


def _swap(x: Path, y: Path) -> None:
    for a, b in ((x, y), (prov.sidecar_of(x), prov.sidecar_of(y))):
        data = a.read_bytes()
        a.write_bytes(b.read_bytes())
        b.write_bytes(data)


def test_a_file_swapped_with_its_sidecar_is_replaced_not_stale(tree, tmp_path_factory):
    _swap(Path("results/samples/a/if.parquet"), Path("results/samples/b/if.parquet"))
    rc, text = _audit(TABLE)
    assert rc == 1
    assert "no longer matches its provenance (replaced)" in text.splitlines()[-1], text
    bad = [p for p in _problems(text) if "/samples/" in p]
    assert bad and all(": replaced:" in p and "edited/replaced" in p and "rerunning the workflow would" in p
                       for p in bad), bad
    assert "STALE" not in text and "(rerun the workflow)" not in text


def test_a_file_copied_with_its_sidecar_from_another_tree_is_replaced_not_stale(tree, tmp_path_factory):
    other = tmp_path_factory.mktemp("other")
    _build(other, "x")  # made later than this tree, in another working directory
    for p in ("results/samples/a/if.parquet", "results/samples/a/if.parquet.prov.json"):
        shutil.copy(other / p, p)
    rc, text = _audit(TABLE)
    assert rc == 1
    bad = [p for p in _problems(text) if p.startswith("results/samples/a/if.parquet")]
    assert bad and ": replaced:" in bad[0] and "edited/replaced" in bad[0] and "rerunning the workflow would" in bad[0]
    assert "(rerun the workflow)" not in text, text


def test_an_older_version_put_back_with_its_sidecar_is_replaced_not_stale(tree):
    samples = Path("results/samples/a/if.parquet")
    old = {p: p.read_bytes() for p in (samples, prov.sidecar_of(samples))}
    time.sleep(1.1)  # sidecar times have a resolution of one second
    _samples("a", Path(MANIFEST_A), "remade")
    assert _score(samples, Path("results/scores/a/if.parquet"))[0] == 0
    assert _table() == 0
    for p, data in old.items():  # e.g. restored from a backup
        p.write_bytes(data)
    rc, text = _audit(TABLE)
    assert rc == 1
    bad = [p for p in _problems(text) if p.startswith(f"{samples}:")]
    assert bad and ": replaced:" in bad[0] and "from another version" in bad[0], text
    assert "(rerun the workflow)" not in text, text


def test_a_really_stale_file_still_says_rerun(tree):
    samples = Path("results/samples/a/if.parquet")
    samples.unlink()
    _samples("a", Path(MANIFEST_A), "remade")  # remade here, after the scores were made from the old one
    rc, text = _audit(TABLE)
    assert rc == 1 and f"{samples}: stale:" in text and "(rerun the workflow)" in text, text


def test_a_missing_column_error_names_the_file(tree, capsys):
    samples = _samples("c", Path(MANIFEST_A), "w", drop=("text",))
    capsys.readouterr()
    rc, err = _score(samples, Path("results/scores/c/if.parquet"), capsys)
    assert rc == 1 and f"error: {samples}: no column 'text'" in err, err
    assert "Traceback" not in err


def test_audit_of_a_whole_results_tree(tree):
    Path("results/logs").mkdir()
    Path("results/logs/score.log").write_text("a log has no sidecar, and needs none\n")
    rc, text = _audit("results")
    assert rc == 0, text
    assert "4 checkpoint files (checked through their manifests)" in text
    assert "1 in logs/ (Snakemake logs, not under provenance)" in text
    assert "without a sidecar" not in text
    Path("results/tables/stray.csv").write_text("a\n1\n")  # put there by hand
    shutil.copy(prov.sidecar_of(TABLE), "results/tables/gone.csv.prov.json")  # a sidecar whose file is gone
    Path("results/scores/b/if.parquet").write_bytes(b"not what the table was made from")
    rc, text = _audit("results/")
    assert rc == 1
    problems = _problems(text)
    for needle in ("results/tables/stray.csv: no-sidecar:", "results/tables/gone.csv.prov.json: missing:",
                   "results/scores/b/if.parquet: edited:"):
        assert any(p.startswith(needle) for p in problems), (needle, problems)
    assert "1 without a sidecar" in text


def test_a_csv_without_a_needed_column_is_named_by_any_verb(tree, capsys):
    Path("results/tables/passk.csv").write_text("chain,metric,k,mean\nbase,pass@k,1,0.5\n")  # no eval_set
    capsys.readouterr()
    rc = main(["figure-passk", "--table", "results/tables/passk.csv", "--eval-set", "if",
               "--out", "results/figures/passk_if.png", "--import-input", "results/tables/passk.csv"])
    err = capsys.readouterr().err
    assert rc == 1 and "error: results/tables/passk.csv: no column 'eval_set'" in err, err


# ------------------------------------------------------------- issue 30: every number recomputed
def _forge(path: str, old_new) -> None:
    """Edit one cell of `path` and write the edited file's sha256 into its sidecar, as a forger would."""
    text = Path(path).read_text()
    edited = old_new(text)
    assert edited != text
    Path(path).write_text(edited)
    side = prov.sidecar_of(path)
    rec = json.loads(side.read_text())
    for o in rec["outputs"]:
        if o["path"] == path:
            o["sha256"], o["bytes"] = prov.sha256_file(path), Path(path).stat().st_size
    side.write_text(json.dumps(rec))


def _bump_pass1(text: str) -> str:
    df = pd.read_csv(io.StringIO(text))
    df.loc[0, "pass@1"] = df.loc[0, "pass@1"] + 0.2
    return df.to_csv(index=False, float_format="%.6f")


def test_the_audit_recomputes_every_table_of_the_tree(tree):
    rc, text = _audit(TABLE)
    assert rc == 0, text
    assert "recomputed from its inputs (passk-table rerun" in text and "recomputed from their inputs: 1, all matching" in text, text
    rc, text = _audit("results")  # table.csv, table.md, headline.csv and headline.md: one rerun of their job
    assert rc == 0 and "tables recomputed from their inputs: 4, all matching" in text, text


def test_a_forged_cell_with_a_fixed_sidecar_fails_the_audit(tree):
    true = pd.read_csv(HEADLINE).loc[0, "pass@1"]
    _forge(HEADLINE, _bump_pass1)
    assert _audit("results", quick=True)[0] == 0  # the sha256 check alone is fooled: --quick says so
    for target in ("results", HEADLINE):
        rc, text = _audit(target)
        assert rc == 1, text
        problem = next(p for p in _problems(text) if p.startswith(f"{HEADLINE}: differs:"))
        assert "row 1 (chain=a, eval_set=if" in problem, problem
        assert f"column pass@1: the table says {true + 0.2:.6f}, recomputed {true:.6f}" in problem, problem
        assert text.splitlines()[-1] == f"error: {HEADLINE} is not what its inputs give when recomputed (differs)"


def test_a_forged_number_in_the_markdown_or_behind_a_figure_fails_the_audit(tree):
    md = Path(HEADLINE).with_suffix(".md")
    number = next(w for w in md.read_text().split() if w[:1].isdigit() and "." in w)
    _forge(str(md), lambda t: t.replace(number, f"{float(number) + 0.3:.3f}", 1))
    rc, text = _audit(md)
    assert rc == 1 and any(p.startswith(f"{md}: differs:") and "line " in p for p in _problems(text)), text
    # a figure draws its table's numbers: forging the table (and its sidecar) is found from the figure
    _forge(TABLE, lambda t: t.replace("\na,", "\nb,", 1))
    rc, text = _audit(FIGURE)
    assert rc == 1 and any(p.startswith(f"{TABLE}: differs:") for p in _problems(text)), text


def test_a_table_whose_job_cannot_be_rerun_is_unverified(tree):
    side = prov.sidecar_of(TABLE)
    rec = json.loads(side.read_text())
    rec["command"] = rec["command"][:4]  # passk-table without its arguments
    side.write_text(json.dumps(rec))
    rc, text = _audit(TABLE)
    assert rc == 1 and any(p.startswith(f"{TABLE}: unverified: cannot be recomputed") for p in _problems(text)), text


# ------------------------------------------------------------- issue 30: inputs that prove themselves
def test_a_deleted_sidecar_stops_the_next_job_naming_the_file(tree, capsys):
    # weights swapped, the manifest's sha256 fixed to match, its sidecar deleted
    shutil.copy(WEIGHTS_B, WEIGHTS_A)
    manifest = json.loads(Path(MANIFEST_A).read_text())
    manifest["sha256"]["model.safetensors"] = prov.sha256_file(WEIGHTS_A)
    Path(MANIFEST_A).write_text(json.dumps(manifest))
    prov.sidecar_of(MANIFEST_A).unlink()
    rc, err = _sample_job(capsys)
    assert rc == 1 and f"error: input {MANIFEST_A} has no provenance sidecar" in err, err
    assert "--import-input" in err and not Path("results/samples/new.parquet").exists()
    # a score file whose sidecar is gone stops the table
    prov.sidecar_of("results/scores/b/if.parquet").unlink()
    capsys.readouterr()
    assert _table() == 1
    err = capsys.readouterr().err
    assert "error: input results/scores/b/if.parquet has no provenance sidecar" in err and "Traceback" not in err, err


def test_a_deliberate_import_is_recorded_and_audited_as_one(tree, capsys):
    scores = "results/scores/b/if.parquet"
    prov.sidecar_of(scores).unlink()
    assert _table("--import-input", scores) == 0
    rec = prov.load(prov.sidecar_of(scores))
    assert rec["verb"] == "import" and rec["imported"] is True and rec["inputs"] == []
    rc, text = _audit(TABLE)
    assert rc == 0, text
    assert "imported by hand (--import-input)" in text


def test_an_input_edited_after_its_sidecar_is_refused_as_before(tree, capsys):
    scores = Path("results/scores/a/if.parquet")
    scores.write_bytes(scores.read_bytes() + b"\0")
    capsys.readouterr()
    assert _table() == 1
    assert f"error: input {scores}: edited: sha256" in capsys.readouterr().err


# ------------------------------------------------------------- issue 30: content checked against the schema
def _samples_with(name: str, **columns) -> Path:
    path = _samples(name, Path(MANIFEST_A), "w")
    df = pd.read_parquet(path)
    for col, values in columns.items():
        df[col] = values(df)
    write_parquet(path, df)
    declare(path, "sample", model=MANIFEST_A, prompts=PROMPTS)
    return path


def test_a_samples_file_with_integer_text_is_refused_naming_file_and_column(tree, capsys):
    samples = _samples_with("c", text=lambda df: range(len(df)))
    out = Path("results/scores/c/if.parquet")
    capsys.readouterr()
    rc, err = _score(samples, out, capsys)
    assert rc == 1 and f"error: {samples}: column 'text' holds integer values" in err and "is string" in err, err
    assert "Traceback" not in err and not out.exists()


def test_an_unknown_prompt_id_names_both_files(tree, capsys):
    samples = _samples_with("c", prompt_id=lambda df: df["prompt_id"].where(df.index > 0, "no-such-prompt"))
    capsys.readouterr()
    rc, err = _score(samples, Path("results/scores/c/if.parquet"), capsys)
    assert rc == 1 and f"error: {samples}: column 'prompt_id': 1 id(s) not in {PROMPTS}: no-such-prompt" in err, err


def test_a_scores_file_with_text_rewards_is_refused_naming_file_and_column(tree, capsys):
    scores = "results/scores/b/if.parquet"
    df = pd.read_parquet(scores)
    df["reward"] = df["reward"].map(lambda r: f"{r:.1f}")
    write_parquet(scores, df)
    declare(scores, "score", samples="results/samples/b/if.parquet", prompts=PROMPTS)
    capsys.readouterr()
    assert _table() == 1
    err = capsys.readouterr().err
    assert f"error: {scores}: column 'reward' holds string values" in err and "is float" in err, err


# ------------------------------------------------------------- issue 30: a tree that moves
def test_a_moved_tree_audits_clean_and_a_rerun_in_it_is_stale_not_replaced(tree, tmp_path_factory, monkeypatch):
    moved = tmp_path_factory.mktemp("elsewhere") / "study"
    shutil.copytree(tree, moved, symlinks=True)
    shutil.rmtree(tree / "results")  # moved, not copied: the old place is gone
    monkeypatch.chdir(moved)
    rc, text = _audit("results")
    assert rc == 0, text
    rc, text = _audit(FIGURE)
    assert rc == 0 and "recomputed from its inputs" in text, text
    # the workflow remakes the samples and scores of `a` here (as after a config change), not the table yet
    time.sleep(1.1)  # sidecar times have a resolution of one second
    samples = _samples("a", Path(MANIFEST_A), "remade")
    assert _score(samples, Path("results/scores/a/if.parquet"))[0] == 0
    rc, text = _audit(TABLE)
    assert rc == 1
    bad = [p for p in _problems(text) if p.startswith("results/scores/a/if.parquet:")]
    assert bad and ": stale:" in bad[0] and "(rerun the workflow)" in bad[0], text
    assert ": replaced:" not in text, text


# ------------------------------------------------------------- issue 30: one-line errors
def _cli_error(capsys, argv: list[str]) -> str:
    capsys.readouterr()
    assert main(argv) == 1
    err = capsys.readouterr().err
    assert "Traceback" not in err and len([line for line in err.splitlines() if line.startswith("error:")]) == 1, err
    return err


def test_explaining_a_number_of_a_figure_or_of_the_markdown_says_where_the_numbers_are(tree, capsys):
    err = _cli_error(capsys, ["audit", FIGURE, "--row", "chain=a,metric=pass@k,k=1"])
    assert f"error: {FIGURE}: --row explains a number of a CSV table" in err and f"come from {TABLE}" in err, err
    md = str(Path(HEADLINE).with_suffix(".md"))
    err = _cli_error(capsys, ["audit", md, "--row", "chain=a"])
    assert f"error: {md} shows the numbers of {HEADLINE}" in err, err


def test_a_read_only_results_folder_is_a_one_line_error(tree, capsys, monkeypatch):
    tables = Path("results/tables")
    tables.chmod(0o555)
    if os.geteuid() == 0:  # root writes anywhere: make the kernel's refusal happen as it would for a user
        real = os.open

        def refuse(path, flags, *a, **kw):
            if flags & (os.O_CREAT | os.O_WRONLY | os.O_RDWR) and Path(path).resolve().parent == tables.resolve():
                raise PermissionError(13, "Permission denied", str(path))
            return real(path, flags, *a, **kw)

        monkeypatch.setattr(os, "open", refuse)
    try:
        err = _cli_error(capsys, ["passk-table", "--scores", "results/scores/a/if.parquet", "--scores-root",
                                  "results/scores", "--cfg", ANALYSIS, "--out", "results/tables/new.csv"])
    finally:
        tables.chmod(0o755)
    assert "error: results/tables/new.csv: Permission denied" in err, err


def test_recomputing_with_several_processes_finds_the_same(tree):
    assert main(["passk-table", "--scores", "results/scores/a/if.parquet", "--scores-root", "results/scores",
                 "--cfg", ANALYSIS, "--out", "results/tables/a_only.csv"]) == 0  # a second table job
    _forge(HEADLINE, _bump_pass1)
    lines = []
    rc = audit("results", say=lines.append, rerun=rerun_verb, jobs=2)
    assert rc == 1 and lines[-1] == f"error: {HEADLINE} is not what its inputs give when recomputed (differs)", lines
    assert sum(p.startswith("PROBLEM ") for p in lines) == 1, lines
    from rlvr_support.review.audit import _table_jobs

    assert len({json.dumps(rec["command"]) for rec, _ in _table_jobs(Path("results"))}) == 2
