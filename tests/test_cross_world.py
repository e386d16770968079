"""Which claim verdicts hold in both toy worlds (analysis/cross_world.py, `cross-world`), on hand-built
claims tables, and the second world's overlay (configs/toy-cross-world.yaml + toy-world2.yaml) planned by a dry run."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

from conftest import REPO
from rlvr_support.analysis.claims.table import COLUMNS
from rlvr_support.analysis.cross_world import cross_world_markdown, cross_world_table, holds


def _claims(rows):
    """A claims table with the given (claim, chain, eval_set, effect, lo, hi, n_seeds, verdict) rows."""
    return pd.DataFrame([{"claim": c, "paper": "000", "chain": ch, "eval_set": ev, "benchmark": ev, "measure": "m",
                          "expected_sign": "+", "effect": d, "ci_low": lo, "ci_high": hi, "n_seeds": n, "verdict": v,
                          "source": "passk.csv"} for c, ch, ev, d, lo, hi, n, v in rows], columns=COLUMNS)


WORLD1 = _claims([("A", "math", "math", 0.2, 0.1, 0.3, 3, "agree"),
                  ("B", "if", "if", 0.2, 0.1, 0.3, 3, "agree"),
                  ("C", "if", "math", 0.0, -0.1, 0.1, 3, "inconclusive"),
                  ("D", "joint", "joint", 0.3, 0.1, 0.5, 1, "1 seed"),
                  ("E", "math-if", "math", -0.2, -0.3, -0.1, 3, "disagree")])
WORLD2 = _claims([("A", "math", "math", 0.1, 0.05, 0.2, 3, "agree"),
                  ("B", "if", "if", -0.2, -0.3, -0.1, 3, "disagree"),
                  ("C", "if", "math", 0.05, -0.05, 0.1, 3, "inconclusive"),
                  ("D", "joint", "joint", 0.3, 0.1, 0.5, 3, "agree"),
                  ("F", "math", "if", 0.1, 0.0, 0.2, 3, "inconclusive")])


def test_each_claim_row_says_whether_its_verdict_holds_in_both_worlds():
    t = cross_world_table({"world1": WORLD1, "world2": WORLD2}).set_index("claim")
    assert t["holds"].to_dict() == {"A": "agree in all", "B": "differs", "C": "inconclusive in all",
                                    "D": "no verdict", "E": "only in world1", "F": "only in world2"}
    assert (t.loc["B", "world1_effect"], t.loc["B", "world2_effect"]) == (0.2, -0.2)
    assert t.loc["E", "world2_verdict"] == "n/a" and pd.isna(t.loc["E", "world2_effect"])
    assert t.loc["D", "world1_n_seeds"] == 1 and t.loc["D", "world2_n_seeds"] == 3
    md = cross_world_markdown(t.reset_index(), ["world1", "world2"])
    assert "| A | math | math | math | + | +0.200 [+0.100, +0.300] agree | +0.100 [+0.050, +0.200] agree | agree in all |" in md
    assert md.count("\n") == len(t) + 2


def test_holds_with_three_worlds():
    assert holds({"a": "agree", "b": "agree", "c": "agree"}) == "agree in all"
    assert holds({"a": "agree", "b": "agree", "c": "inconclusive"}) == "differs"
    assert holds({"a": "agree", "b": None, "c": "agree"}) == "only in a, c"


def test_bad_claims_tables_are_named():
    with pytest.raises(ValueError, match="at least two worlds"):
        cross_world_table({"world1": WORLD1})
    with pytest.raises(ValueError, match="world 'world2': no column 'verdict'"):
        cross_world_table({"world1": WORLD1, "world2": WORLD2.drop(columns="verdict")})
    with pytest.raises(ValueError, match=r"world 'world1': claim row \('A', 'math', 'math', 'math'\) twice"):
        cross_world_table({"world1": pd.concat([WORLD1, WORLD1.head(1)]), "world2": WORLD2})


def test_the_verb_writes_csv_markdown_and_a_sidecar(tmp_path, monkeypatch):
    from rlvr_support.cli.main import main

    monkeypatch.chdir(tmp_path)
    WORLD1.to_csv("w1.csv", index=False)
    WORLD2.to_csv("w2.csv", index=False)
    assert main(["cross-world", "--claims", "world1=w1.csv", "world2=w2.csv", "--out", "out/cross_world.csv"]) == 0
    assert pd.read_csv("out/cross_world.csv")["holds"].tolist()[0] == "agree in all"
    assert "agree in all" in Path("out/cross_world.md").read_text()
    side = json.loads(Path("out/cross_world.md.prov.json").read_text())
    assert {i["path"] for i in side["inputs"]} == {"w1.csv", "w2.csv"}
    assert main(["cross-world", "--claims", "World 1=w1.csv", "world2=w2.csv", "--out", "x.csv"]) == 1


@pytest.mark.snakemake
def test_the_second_world_plans_the_five_chains_at_three_seeds_in_a_new_world(tmp_path):
    bindir = Path(sys.executable).parent
    p = subprocess.run([str(bindir / "snakemake"), "-s", str(REPO / "Snakefile"), "--directory", str(tmp_path),
                        "--configfile", str(REPO / "config.yaml"), str(REPO / "configs/toy-cross-world.yaml"),
                        str(REPO / "configs/toy-world2.yaml"),
                        "--cores", "2", "-n", "-p", "--", "all"], capture_output=True, text=True, timeout=600)
    assert p.returncode == 0, p.stderr[-3000:]
    out = p.stdout
    counts = dict(re.findall(r"^(\w+)\s+(\d+)$", out.split("Job stats:")[1].split("total")[0], re.M))
    assert counts["train_stage"] == "15" and counts["pretrain_base"] == "1" and counts["toy_data"] == "1"
    assert counts["claims_table"] == "1" and "sample_routed" not in counts and counts["sample_large_k"] == "3"
    trained = set(re.findall(r"results/checkpoints/([\w~-]+)/seed(\d)/manifest.json", out))
    assert {c for c, _ in trained} == {"math", "if", "math-if", "if-math", "joint"}  # no remedies
    assert {s for _, s in trained} == {"0", "1", "2"}
    world = json.loads(re.search(r"rlvr_support data --cfg '([^']+)'", out).group(1))
    assert world["seed"] == 4321 and world["seed"] != __import__("yaml").safe_load((REPO / "config.yaml").read_text())[
        "world"]["seed"]
