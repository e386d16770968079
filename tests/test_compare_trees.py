"""Two results trees compared by the sha256 their sidecars record (review/compare_trees.py, `compare`),
on copies of the stored three-seed tree (tests/data/results-doc/) with one recorded hash changed, or with a
checkpoint manifest written into them (the stored tree holds none) that records other wall-clock seconds."""

from __future__ import annotations

import json
import shutil

import pytest

from conftest import REPO
from rlvr_support.cli.main import main
from rlvr_support.review.compare_trees import compare_trees, recorded_hashes
from rlvr_support.lineage.sidecar import sha256_file

STORED = REPO / "tests" / "data" / "results-doc" / "results"
WEIGHTS = "results/checkpoints/math/seed0/model/model.safetensors"


def _copy(tmp_path, name):
    dest = tmp_path / name / "results"
    shutil.copytree(STORED, dest)
    return dest


def _set_hash(tree, path, sha):
    sidecar = tree / "checkpoints" / "math" / "seed0" / "manifest.json.prov.json"
    rec = json.loads(sidecar.read_text())
    for a in rec["outputs"][0]["artifacts"]:
        if a["path"] == path:
            a["sha256"] = sha
    sidecar.write_text(json.dumps(rec))


def test_a_copy_is_the_same_and_every_checkpoints_weights_are_compared(tmp_path):
    c = compare_trees(STORED, _copy(tmp_path, "b"))
    assert not c.differ and not c.only_a and not c.only_b
    assert WEIGHTS in c.same and "results/tables/claims.md" in c.same
    # base + 5 chains x 3 seeds + 5 remedies x 3 seeds, each with its weights
    assert sum(p.endswith("model.safetensors") and "/step" not in p for p in c.same) == 31


def test_other_weights_are_named_and_exit_1(tmp_path, capsys):
    b = _copy(tmp_path, "b")
    _set_hash(b, WEIGHTS, "0" * 64)
    c = compare_trees(STORED, b)
    assert c.differ == [WEIGHTS]
    assert main(["compare", str(STORED), str(b)]) == 1
    out = capsys.readouterr().out
    assert f"differs: {WEIGHTS}" in out and "1 differ" in out


def test_files_of_one_tree_only_are_counted_not_compared(tmp_path):
    b = _copy(tmp_path, "b")
    shutil.rmtree(b / "checkpoints" / "math-if~kl")
    c = compare_trees(STORED, b)
    assert not c.differ and c.only_a and all("math-if~kl" in p for p in c.only_a) and not c.only_b
    assert main(["compare", str(STORED), str(b)]) == 0


def test_trees_that_share_nothing_or_do_not_exist_are_errors(tmp_path, capsys):
    (tmp_path / "empty").mkdir()
    assert main(["compare", str(STORED), str(tmp_path / "empty")]) == 1
    assert "share no file" in capsys.readouterr().err
    with pytest.raises(FileNotFoundError, match="no such results tree"):
        recorded_hashes(tmp_path / "nowhere")


MANIFEST = "results/checkpoints/math/seed0/manifest.json"


def _with_manifest(tree, **fields):
    """`tree` holding a copy of math/seed0's manifest.json with `fields`, its sidecar recording that file's sha256
    (the stored tree holds sidecars only)."""
    content = {"model_dir": "model", "chain": "math", "seed": 0, "steps": 150, "trained_steps": 150,
               "final_reward": 0.5, "sha256": {"model.safetensors": "ab" * 32}, "seconds": 101.2, **fields}
    path = tree.parent / MANIFEST
    path.write_text(json.dumps(content, indent=2, sort_keys=True) + "\n")
    sidecar = tree / "checkpoints" / "math" / "seed0" / "manifest.json.prov.json"
    rec = json.loads(sidecar.read_text())
    rec["outputs"][0]["sha256"] = sha256_file(path)
    sidecar.write_text(json.dumps(rec))
    return tree


def test_manifests_that_differ_only_in_their_recorded_seconds_are_the_same(tmp_path, capsys):
    a = _with_manifest(_copy(tmp_path, "a"), seconds=101.2, tokens_per_second=5000.0)
    b = _with_manifest(_copy(tmp_path, "b"), seconds=87.9, tokens_per_second=6100.3)
    assert recorded_hashes(a)[MANIFEST] != recorded_hashes(b)[MANIFEST]
    c = compare_trees(a, b)
    assert not c.differ and MANIFEST in c.same and c.wall_clock_only == [MANIFEST]
    assert main(["compare", str(a), str(b)]) == 0
    assert "1 of them checkpoint manifests that differ only in seconds, tokens_per_second" in capsys.readouterr().out
    # any other field still counts
    b = _with_manifest(b, seconds=87.9, trained_steps=149)
    assert compare_trees(a, b).differ == [MANIFEST] and main(["compare", str(a), str(b)]) == 1
    # so does a weight behind the manifest, whatever its seconds
    b = _with_manifest(b, seconds=87.9)
    _set_hash(b, WEIGHTS, "0" * 64)
    assert compare_trees(a, b).differ == [WEIGHTS]


def test_a_manifest_that_a_tree_has_no_copy_of_is_counted_not_compared(tmp_path, capsys):
    """Against a stored copy (sidecars only), a rerun's manifests cannot be read in both trees: not a difference,
    and not silently the same."""
    b = _with_manifest(_copy(tmp_path, "b"))
    c = compare_trees(STORED, b)
    assert c.unchecked == [MANIFEST] and MANIFEST not in c.same and not c.differ
    assert main(["compare", str(STORED), str(b)]) == 0
    assert "1 checkpoint manifests not compared" in capsys.readouterr().out
