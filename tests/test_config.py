"""Config validation: wrong types, unknown keys and missing keys stop the run and name the key."""

from __future__ import annotations

import copy

import pytest
import yaml

from conftest import REPO, SMOKE_CONFIG, run_snakemake
from rlvr_support.config.validate import ConfigError, load_config, validate_config
from rlvr_support.data.toyworld.limits import check_toy_world

DEFAULT = yaml.safe_load((REPO / "config.yaml").read_text())


# configs that are overlays: merged onto the config they name, as `--configfile A B` does
# an overlay is checked on the configs it is written for, in order
OVERLAYS = {"toy-seeds.yaml": (REPO / "config.yaml",),
            "toy-teachers.yaml": (REPO / "config.yaml",),
            "toy-cross-world.yaml": (REPO / "config.yaml",),
            "toy-world2.yaml": (REPO / "config.yaml", REPO / "configs" / "toy-cross-world.yaml"),
            "paper-teachers.yaml": (REPO / "configs" / "paper.yaml",)}


@pytest.mark.parametrize("path", [REPO / "config.yaml", SMOKE_CONFIG, *sorted((REPO / "configs").glob("*.yaml"))],
                         ids=lambda p: p.name)
def test_shipped_configs_are_valid(path):
    check_toy_world(load_config(*OVERLAYS[path.name], path) if path.name in OVERLAYS else load_config(path))


def test_an_overlay_changes_only_what_it_names():
    seeds = load_config(REPO / "config.yaml", REPO / "configs" / "toy-seeds.yaml")
    default = load_config(REPO / "config.yaml")
    assert seeds["rl"]["seeds"] == [0, 1, 2] and default["rl"]["seeds"] == [0]
    assert {**seeds["rl"], "seeds": [0]} == default["rl"]
    # the overlay adds the trained remedies to the default's chains, in the same order
    assert seeds["chains"][:len(default["chains"])] == default["chains"]
    assert {c.partition("~")[2] for c in seeds["chains"][len(default["chains"]):]} == {
        v for v, spec in default["variants"].items() if spec.get("enabled", True)}
    assert {k: v for k, v in seeds.items() if k not in ("rl", "chains")} == {
        k: v for k, v in default.items() if k not in ("rl", "chains")}


def test_the_cross_world_study_is_the_five_chains_at_three_seeds_cut_where_no_claim_reads():
    study = load_config(REPO / "config.yaml", REPO / "configs" / "toy-cross-world.yaml")
    default = load_config(REPO / "config.yaml")
    assert study["rl"]["seeds"] == [0, 1, 2] and {**study["rl"], "seeds": [0]} == default["rl"]
    assert study["chains"] == default["chains"] and study["world"] == default["world"]
    # cut to fit the hour: what no claim reads (the routing prior at sampling time, large k beyond the base)
    assert study["sampling"]["routing"]["chains"] == [] and study["analysis"]["large_k"]["checkpoints"] == ["base"]
    assert {**study["sampling"], "routing": None} == {**default["sampling"], "routing": None}
    assert {**study["analysis"], "large_k": None} == {**default["analysis"], "large_k": None}
    assert {k: v for k, v in study.items() if k not in ("rl", "sampling", "analysis")} == {
        k: v for k, v in default.items() if k not in ("rl", "sampling", "analysis")}


def test_the_second_world_changes_the_world_seed_only():
    """... and its study name, so that its tree is its own (lineage/study_tree.py refuses it in the first's)."""
    study = load_config(REPO / "config.yaml", REPO / "configs" / "toy-cross-world.yaml")
    world2 = load_config(REPO / "config.yaml", REPO / "configs" / "toy-cross-world.yaml",
                         REPO / "configs" / "toy-world2.yaml")
    assert world2["world"]["seed"] != study["world"]["seed"] and world2["study"] != study["study"]
    assert ({**world2, "world": {**world2["world"], "seed": 0}, "study": "-"}
            == {**study, "world": {**study["world"], "seed": 0}, "study": "-"})


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


@pytest.mark.snakemake
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


def _set(section: str, key: str, value):
    def mutate(c):
        node = c
        for part in section.split("."):
            node = node[part]
        node[key] = value
    return mutate


