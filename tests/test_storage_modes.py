"""storage.atomic on a shared cluster: modes follow the umask, a killed writer's temp files are
cleaned up, and an output is on disk (fsynced) before it is renamed into place."""

from __future__ import annotations

import argparse
import os
import signal
import stat
import subprocess
import sys
import textwrap

import pytest

from rlvr_support.lineage import provenance
from rlvr_support.storage import atomic


@pytest.fixture
def umask():
    def set_to(mask):
        os.umask(mask)

    old = os.umask(0o077)
    os.umask(old)
    yield set_to
    os.umask(old)


@pytest.mark.parametrize("mask, file_mode, dir_mode", [(0o022, 0o644, 0o755), (0o002, 0o664, 0o775)])
def test_outputs_follow_the_umask(tmp_path, umask, mask, file_mode, dir_mode):
    umask(mask)
    atomic.write_text(tmp_path / "a.txt", "x")
    atomic.write_json(tmp_path / "sub" / "b.json", {"a": 1})
    with atomic.atomic_dir(tmp_path / "model") as d:
        (d / "w.bin").write_bytes(b"w")
        private = os.open(d / "model.safetensors", os.O_CREAT | os.O_WRONLY, 0o600)  # as safetensors writes it
        os.close(private)
        (d / "sub").mkdir(mode=0o700)
    staged = tmp_path / "staged"
    staged.mkdir(mode=0o700)
    os.close(os.open(staged / "w.safetensors", os.O_CREAT | os.O_WRONLY, 0o600))
    atomic.publish_dir(staged, tmp_path / "published")
    mode = lambda p: stat.S_IMODE(os.stat(p).st_mode)  # noqa: E731
    assert mode(tmp_path / "a.txt") == file_mode and mode(tmp_path / "sub" / "b.json") == file_mode
    assert mode(tmp_path / "model") == dir_mode and mode(tmp_path / "model" / "sub") == dir_mode
    assert mode(tmp_path / "model" / "w.bin") == file_mode
    assert mode(tmp_path / "model" / "model.safetensors") == file_mode
    assert mode(tmp_path / "published") == dir_mode and mode(tmp_path / "published" / "w.safetensors") == file_mode


def _killed_writer(path) -> None:
    """A process that dies by SIGKILL in the middle of writing `path`, as an OOM kill would."""
    code = textwrap.dedent(f"""
        import os, signal
        from rlvr_support.storage.atomic import atomic_path
        with atomic_path({str(path)!r}) as tmp:
            tmp.write_text("half")
            os.kill(os.getpid(), signal.SIGKILL)
    """)
    proc = subprocess.run([sys.executable, "-c", code], env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)})
    assert proc.returncode == -signal.SIGKILL


def _temps(folder):
    return sorted(p.name for p in folder.iterdir() if p.name.startswith("."))


def test_a_killed_writers_temp_file_is_removed_at_the_next_write(tmp_path):
    out = tmp_path / "scores.parquet"
    _killed_writer(out)
    assert len(_temps(tmp_path)) == 1 and not out.exists()  # what a SIGKILL leaves today
    legacy = tmp_path / ".scores.parquet.ab3_x9z2.parquet"  # the name mkstemp gave before the pid
    legacy.write_text("old")
    live = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        busy = tmp_path / f".scores.parquet.tmp-{live.pid}-abcdefgh.parquet"  # a live writer's temp
        busy.write_text("in progress")
        other = tmp_path / ".other.parquet.tmp-999999999-abcdefgh.parquet"  # another output's: not ours
        other.write_text("x")
        atomic.write_text(out, "done")
        assert out.read_text() == "done"
        assert _temps(tmp_path) == sorted([busy.name, other.name])
    finally:
        live.kill()
        live.wait()


def test_a_job_removes_its_outputs_stale_temps_when_it_starts(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    out, folder = tmp_path / "table.csv", tmp_path / "prompts"
    _killed_writer(out)
    folder.mkdir()
    _killed_writer(folder / "math.jsonl")
    assert len(_temps(tmp_path)) == 1 and len(_temps(folder)) == 1
    args = argparse.Namespace(verb="passk-table", fn=None, out=str(out), out_dir=str(folder))
    provenance.begin(args, ["passk-table"])
    assert _temps(tmp_path) == [] and _temps(folder) == []


def test_outputs_are_fsynced_before_the_rename_and_their_folder_after(tmp_path, monkeypatch):
    synced = []
    real = os.fsync

    def spy(fd):
        target = os.readlink(f"/proc/self/fd/{fd}")
        synced.append((target, (tmp_path / "a.txt").exists()))
        real(fd)

    monkeypatch.setattr(os, "fsync", spy)
    atomic.write_text(tmp_path / "a.txt", "x")
    files = [(t, final) for t, final in synced if t != str(tmp_path)]
    assert files and all(".a.txt.tmp-" in t and not final for t, final in files)  # the temp, before the rename
    assert synced[-1] == (str(tmp_path), True)  # the folder, after: the rename itself is durable
    synced.clear()
    with atomic.atomic_dir(tmp_path / "model") as d:
        (d / "w.bin").write_bytes(b"w")
    assert any(t.endswith("/w.bin") for t, _ in synced) and synced[-1] == (str(tmp_path), True)


@pytest.mark.parametrize("mask", [0o022, 0o002])
def test_every_kind_of_output_follows_the_umask(tmp_path, umask, mask):
    """Prompts (JSONL), samples and scores (Parquet), tables (CSV, Markdown), figures (PNG, PDF),
    checkpoint manifests (JSON), sidecars and the tree's identity, as the verbs write them; the
    weights and resume state of training: tests/test_resume_faults.py."""
    from test_audit_integrity import _build

    umask(mask)
    _build(tmp_path, "w")
    files = sorted(p for p in (tmp_path / "results").rglob("*") if p.is_file())
    kinds = {p.suffix for p in files} | ({provenance.TREE_ID} if (tmp_path / "results" / provenance.TREE_ID).is_file()
                                         else set())
    assert {".jsonl", ".parquet", ".csv", ".md", ".png", ".pdf", ".json", provenance.TREE_ID} <= kinds, kinds
    wrong = {str(p.relative_to(tmp_path)): oct(stat.S_IMODE(p.stat().st_mode)) for p in files
             if stat.S_IMODE(p.stat().st_mode) != 0o666 & ~mask}
    folders = [d for d in (tmp_path / "results").rglob("*") if d.is_dir()]
    wrong.update({str(d.relative_to(tmp_path)): oct(stat.S_IMODE(d.stat().st_mode)) for d in folders
                  if stat.S_IMODE(d.stat().st_mode) != 0o777 & ~mask})
    assert not wrong, f"not the modes umask {mask:03o} gives: {wrong}"
