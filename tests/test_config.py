"""Config validation: wrong types, unknown keys and missing keys stop the run and name the key."""

from __future__ import annotations

import copy

import pytest
import yaml

from conftest import REPO, SMOKE_CONFIG, run_snakemake
from rlvr_support.config.validate import ConfigError, load_config, validate_config

DEFAULT = yaml.safe_load((REPO / "config.yaml").read_text())


@pytest.mark.parametrize("path", [REPO / "config.yaml", SMOKE_CONFIG, *sorted((REPO / "configs").glob("*.yaml"))],
                         ids=lambda p: p.name)
def test_shipped_configs_are_valid(path):
    load_config(path)


@pytest.mark.parametrize("mutate, message", [
    (lambda c: c["rl"].__setitem__("steps", "ten"), "rl.steps: 'ten' is not of type 'integer'"),
    (lambda c: c["rl"].__setitem__("stepz", 3), "rl.stepz: unknown key"),
    (lambda c: c.pop("sampling"), "sampling: missing required key"),
    (lambda c: c["world"]["math"].pop("eval"), "world.math.eval: missing required key"),
    (lambda c: c["sampling"].__setitem__("top_p", 1.5), "sampling.top_p"),
    (lambda c: c.__setitem__("chains", ["math-if"]), "'math-if' continues from 'math'"),
    (lambda c: c.__setitem__("chains", ["physics"]), "chains.0"),
    (lambda c: c["scoring"].__setitem__("math_extraction", "loose"), "scoring.math_extraction: 'loose' is not one of"),
])
def test_bad_config_names_the_key(mutate, message):
    cfg = copy.deepcopy(DEFAULT)
    mutate(cfg)
    with pytest.raises(ConfigError) as err:
        validate_config(cfg)
    assert message in str(err.value)


def test_snakemake_refuses_a_bad_config_before_any_job(tmp_path):
    bad = yaml.safe_load(SMOKE_CONFIG.read_text())
    bad["rl"]["stepz"] = 1
    path = tmp_path / "bad.yaml"
    path.write_text(yaml.safe_dump(bad))
    proc = run_snakemake(tmp_path, "all", "-n", config=path, check=False)
    assert proc.returncode != 0
    assert "rl.stepz: unknown key" in proc.stdout + proc.stderr
    assert not (tmp_path / "results").exists()


def test_math_extraction_defaults_to_strict_in_one_place():
    from rlvr_support.config.defaults import fill_defaults
    from rlvr_support.scoring.score import scoring_options

    cfg = copy.deepcopy(DEFAULT)
    cfg["scoring"].pop("math_extraction")
    assert fill_defaults(validate_config(cfg))["scoring"]["math_extraction"] == "strict"
    # the score verb run by hand with an older `scoring` section gets the same default
    assert scoring_options({"timeout_s": 1.0, "workers": 1, "reasoning": "none"})["math_extraction"] == "strict"
    cfg["scoring"]["math_extraction"] = "lenient"
    assert scoring_options(fill_defaults(validate_config(cfg))["scoring"])["math_extraction"] == "lenient"
