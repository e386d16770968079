"""rerun_reasons (the `why` verb): the params and code files whose change reruns a job, by name."""

from __future__ import annotations

import json

import pytest
import yaml

from conftest import REPO, SMOKE_CONFIG
from rlvr_support.review.rerun_reasons import Plan, code_changes, explain, param_changes

OLD = {"cli/verbs/score.py": "a" * 16, "scoring/score.py": "b" * 16, "scoring/verifiers/ifeval.py": "c" * 16}


def test_a_changed_code_map_names_the_files():
    now = {**OLD, "scoring/verifiers/ifeval.py": "d" * 16, "scoring/reasoning.py": "e" * 16}
    del now["scoring/score.py"]
    assert code_changes(OLD, now) == ["code: scoring/verifiers/ifeval.py changed",
                                      "code: scoring/reasoning.py is new to the job's code",
                                      "code: scoring/score.py left the job's code"]
    assert code_changes(OLD, OLD) == []


def test_params_are_named_by_pairing_the_recorded_values_with_todays():
    now = {"cfg": repr('{"bootstrap":50}'), "code": repr({**OLD, "scoring/score.py": "f" * 16}), "n": repr(3)}
    recorded = [repr('{"bootstrap":100}'), repr(OLD), repr(3)]
    assert param_changes(now, recorded) == ["code: scoring/score.py changed", "params: cfg: bootstrap: 100 -> 50"]
    assert param_changes(now, list(now.values())) == []
    # a run recorded before per-file code params: one digest, which cannot name files
    assert param_changes({"code": repr(OLD)}, [repr("0123456789abcdef")])[0].startswith("code: recorded as one digest")


def test_a_long_param_names_the_keys_that_changed_not_a_cut_string():
    """A key deep in a long config param (the whole `rl` section: hundreds of characters) is named with both values,
    where a cut string would end before it."""
    rl = {"beta": 0.0, "group_size": 4, "lr": 1e-4, "monitor": {"every": 1, "n": 2}, **{f"k{i}": i for i in range(40)}}
    changed = {**rl, "monitor": {"every": 1, "n": 4}, "zz_rollout_backend": "auto"}
    now = {"cfg": repr(json.dumps(changed)), "task": repr("math")}
    assert len(json.dumps(rl)) > 300
    assert param_changes(now, [repr(json.dumps(rl)), repr("math")]) == [
        "params: cfg: monitor.n: 2 -> 4", 'params: cfg: zz_rollout_backend: (absent) -> "auto"']
    # two params changed at once: each mapping is paired with the old one that shares its keys
    now = {"cfg": repr(json.dumps(changed)), "sampling": repr(json.dumps({"n": 8, "seed": 0}))}
    recorded = [repr(json.dumps({"n": 4, "seed": 0})), repr(json.dumps(rl))]
    assert sorted(param_changes(now, recorded)) == [
        "params: cfg: monitor.n: 2 -> 4", 'params: cfg: zz_rollout_backend: (absent) -> "auto"',
        "params: sampling: n: 4 -> 8"]


@pytest.mark.snakemake
def test_the_plan_of_a_finished_run_names_an_edited_param(smoke_run, tmp_path, capsys):
    cfg = yaml.safe_load(SMOKE_CONFIG.read_text())
    cfg["analysis"]["bootstrap"] = 50
    edited = tmp_path / "edited.yaml"
    edited.write_text(yaml.safe_dump(cfg, sort_keys=False))
    with Plan(["results/tables/passk.csv"], smoke_run, REPO / "Snakefile", [edited]) as plan:
        assert explain(plan) == 1
    out = capsys.readouterr().out
    assert "passk_table" in out and "bootstrap: 100 -> 50" in out, out
    with Plan(["results/tables/passk.csv"], smoke_run, REPO / "Snakefile", [SMOKE_CONFIG]) as plan:
        assert explain(plan) == 0
    assert "up to date" in capsys.readouterr().out
    with pytest.raises(ValueError, match="no job of this workflow makes"):
        with Plan(["results/tables/none.csv"], smoke_run, REPO / "Snakefile", [SMOKE_CONFIG]) as plan:
            explain(plan)
