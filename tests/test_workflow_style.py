"""Snakemake conventions of the rule files: snakefmt's format, a quiet `snakemake --lint`, and a
`conda:` environment from envs/ for every rule that runs the package (so `--sdm conda` works)."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import REPO

BIN = Path(sys.executable).parent
RULE_FILES = sorted((REPO / "workflow" / "rules").glob("*.smk"))
# the one lint snakemake reports, justified where it stands (workflow/rules/common.smk):
# PYTHONPATH is extended for the jobs, not required from the user, so no `envvars:` assertion
JUSTIFIED_LINTS = ["Environment variable PYTHONPATH used but not asserted with envvars directive"]


def test_rule_files_are_snakefmt_formatted():
    snakefmt = shutil.which("snakefmt", path=str(BIN)) or shutil.which("snakefmt")
    assert snakefmt, "snakefmt is a pinned test requirement (requirements-test.txt)"
    proc = subprocess.run([snakefmt, "--check", "--diff", "Snakefile", "workflow"], cwd=REPO,
                          capture_output=True, text=True)
    assert proc.returncode == 0, f"run `snakefmt Snakefile workflow`:\n{proc.stdout[-3000:]}{proc.stderr[-3000:]}"


@pytest.mark.snakemake
def test_snakemake_lint_reports_only_justified_lints():
    proc = subprocess.run([str(BIN / "snakemake"), "--lint", "-s", str(REPO / "Snakefile")], cwd=REPO,
                          capture_output=True, text=True)
    text = proc.stdout + proc.stderr
    lints = [line.strip().lstrip("* ").rstrip(":.") for line in text.splitlines() if line.strip().startswith("* ")]
    unexpected = [lint for lint in lints if not any(lint.startswith(j) for j in JUSTIFIED_LINTS)]
    assert not unexpected, text[-4000:]
    for j in JUSTIFIED_LINTS:  # a justification that no longer applies is stale
        assert any(lint.startswith(j) for lint in lints), f"lint {j!r} is gone: drop its justification"


def _rule_blocks():
    for f in RULE_FILES:
        for block in re.split(r"^\s*rule (?=\w+:)", f.read_text(), flags=re.M)[1:]:
            yield f, block.split(":", 1)[0], block


@pytest.mark.parametrize("path,rule,block", list(_rule_blocks()), ids=lambda x: x if isinstance(x, str) else "")
def test_every_rule_declares_its_conda_env(path, rule, block):
    assert "python -m rlvr_support" in block or "{params.launcher}" in block, f"rule {rule} runs no package verb"
    m = re.search(r"^\s+conda:\n\s+(.+)$", block, re.M)
    assert m, f"rule {rule} ({path.name}) has no conda: directive"
    assert m.group(1).startswith("get_conda_env("), f"rule {rule}: conda env from get_conda_env (common.smk)"


def test_conda_envs_exist():
    text = (REPO / "workflow" / "rules" / "common.smk").read_text()
    for env in re.findall(r'"\.\./\.\./(envs/[\w.-]+\.yaml)"', text):
        assert (REPO / env).is_file(), env
    assert "envs/cpu.yaml" in text and "envs/train.yaml" in text
