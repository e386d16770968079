"""The support-reshaping paper's table verbs (workflow/rules/reshaping.smk) end to end on tiny files: CSV, its Markdown twin and a provenance sidecar for each
table, with the rule that runs the verb recorded."""

import json

import pandas as pd

from rlvr_support.cli.main import main
from rlvr_support.config.defaults import ANALYSIS_DEFAULTS
from support_helpers import write_samples, write_scores

BOOT = {"bootstrap": 20, "ci": 0.9, "seed": 0}


def test_verbs_write_tables_with_markdown_and_sidecars(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    scores = [write_scores(tmp_path / "scores", "base", "math", {"a": [1, 0, 0, 0], "b": [1, 1, 0, 0]}),
              write_scores(tmp_path / "scores", "if/seed0", "math", {"a": [0, 0, 0, 0], "b": [1, 1, 1, 1]})]
    texts = {"a": ["step : 1", "answer : 2"], "b": ["so : 3", "answer : 3"]}
    samples = [write_samples(tmp_path / "samples", c, "math", {"a": [[1], [2]], "b": [[1], [2]]}, texts)
               for c in ("base", "if/seed0")]
    s = [str(p) for p in scores]
    cfg = json.dumps({"group_size": 4, "trainability": {"group_sizes": [2]}, **BOOT})
    assert main(["trainability-table", "--scores", *s, "--scores-root", "scores", "--cfg", cfg,
                 "--out", "t/trainability.csv"]) == 0
    assert main(["polarisation-table", "--scores", *s, "--scores-root", "scores", "--cfg", json.dumps(BOOT),
                 "--out", "t/polarisation.csv", "--out-transitions", "t/polarisation_transitions.csv",
                 "--out-histogram", "t/polarisation_histogram.csv"]) == 0
    modes = json.dumps({"opening_modes": ANALYSIS_DEFAULTS["opening_modes"], **BOOT})
    assert main(["opening-modes-table", "--samples", *map(str, samples), "--samples-root", "samples", "--cfg", modes,
                 "--out", "t/opening_modes.csv"]) == 0
    for name in ("trainability", "polarisation", "polarisation_transitions", "polarisation_histogram",
                 "opening_modes"):
        for ext in ("csv", "md"):
            assert (tmp_path / "t" / f"{name}.{ext}").is_file() and (tmp_path / "t" / f"{name}.{ext}.prov.json").is_file()
    side = json.loads((tmp_path / "t/trainability.csv.prov.json").read_text())
    assert side["rule"] == "trainability_table"
    t = pd.read_csv(tmp_path / "t/trainability.csv")
    assert sorted(set(t["G"])) == [2, 4]
    p = pd.read_csv(tmp_path / "t/polarisation.csv").iloc[0]
    assert (p["to_zero"], p["to_all"]) == (1, 1)
