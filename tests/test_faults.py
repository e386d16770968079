"""Faults: truncated or corrupt inputs give a clear error naming the file (never a wrong number),
and no output is left half-written when a verb fails. Runs the verbs by hand on a copy of the
smoke run's results."""

from __future__ import annotations

import ast
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from conftest import REPO, SMOKE_CONFIG

CONFIG = yaml.safe_load(SMOKE_CONFIG.read_text())


@pytest.fixture
def results(smoke_run, tmp_path):
    shutil.copytree(smoke_run / "results", tmp_path / "results",
                    ignore=shutil.ignore_patterns("logs", "benchmarks", "_partial"))
    return tmp_path


def _cli(cwd, *args):
    return subprocess.run([sys.executable, "-m", "rlvr_support", *args], cwd=cwd, capture_output=True,
                          text=True, timeout=300)


def _cut(path: Path, keep: float = 0.5) -> None:
    data = path.read_bytes()
    path.write_bytes(data[: int(len(data) * keep)])


def _assert_clean_failure(proc, names: str, out: Path):
    assert proc.returncode != 0
    errors = [line for line in proc.stderr.splitlines() if line.startswith("error:")]
    assert errors and names in errors[0], proc.stderr[-2000:]
    assert "Traceback" not in proc.stderr, proc.stderr[-2000:]
    assert not out.exists() and not Path(f"{out}.prov.json").exists()
    assert not list(out.parent.glob(f".{out.name}.*")) if out.parent.exists() else True


@pytest.mark.slow
def test_cut_scores_parquet_stops_the_table_naming_it(results):
    # the full-budget checkpoints' scores (trajectory points, <run>/step<s>/, have their own table)
    scores = sorted(p for p in (results / "results/scores").rglob("*.parquet") if p.parent.name[:4] != "step")
    _cut(scores[3])
    out = results / "results/tables/new.csv"
    proc = _cli(results, "passk-table", "--scores", *map(str, scores), "--scores-root", "results/scores",
                "--cfg", json.dumps(CONFIG["analysis"]), "--out", str(out))
    _assert_clean_failure(proc, str(scores[3]), out)


@pytest.mark.slow
def test_cut_samples_parquet_stops_scoring_naming_it(results):
    samples = results / "results/samples/base/math.parquet"
    _cut(samples, 0.9)
    out = results / "results/scores/base/new.parquet"
    proc = _cli(results, "score", "--samples", str(samples), "--prompts", "results/data/prompts/math.jsonl",
                "--cfg", json.dumps(CONFIG["scoring"]), "--out", str(out))
    _assert_clean_failure(proc, str(samples), out)


@pytest.mark.slow
@pytest.mark.parametrize("damage", ["missing", "truncated"])
def test_damaged_model_file_stops_sampling_naming_it(results, damage):
    weights = results / "results/checkpoints/math/seed0/model/model.safetensors"
    weights.unlink() if damage == "missing" else _cut(weights)
    out = results / "results/samples/new.parquet"
    proc = _cli(results, "sample", "--model", "results/checkpoints/math/seed0/manifest.json",
                "--prompts", "results/data/prompts/math.jsonl", "--cfg", json.dumps(CONFIG["sampling"]),
                "--job", "math/seed0/math", "--out", str(out))
    _assert_clean_failure(proc, "results/checkpoints/math/seed0/model", out)


@pytest.mark.slow
def test_audit_of_the_copied_run_names_a_cut_file(results):
    proc = _cli(results, "audit", "results/tables/headline.csv")
    assert proc.returncode == 0, proc.stdout[-3000:]
    _cut(results / "results/samples/if/seed0/joint.parquet", 0.99)
    proc = _cli(results, "audit", "results/tables/headline.csv")
    assert proc.returncode == 1
    assert proc.stdout.strip().splitlines()[-1].startswith(
        "error: results/samples/if/seed0/joint.parquet no longer matches its provenance")


WRITERS = {"to_csv", "to_parquet", "savefig", "write_text", "write_bytes", "save", "save_pretrained",
           "save_model", "to_json"}
ATOMIC_CONTEXTS = {"atomic_path", "atomic_dir", "TemporaryDirectory", "mkdtemp"}
# Reviewed exceptions: (file, function or "<module>") with the reason they are safe.
ALLOWED = {("sampling/vllm_backend.py", "_main"): "vLLM child process writing into the parent's TemporaryDirectory",
           ("cli/warm_server.py", "_start_server"): "a warm server's own log, appended to: no result",
           ("cli/warm_server.py", "serve"): "an empty marker that a warm server listens: no result"}


def _name(node) -> str:
    return node.attr if isinstance(node, ast.Attribute) else node.id if isinstance(node, ast.Name) else ""


def test_every_writer_in_the_package_writes_atomically():
    """Every file write in the package happens inside `with atomic_path/atomic_dir` (or a temp dir)."""
    bad = []
    for path in sorted((REPO / "src/rlvr_support").rglob("*.py")):
        rel = path.relative_to(REPO / "src/rlvr_support").as_posix()
        if rel == "storage/atomic.py":
            continue

        def visit(node, safe: bool, func: str):
            if isinstance(node, (ast.With, ast.AsyncWith)):
                safe = safe or any(isinstance(i.context_expr, ast.Call) and _name(i.context_expr.func) in ATOMIC_CONTEXTS
                                   for i in node.items)
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                func = node.name
            if isinstance(node, ast.Call) and not safe and (rel, func) not in ALLOWED:
                fn = _name(node.func)
                mode = [a.value for a in node.args[1:2] + [k.value for k in node.keywords if k.arg == "mode"]
                        if isinstance(a, ast.Constant)]
                writes = fn in WRITERS or (fn == "open" and any(m and m[0] in "wax" for m in mode))
                if fn in ("write_text", "write_bytes") and not isinstance(node.func, ast.Attribute):
                    writes = False  # atomic.write_text
                if fn in ("to_csv", "to_json") and not node.args and not any(k.arg == "path_or_buf" for k in node.keywords):
                    writes = False  # returns a string
                if fn == "save" and _name(getattr(node.func, "value", None)) != "torch":
                    writes = False
                # a temp/staging path published by atomic.py (atomic_path, atomic_dir, publish_dir)
                uses_tmp = any(w in _name(n).lower() for n in ast.walk(node) if isinstance(n, ast.Name)
                               for w in ("tmp", "staged", "staging"))
                if writes and not uses_tmp:
                    bad.append(f"{rel}:{node.lineno} ({func}): {ast.unparse(node)[:80]}")
            for child in ast.iter_child_nodes(node):
                visit(child, safe, func)

        visit(ast.parse(path.read_text()), False, "<module>")
    assert not bad, "writes outside atomic.py's atomic_path/atomic_dir:\n" + "\n".join(bad)
