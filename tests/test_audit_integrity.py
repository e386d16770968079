"""Damaged, swapped and forged results are found: by every job before it reads its inputs
(lineage/integrity.py, called from provenance.begin) and by `audit` (lineage/audit.py), on a
small results tree with real sidecars written by the project's own provenance writer."""

from __future__ import annotations

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
from rlvr_support.cli.main import main
from rlvr_support.lineage import provenance as prov
from rlvr_support.lineage.audit import run as audit
from rlvr_support.storage.atomic import read_jsonl, write_json, write_parquet

CONFIG = yaml.safe_load(SMOKE_CONFIG.read_text())
PROMPTS = "results/data/prompts/if.jsonl"
TABLE = "results/tables/table.csv"


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


def _score(samples: Path, out: Path, capsys=None) -> tuple[int, str]:
    rc = main(["score", "--samples", str(samples), "--prompts", PROMPTS, "--cfg", json.dumps(CONFIG["scoring"]),
               "--out", str(out)])
    return rc, capsys.readouterr().err if capsys else ""


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
        Path(TABLE).parent.mkdir(parents=True)
        Path(TABLE).write_text("chain,value\na,1\nb,2\n")
        declare(TABLE, "passk-table", scores=scores)
    finally:
        os.chdir(here)


@pytest.fixture
def tree(tmp_path, monkeypatch):
    _build(tmp_path, "w")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def _audit(path) -> tuple[int, str]:
    lines = []
    rc = audit(str(path), say=lines.append)
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
    declare(TABLE, "passk-table", scores=sorted(Path("results/scores").glob("*/if.parquet")))
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
               "--out", "results/figures/passk_if.png"])
    err = capsys.readouterr().err
    assert rc == 1 and "error: results/tables/passk.csv: no column 'eval_set'" in err, err
