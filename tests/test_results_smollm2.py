"""docs/results-smollm2.md, the real model's study (configs/smollm2-real.yaml: SmolLM2-135M-Instruct on IFEval's
real prompts and a Reasoning Gym arithmetic set, Math- and IF-RLVR at three RL seeds), cannot drift from the tables
of the run it reports: tests/data/results-doc-smollm2/ holds the files its generated part is made of (copied from
the finished run with `results-doc --copy-inputs`), and the page must be exactly what the generator makes of them."""

from __future__ import annotations

from conftest import REPO
from rlvr_support.cli.main import main
from rlvr_support.review import results_page

STORED = REPO / "tests" / "data" / "results-doc-smollm2" / "results"
PAGE = REPO / "docs" / "results-smollm2.md"


def test_the_page_is_what_the_stored_tables_give(capsys):
    assert main(["results-doc", str(STORED), "--out", str(PAGE), "--check"]) == 0, capsys.readouterr().err
    page = PAGE.read_text()
    assert (STORED / "tables" / "headline.md").read_text().rstrip("\n") in page
    assert (STORED / "tables" / "seed_stability.md").read_text().rstrip("\n") in page
    assert "RL seeds: 0, 1, 2" in page and "configs/smollm2-real.yaml" in page


def test_an_edited_headline_number_fails(tmp_path, capsys):
    text = PAGE.read_text()
    generated = text.split(results_page.BEGIN, 1)[1].split(results_page.END, 1)[0]
    headline = generated.split("### Headline", 1)[1]
    row = next(line for line in headline.splitlines() if line.startswith("| ") and "[" in line)
    cells = row.split(" | ")
    i = next(j for j, c in enumerate(cells) if "[" in c)
    edited = row.replace(cells[i], cells[i].replace(".", ".9", 1), 1)
    assert edited != row
    page = tmp_path / "results-smollm2.md"
    page.write_text(text.replace(row, edited, 1))
    assert main(["results-doc", str(STORED), "--out", str(page), "--check"]) == 1
    assert "is not what" in capsys.readouterr().err
