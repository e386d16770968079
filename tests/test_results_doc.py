"""docs/results.md's tables cannot drift from the results tree they came from (review/results_page.py).

tests/data/results-doc/ holds the files the page is made of (the tables and their sidecars, the
checkpoint manifests' sidecars), copied from a finished run with `results-doc --copy-inputs`; the
page must be exactly what the generator makes of them, so a number edited by hand in the page, or a
page not regenerated after the stored tables were replaced, fails here."""

from __future__ import annotations

import itertools
import json
import re
import shutil
from pathlib import Path

import pytest

from conftest import REPO
from rlvr_support.analysis.papers import INVISIBLE_LEASH, PAPERS, SUPPORT_RESHAPING, cite, titled
from rlvr_support.analysis.resample import MIN_VERDICT_SEEDS
from rlvr_support.cli.main import main
from rlvr_support.review import results_page

STORED = REPO / "tests" / "data" / "results-doc" / "results"
PAGE = REPO / "docs" / "results.md"
README = REPO / "README.md"


def test_the_page_is_what_the_stored_tables_give(capsys):
    assert main(["results-doc", str(STORED), "--out", str(PAGE), "--summary", str(README), "--check"]) == 0, \
        capsys.readouterr().err
    page = PAGE.read_text()
    claims = (STORED / "tables" / "claims.md").read_text()
    assert (STORED / "tables" / "seed_stability.md").read_text() in page
    assert page.count(results_page.BEGIN) == 1 and page.count(results_page.END) == 1
    # the claims rule names papers by their short titles (`cite`), which the page shows as they are, with a legend
    # (a table of the runs before it named them by id: test_a_paper_cell_is_rendered_through_the_registry)
    papers = [line.split(" | ")[1] for line in claims.splitlines()[2:]]
    assert set(papers) <= {cite(*c) for n in (1, 2) for c in itertools.combinations(PAPERS, n)}
    assert results_page._with_paper_titles(claims.rstrip("\n"))[0] in page
    for paper in set(papers):
        assert titled(paper) == paper and f"| {paper} |" in page
    assert all(f"**{p.short}**: *{p.title}*" in page for p in PAPERS.values())


def test_a_paper_cell_is_rendered_through_the_registry(tmp_path):
    table = "| claim | paper | verdict |\n|---|---|---|\n| a | 000, 003 | agree |\n| b | Invisible Leash | agree |"
    rendered, cites = results_page._with_paper_titles(table)
    assert cites and rendered.splitlines()[2] == f"| a | {cite(SUPPORT_RESHAPING, INVISIBLE_LEASH)} | agree |"
    assert rendered.splitlines()[3] == "| b | Invisible Leash | agree |"  # a new table's cell as it is
    with pytest.raises(ValueError, match=r"\['007'\] is neither a paper id"):
        results_page._with_paper_titles(table.replace("000, 003", "007"))
    assert results_page._with_paper_titles("| claim | verdict |\n|---|---|\n| a | agree |")[1] is False


def test_an_edited_number_in_the_page_fails(tmp_path, capsys):
    page = tmp_path / "results.md"
    text = PAGE.read_text()
    generated = text.split(results_page.BEGIN, 1)[1]
    row = next(line for line in generated.splitlines() if line.startswith("| ") and " [" in line)
    number = row.split(" [", 1)[0].rsplit("| ", 1)[1]  # the effect cell's point estimate, e.g. +0.083
    edited = row.replace(f"| {number} [", f"| {number}1 [", 1)
    page.write_text(text.replace(row, edited, 1))
    assert main(["results-doc", str(STORED), "--out", str(page), "--check"]) == 1
    err = capsys.readouterr().err
    assert "is not what" in err and repr(edited) in err
    # regenerating puts the tree's number back and keeps the hand-written text around the markers
    block = results_page.BEGIN + generated.split(results_page.END, 1)[0] + results_page.END + "\n"
    page.write_text("# My title\n\nintro\n" + block.replace(row, edited, 1) + "\nafter\n")
    assert main(["results-doc", str(STORED), "--out", str(page)]) == 0
    again = page.read_text()
    assert row in again and edited not in again and again.startswith("# My title\n\nintro\n")
    assert again.endswith(results_page.END + "\n\nafter\n")


def _copy(tmp_path) -> Path:
    shutil.copytree(STORED.parent, tmp_path / "tree")
    return tmp_path / "tree" / "results"


def _one_seed(tree: Path) -> Path:
    """`tree` made a one-seed tree (`make run`'s): its claims table made from RL seed 0's runs only."""
    side = tree / "tables" / "claims.md.prov.json"
    rec = json.loads(side.read_text())
    rec["inputs"] = [i for i in rec["inputs"] if not re.search(r"/seed[1-9]\d*/", i["path"])]
    side.write_text(json.dumps(rec))
    return tree


