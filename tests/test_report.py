"""`snakemake --report` on the smoke run holds every figure and table, each with its caption."""

from __future__ import annotations

import re
import zipfile

import pytest

from conftest import REPO, run_snakemake


# Machine-readable data behind a reported table or figure, deliberately left out of the report.
DATA_TABLES = {
    "support_categories.csv": "per-prompt categories behind support.csv",
    "js_positions.csv": "the curves behind the positional-JS figure",
    "openings_summary.csv": "per-chain numbers behind openings.csv",
    "openings_styles.csv": "style shares behind the openings figure",
    "polarisation_histogram.csv": "prompts per success count behind the polarisation figure",
}


@pytest.mark.slow
def test_report_holds_every_figure_and_table(smoke_run, tmp_path):
    report = tmp_path / "report.zip"
    run_snakemake(smoke_run, "all", "--report", str(report))
    with zipfile.ZipFile(report) as z:
        names = z.namelist()
        text = "\n".join(z.read(n).decode("utf-8", "replace") for n in names if n.endswith((".html", ".js", ".json")))
    in_report = {n.rsplit("/", 1)[-1] for n in names}
    figures = sorted(p.name for p in (smoke_run / "results/figures").rglob("*.png"))
    tables = sorted(p.name for p in (smoke_run / "results/tables").rglob("*.csv") if p.name not in DATA_TABLES)
    assert figures and tables
    missing = [f for f in figures + tables if f not in in_report]
    assert not missing, f"in results/ but not in the report: {missing}"
    # Every caption file used by a rule must have made it into the report text (first words of each).
    captions = set(re.findall(r'caption="\.\./report/([\w.-]+\.rst)"', "".join(
        p.read_text() for p in (REPO / "workflow/rules").glob("*.smk"))))
    for cap in sorted(captions):
        words = " ".join((REPO / "workflow/report" / cap).read_text().split()[:4])
        assert words.split()[0] in text, f"caption {cap} ({words!r}...) not found in the report"