# Sizes that must fit each other: each bad config used to pass validation and the dry run and to
# fail (or cut) only inside a job; the error names both keys.
@pytest.mark.parametrize("mutate, keys", [
    (_set("base.arch", "num_heads", 3), ["base.arch.num_heads", "base.arch.hidden_size"]),
    (_set("sampling", "max_new_tokens", 120), ["sampling.max_new_tokens", "base.arch.max_positions"]),
    (_set("sampling", "benchmarks", {"joint": {"max_new_tokens": 110}}),
     ["sampling.benchmarks.joint.max_new_tokens", "base.arch.max_positions"]),
    (_set("rl", "max_completion_tokens", 110), ["rl.max_completion_tokens", "base.arch.max_positions"]),
    (_set("world.math", "eval", 20_000), ["world.math.eval", "world.math.eval_levels"]),
    (lambda c: c["world"]["math"].update(eval=5000, eval_levels=[0.0, 0.0, 1.0]),
     ["world.math.eval", "world.math.eval_levels"]),
    (lambda c: c["world"]["joint"].update(eval=20_000, eval_levels=[0.0, 0.0, 1.0]),
     ["world.joint.eval", "world.joint.eval_levels"]),
    (_set("analysis", "opening_tokens", 65), ["analysis.opening_tokens", "sampling.max_new_tokens"]),
])
def test_sizes_that_do_not_fit_name_both_keys(mutate, keys):
    cfg = copy.deepcopy(DEFAULT)
    mutate(cfg)
    if keys[1] == "world.math.eval_levels" and cfg["world"]["math"]["eval"] < 5000:
        cfg["world"]["math"]["eval"] = 4000  # level 3 alone has 8**4 = 4,096 problems; joint adds its 100
    with pytest.raises(ConfigError) as err:
        check_toy_world(validate_config(cfg))
    assert all(k in str(err.value) for k in keys), str(err.value)


def test_sizes_that_fit_pass_and_the_bound_is_the_levels_problem_space():
    cfg = copy.deepcopy(DEFAULT)
    cfg["world"]["joint"].pop("eval_levels", None)  # joint eval problems at the math eval levels
    # level 3 for eval only, so that training draws none of its 4,096 problems
    cfg["world"]["math"].update(eval=2000, eval_levels=[0.0, 0.0, 1.0], train_levels=[0.5, 0.5, 0.0])
    cfg["analysis"]["opening_tokens"] = cfg["sampling"]["max_new_tokens"]
    # the longest eval prompt as the sampler's tokenizer (the transformers one) counts it
    from rlvr_support.data.toyworld.tokenizer import build_tokenizer
    from rlvr_support.data.toyworld.world import build_prompt_sets

    tok = build_tokenizer()
    longest = max(len(tok(r["prompt"])["input_ids"]) for recs in build_prompt_sets(cfg["world"]).values()
                  for r in recs if r["split"] == "eval")
    cfg["sampling"]["max_new_tokens"] = cfg["base"]["arch"]["max_positions"] - longest
    check_toy_world(validate_config(cfg))
    cfg["sampling"]["max_new_tokens"] += 1
    with pytest.raises(ConfigError, match=f"longest eval prompt \\({longest} tokens\\)"):
        check_toy_world(validate_config(cfg))
    cfg["sampling"]["max_new_tokens"] -= 1
    cfg["world"]["math"]["eval"] = 4096 - cfg["world"]["joint"]["eval"] + 1
    with pytest.raises(ConfigError, match="4097 distinct eval problems"):
        check_toy_world(validate_config(cfg))


def test_a_world_the_generator_cannot_draw_is_a_config_error():
    # within the eval levels' space, but training takes level-3 problems first: the generator's
    # own failure becomes a config error naming the world's counts
    cfg = copy.deepcopy(DEFAULT)
    cfg["world"]["joint"].pop("eval_levels", None)  # joint eval problems at the math eval levels
    cfg["world"]["math"].update(eval=4096 - cfg["world"]["joint"]["eval"], eval_levels=[0.0, 0.0, 1.0])
    with pytest.raises(ConfigError, match="world.math.eval") as err:
        check_toy_world(validate_config(cfg))
    assert "world.math.train" in str(err.value) and "cannot draw" in str(err.value)


@pytest.mark.snakemake
def test_snakemake_refuses_a_config_the_toy_world_cannot_hold(tmp_path):
    bad = yaml.safe_load(SMOKE_CONFIG.read_text())
    bad["sampling"]["max_new_tokens"] = 200
    path = tmp_path / "bad.yaml"
    path.write_text(yaml.safe_dump(bad))
    proc = run_snakemake(tmp_path, "all", "-n", config=path, check=False)
    assert proc.returncode != 0
    assert "sampling.max_new_tokens: 200 new tokens" in proc.stdout + proc.stderr
    assert not (tmp_path / "results").exists()


def test_a_tab_in_the_yaml_names_the_file_and_line(tmp_path, capsys):
    """The budget verb (and every reader of a config file): file:line:column, no traceback. (Snakemake
    reads --configfile itself, before the workflow's code runs; its own message names no line.)"""
    from rlvr_support.cli.main import main

    lines = SMOKE_CONFIG.read_text().splitlines()
    at = next(i for i, line in enumerate(lines) if line.startswith("  ") and ":" in line)
    lines[at] = "\t" + lines[at].lstrip()
    bad = tmp_path / "tabbed.yaml"
    bad.write_text("\n".join(lines) + "\n")
    with pytest.raises(ConfigError, match=rf"^{bad}:{at + 1}:1: not valid YAML: .*never tabs"):
        load_config(bad)
    capsys.readouterr()
    assert main(["budget", "--configfile", str(bad)]) == 1
    err = capsys.readouterr().err
    assert err.startswith(f"error: {bad}:{at + 1}:1: not valid YAML") and "Traceback" not in err, err
