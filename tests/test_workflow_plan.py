"""The workflow plans the jobs its snapshots hold (tests/data/plans/, made by scripts/plan_snapshot.py): a
refactor of the rule files (issue 39's: input functions moved beside their rules, cloned rules made `use
rule`, targets taken from the rules' own outputs) must plan the same jobs with the same outputs for the toy
study, the smoke study and the paper's two-model study. A change meant to alter the DAG rewrites the
snapshot (`python scripts/plan_snapshot.py`), and the diff shows what it added or dropped."""

from __future__ import annotations

import sys

import pytest

from conftest import REPO

sys.path.insert(0, str(REPO / "scripts"))
from plan_snapshot import SNAPSHOTS, planned_outputs  # noqa: E402


@pytest.mark.snakemake
@pytest.mark.parametrize("name", sorted(SNAPSHOTS))
def test_the_plan_matches_its_snapshot(name):
    want = (REPO / "tests" / "data" / "plans" / f"{name}.tsv").read_text().splitlines()
    got = planned_outputs(SNAPSHOTS[name])
    missing, extra = sorted(set(want) - set(got)), sorted(set(got) - set(want))
    assert not missing and not extra, (f"{name}: {len(missing)} planned outputs gone, {len(extra)} new "
                                       f"(first: {missing[:3]} / {extra[:3]}); if meant, rewrite the snapshot "
                                       "with scripts/plan_snapshot.py")
    assert len(got) == len(want)  # no output planned twice