def test_a_tree_of_fewer_rl_seeds_than_a_verdict_needs_is_refused_and_nothing_written(tmp_path, capsys):
    tree = _one_seed(_copy(tmp_path))
    page, readme = tmp_path / "results.md", tmp_path / "README.md"
    page.write_text(PAGE.read_text())
    readme.write_text(README.read_text())
    assert main(["results-doc", str(tree), "--out", str(page), "--summary", str(readme)]) == 1
    err = capsys.readouterr().err
    assert f"made from RL seeds: 0; a verdict needs at least {MIN_VERDICT_SEEDS}" in err
    assert "e.g. RL seeds: " + ", ".join(map(str, range(MIN_VERDICT_SEEDS))) in err and "`make run-seeds`" in err
    assert page.read_text() == PAGE.read_text() and readme.read_text() == README.read_text()
    # the summary alone is refused too, and so is --check
    with pytest.raises(ValueError, match="made from RL seeds: 0; a verdict needs"):
        results_page.summary(tree)
    assert main(["results-doc", str(tree), "--out", str(page), "--check"]) == 1
    # the stored three-seed tree is not
    assert f"RL seeds: {', '.join(map(str, range(MIN_VERDICT_SEEDS)))}" in results_page.generated(_copy(tmp_path / "b"))


def test_an_edited_table_is_refused(tmp_path):
    tree = _copy(tmp_path)
    claims = tree / "tables" / "claims.md"
    claims.write_text(claims.read_text().replace("+0.", "+9.", 1))
    with pytest.raises(ValueError, match=r"claims.md: edited: sha256 .* the page would publish a table"):
        results_page.generated(tree)


def test_a_tree_with_mixed_numerics_is_refused(tmp_path):
    tree = _copy(tmp_path)
    side = sorted((tree / "checkpoints").rglob("manifest.json.prov.json"))[-1]
    rec = json.loads(side.read_text())
    rec["numerics"]["torch"]["capability"] = "AVX512" if rec["numerics"]["torch"]["capability"] != "AVX512" else "AVX2"
    side.write_text(json.dumps(rec))
    with pytest.raises(ValueError, match="mixed-numerics: torch CPU kernel capability"):
        results_page.generated(tree)


def test_the_header_names_commit_config_files_seeds_and_numerics():
    head = "\n".join(results_page.header(STORED, results_page._tables(STORED)))
    rec = json.loads((STORED / "tables" / "claims.md.prov.json").read_text())
    assert rec["code"]["git_commit"] in head
    assert all(c["path"] in head for c in rec["configfiles"])
    assert "RL seeds: 0" in head and "torch CPU kernel capability: AVX2" in head
    assert f"pinned: {json.dumps(rec['numerics']['spec'], sort_keys=True)}" in head


def test_copy_inputs_copies_exactly_what_the_page_reads(tmp_path):
    copied = results_page.copy_inputs(STORED, tmp_path)
    assert {p.relative_to(tmp_path) for p in copied} == {p.relative_to(STORED.parent)
                                                        for p in STORED.parent.rglob("*") if p.is_file()}
    assert results_page.generated(tmp_path / "results") == results_page.generated(STORED)


def test_a_cross_world_table_is_published_with_the_tables_it_was_made_from(tmp_path, monkeypatch):
    from test_cross_world import WORLD1, WORLD2

    tree = _copy(tmp_path)
    tables = tree / "tables"
    (tables / "cross_world.md").unlink(missing_ok=True)
    (tables / "cross_world.md.prov.json").unlink(missing_ok=True)
    monkeypatch.chdir(tree.parent)
    WORLD1.to_csv("w1.csv", index=False)
    WORLD2.to_csv("w2.csv", index=False)
    # by hand, outside Snakemake: not under the study's pinned numerics, and not one of this tree's jobs
    monkeypatch.delenv("RLVR_NUMERICS", raising=False)
    assert main(["cross-world", "--claims", "world1=w1.csv", "world2=w2.csv",
                 "--out", "results/tables/cross_world.csv"]) == 0
    page = results_page.generated(tree)
    assert "### Which verdicts hold in both toy worlds" in page and "| A | math | math | math | + |" in page
    assert "verb `cross-world` from `w1.csv` (sha256" in page and "`w2.csv`" in page
    # still held to its own sidecar
    md = tables / "cross_world.md"
    md.write_text(md.read_text().replace("agree in all", "disagree in all", 1))
    with pytest.raises(ValueError, match="cross_world.md: edited"):
        results_page.generated(tree)


def test_the_readmes_verdict_counts_are_the_stored_tables_and_an_edited_count_fails(tmp_path, capsys):
    block = results_page.summary(STORED)
    assert block in README.read_text()
    verdicts = [line.split("|")[8].strip() for line in (STORED / "tables" / "claims.md").read_text().splitlines()[2:]]
    row = next(line for line in block.splitlines() if line.startswith("| this study"))
    assert row.split("|")[2].strip() == str(verdicts.count("agree"))
    readme = tmp_path / "README.md"
    readme.write_text(README.read_text().replace(row, row.replace(f"| {verdicts.count('agree')} |", "| 99 |", 1)))
    assert main(["results-doc", str(STORED), "--out", str(PAGE), "--summary", str(readme), "--check"]) == 1
    assert "README.md is not what" in capsys.readouterr().err
    assert main(["results-doc", str(STORED), "--out", str(tmp_path / "page.md"), "--summary", str(readme)]) == 0
    assert block in readme.read_text()
    readme.write_text("# no markers\n")
    assert main(["results-doc", str(STORED), "--out", str(tmp_path / "page.md"), "--summary", str(readme)]) == 1
