"""Checkpoints trained elsewhere (config `checkpoints:`) and training trajectories (`trajectory:`).

The end-to-end tests register the smoke run's own base and `math` checkpoint, copied to folders,
as `kind: local` checkpoints of a study that trains nothing, and compare its tables with the
smoke run's; the config tests check that a bad block fails before any job, naming the key.
"""

from __future__ import annotations

import copy
import json
import shutil
from pathlib import Path

import pandas as pd
import pytest
import yaml

from conftest import SMOKE_CONFIG, run_snakemake
from rlvr_support.config.validate import ConfigError, check_duplicate_keys, validate_config


def smoke_cfg() -> dict:
    return yaml.safe_load(SMOKE_CONFIG.read_text())


def model_folder(path: Path, weights: bool = True) -> Path:
    """A folder that passes the config's check of a checkpoint path (config.json of an architecture
    transformers knows, and weights)."""
    path.mkdir(parents=True, exist_ok=True)
    (path / "config.json").write_text('{"model_type": "llama"}')
    if weights:
        (path / "model.safetensors").write_bytes(b"\0" * 8)
    return path


def external_only(cfg: dict, checkpoints: dict) -> dict:
    """The smoke study with nothing trained: its world and analyses, the given checkpoints."""
    out = copy.deepcopy(cfg)
    for key in ("base", "rl", "variants", "trajectory"):
        out.pop(key, None)
    out["chains"] = []
    out["sampling"].pop("routing", None)
    out["checkpoints"] = checkpoints
    # the single-token pairs: the checkpoints trained from a base (the smoke config names chain `if`)
    paired = [name for name, spec in checkpoints.items() if spec.get("base")]
    if paired:
        out["analysis"]["single_token"]["checkpoints"] = paired
    else:
        out["analysis"].pop("single_token")
    return out


# ---------------------------------------------------------------- the config names what is wrong


def error_of(cfg: dict) -> str:
    with pytest.raises(ConfigError) as e:
        validate_config(cfg)
    return str(e.value)


def test_a_checkpoint_without_base_is_named(tmp_path):
    cfg = smoke_cfg()
    cfg["checkpoints"] = {"mine": {"kind": "local", "path": str(model_folder(tmp_path / "m"))}}
    assert "checkpoints.mine.base: missing" in error_of(cfg)


def test_an_unknown_base_is_named(tmp_path):
    cfg = smoke_cfg()
    cfg["checkpoints"] = {"mine": {"kind": "local", "path": str(model_folder(tmp_path / "m")), "base": "r1"}}
    msg = error_of(cfg)
    assert "checkpoints.mine.base: 'r1' is not a starting model" in msg and "base" in msg.split("one of:")[1]


def test_an_unknown_kind_is_named(tmp_path):
    cfg = smoke_cfg()
    cfg["checkpoints"] = {"mine": {"kind": "gguf", "path": str(model_folder(tmp_path / "m")), "base": "base"}}
    assert "checkpoints.mine.kind" in error_of(cfg)


def test_a_path_without_weights_is_named(tmp_path):
    cfg = smoke_cfg()
    cfg["checkpoints"] = {"mine": {"kind": "local", "path": str(model_folder(tmp_path / "m", weights=False)),
                                   "base": "base"}}
    msg = error_of(cfg)
    assert "checkpoints.mine.path: cannot read the checkpoint" in msg and "has no weights" in msg


def test_a_missing_folder_and_a_bad_hub_id_are_named(tmp_path):
    cfg = smoke_cfg()
    cfg["checkpoints"] = {"mine": {"kind": "local", "path": str(tmp_path / "nowhere"), "base": "base"}}
    assert "checkpoints.mine.path" in error_of(cfg) and "does not exist" in error_of(cfg)
    cfg["checkpoints"] = {"mine": {"kind": "hf", "path": "not a hub id", "base": "base"}}
    assert "neither a model folder nor a hub id" in error_of(cfg)
    cfg["checkpoints"] = {"mine": {"kind": "hf", "path": "org/name", "base": "base"}}
    validate_config(cfg)  # a hub id: fetched by the local rule on the submit host


def test_two_bases_for_one_checkpoint_are_refused(tmp_path):
    folder = str(model_folder(tmp_path / "m"))
    cfg = external_only(smoke_cfg(), {"a": {"kind": "local", "path": folder, "role": "base"},
                                      "b": {"kind": "local", "path": folder, "role": "base", "base": "a"}})
    assert "checkpoints.b.base: a checkpoint has one base" in error_of(cfg)
    cfg["checkpoints"]["b"] = {"kind": "local", "path": folder, "base": ["a", "a2"]}
    assert "checkpoints.b.base" in error_of(cfg)


def test_duplicate_names_are_refused(tmp_path):
    folder = model_folder(tmp_path / "m")
    text = SMOKE_CONFIG.read_text() + (f"checkpoints:\n  mine: {{kind: local, path: {folder}, base: base}}\n"
                                       f"  mine: {{kind: local, path: {folder}, base: base}}\n")
    (tmp_path / "dup.yaml").write_text(text)
    with pytest.raises(ConfigError, match="duplicate key 'mine'"):
        check_duplicate_keys(tmp_path / "dup.yaml")
    cfg = external_only(smoke_cfg(), {"base": {"kind": "local", "path": str(folder), "role": "base"}})
    assert "checkpoints.base" in error_of(cfg)
    cfg = external_only(smoke_cfg(), {"math-if": {"kind": "local", "path": str(folder), "role": "base"}})
    assert "checkpoints.math-if: choose another name" in error_of(cfg)


def test_bad_trajectories_are_named():
    cfg = smoke_cfg()
    cfg["trajectory"] = {"chains": ["if-joint"], "every": 1}
    assert "trajectory.chains" in error_of(cfg)
    cfg["trajectory"] = {"chains": ["math"], "every": 1, "n": 5}
    assert "trajectory.n: 5" in error_of(cfg)
    cfg["rl"]["save_every"] = 2
    cfg["trajectory"] = {"chains": ["math"], "every": 3}
    assert "trajectory.every: 3 is not a multiple of rl.save_every" in error_of(cfg)


@pytest.mark.snakemake
def test_a_bad_block_fails_before_any_job(tmp_path):
    cfg = smoke_cfg()
    cfg["checkpoints"] = {"mine": {"kind": "local", "path": str(tmp_path / "nowhere"), "base": "base"}}
    (tmp_path / "bad.yaml").write_text(yaml.safe_dump(cfg))
    proc = run_snakemake(tmp_path / "work", "all", "-n", config=tmp_path / "bad.yaml", check=False)
    assert proc.returncode != 0
    assert "checkpoints.mine.path" in proc.stdout + proc.stderr
    assert "Job stats" not in proc.stdout + proc.stderr


# ---------------------------------------------------------------- the same checkpoints, the same numbers


@pytest.fixture(scope="module")
def external_run(smoke_run, tmp_path_factory):
    """The smoke run's base and math/seed0 weights, copied to folders, studied as external checkpoints."""
    root = tmp_path_factory.mktemp("external")
    ckpts = smoke_run / "results" / "checkpoints"
    shutil.copytree(ckpts / "base" / "model", root / "weights" / "toy-base")
    shutil.copytree(ckpts / "math" / "seed0" / "model", root / "weights" / "toy-math")
    # the run's intermediate checkpoint too: an external run with its steps
    shutil.copytree(ckpts / "math" / "seed0" / "step1" / "model", root / "weights" / "toy-math-step1")
    cfg = external_only(smoke_cfg(), {
        "toy-base": {"kind": "local", "path": str(root / "weights" / "toy-base"), "role": "base"},
        "toy-math": {"kind": "local", "path": str(root / "weights" / "toy-math"), "base": "toy-base", "step": 2,
                     "steps": [{"step": 1, "path": str(root / "weights" / "toy-math-step1")}]}})
    cfg["trajectory"] = {"n": smoke_cfg()["trajectory"]["n"]}
    (root / "external.yaml").write_text(yaml.safe_dump(cfg, sort_keys=False))
    run_snakemake(root / "work", "all", config=root / "external.yaml")
    return root / "work" / "results" / "toy-base"


def _as_trained(df: pd.DataFrame) -> pd.DataFrame:
    """An external study's rows under the trained run's labels (toy-math is math/seed0)."""
    df = df.copy()
    df["chain"] = df["chain"].replace({"toy-math": "math"})
    if "seed" in df:
        df.loc[df["chain"] == "math", "seed"] = 0
    return df


def _same(trained: Path, external: Path, drop=()):
    a = pd.read_csv(trained)
    a = a[a["chain"].isin(["base", "math"])].drop(columns=list(drop)).reset_index(drop=True)
    b = pd.read_csv(external)
    if "seed" in a and a["seed"].astype(str).eq("all").any():
        # a table with rows pooled over RL seeds (`all`) and per seed: an external checkpoint has no
        # RL seed, so it has the pooled rows only, which must equal the trained run's pooled rows
        a = a[a["seed"].astype(str) == "all"].reset_index(drop=True)
        b = b.assign(chain=b["chain"].replace({"toy-math": "math"})).drop(columns=list(drop)).reset_index(drop=True)
        a["seed"], b["seed"] = a["seed"].astype(str), b["seed"].astype(str)
    else:
        b = _as_trained(b).drop(columns=list(drop)).reset_index(drop=True)
        if "seed" in a:
            a["seed"], b["seed"] = a["seed"].astype(float), b["seed"].astype(float)
    pd.testing.assert_frame_equal(a, b, check_exact=True, check_dtype=False)


@pytest.mark.slow
def test_an_external_study_trains_nothing_and_records_its_weights(external_run, smoke_run):
    results = external_run
    assert not (results / "checkpoints" / "math").exists()
    manifest = json.loads((results / "checkpoints" / "toy-math" / "manifest.json").read_text())
    trained = json.loads((smoke_run / "results" / "checkpoints" / "math" / "seed0" / "manifest.json").read_text())
    assert manifest["kind"] == "local" and manifest["external"] and manifest["base"] == "toy-base"
    assert manifest["sha256"] == trained["sha256"]  # the copy is the same weights, checksummed
    assert (results / "checkpoints" / "toy-math" / "manifest.json.prov.json").exists()


@pytest.mark.slow
@pytest.mark.parametrize("table, drop", [
    ("passk.csv", ()),
    ("headline.csv", ()),
    ("support.csv", ("relation", "trained_on_eval_task")),
    ("support_categories.csv", ()),
    ("entropy.csv", ("relation",)),
    ("openings_styles.csv", ()),
    ("js_share.csv", ("relation",)),
])
def test_external_copies_give_the_trained_checkpoints_numbers(external_run, smoke_run, table, drop):
    """Samples follow the weights, not the label: the copies give exactly the trained run's numbers."""
    _same(smoke_run / "results" / "tables" / table, external_run / "tables" / table, drop)


@pytest.mark.slow
def test_external_checkpoints_get_their_claims(external_run):
    claims = pd.read_csv(external_run / "tables" / "claims.csv")
    mine = claims[claims["chain"] == "toy-math"]
    assert set(mine["claim"]) >= {"RLVR raises pass@1", "RLVR lowers best@kmax (sharpening)",
                                  "RLVR: answer-level entropy falls"}
    assert set(mine["eval_set"]) == {"math", "if", "joint"}
    support = pd.read_csv(external_run / "tables" / "support.csv")
    assert set(support.loc[support["chain"] == "toy-math", "relation"]) == {"external"}


@pytest.mark.slow
def test_an_external_runs_steps_give_the_trained_runs_trajectory(external_run, smoke_run):
    """The external run's curve (base, its step-1 folder, itself) is the trained math run's."""
    trained = pd.read_csv(smoke_run / "results" / "tables" / "trajectory.csv")
    trained = trained[trained["run"] == "math/seed0"].drop(columns=["run", "chain", "seed", "checkpoint"])
    external = pd.read_csv(external_run / "tables" / "trajectory.csv")
    assert set(external["run"]) == {"toy-math"} and external["seed"].isna().all()
    assert set(external["checkpoint"]) == {"base", "toy-math/step1", "toy-math"}
    external = external.drop(columns=["run", "chain", "seed", "checkpoint"])
    pd.testing.assert_frame_equal(trained.reset_index(drop=True), external.reset_index(drop=True), check_exact=True)
    point = json.loads((external_run / "checkpoints" / "toy-math" / "step1" / "manifest.json").read_text())
    assert point["step"] == 1 and point["external"] and point["kind"] == "local"


# ---------------------------------------------------------------- trajectories on the smoke run


@pytest.mark.slow
def test_trajectory_has_one_point_per_saved_step_and_seed(smoke_run):
    cfg = smoke_cfg()
    traj = pd.read_csv(smoke_run / "results" / "tables" / "trajectory.csv")
    steps, every = cfg["rl"]["steps"], cfg["trajectory"]["every"]
    expected = {(f"{c}/seed{s}", step) for c in cfg["trajectory"]["chains"] for s in cfg["rl"]["seeds"]
                for step in range(0, steps + 1, every)}
    for eval_set in cfg["eval_sets"]:
        got = set(map(tuple, traj.loc[traj["eval_set"] == eval_set, ["run", "step"]].drop_duplicates().to_numpy()))
        assert got == expected, eval_set
    assert set(traj["k"]) == {cfg["trajectory"]["n"]}
    # the stage kept its weights at the step between start and end, and the point is those weights
    point = json.loads((smoke_run / "results/checkpoints/math/seed0/step1/manifest.json").read_text())
    final = json.loads((smoke_run / "results/checkpoints/math/seed0/manifest.json").read_text())
    assert point["step"] == 1 and final["kept_steps"] == [1] and point["sha256"] != final["sha256"]
    samples = pd.read_parquet(smoke_run / "results/samples/math/seed0/step1/math.parquet")
    assert samples.groupby("prompt_id").size().eq(cfg["trajectory"]["n"]).all()
    # math-if starts where math ended
    start = traj[(traj["run"] == "math-if/seed0") & (traj["step"] == 0)].set_index(["eval_set", "metric"])["value"]
    end = traj[(traj["run"] == "math/seed0") & (traj["step"] == steps)].set_index(["eval_set", "metric"])["value"]
    pd.testing.assert_series_equal(start, end.loc[start.index])


@pytest.mark.slow
def test_association_counts_each_checkpoint_once_and_feeds_the_claims(smoke_run):
    cfg = smoke_cfg()
    assoc = pd.read_csv(smoke_run / "results" / "tables" / "association.csv")
    chains, steps = cfg["trajectory"]["chains"], cfg["rl"]["steps"]
    # the base starts math and if; math's end starts math-if: each counts once
    points = 1 + len(chains) * steps
    assert set(assoc["n_points"]) == {points}
    claims = pd.read_csv(smoke_run / "results" / "tables" / "claims.csv")
    row = claims[claims["claim"].str.startswith("Direct-answer openings and math best@k")]
    assert len(row) == 1 and row["source"].iloc[0].endswith("tables/association.csv")
    a = assoc[(assoc["eval_set"] == "math") & (assoc["x"] == "share:answer")].iloc[0]
    assert row["effect"].iloc[0] == pytest.approx(a["pearson_r"], nan_ok=True)
    for e in cfg["eval_sets"]:
        for fig in ("trajectory", "association"):
            assert (smoke_run / "results" / "figures" / f"{fig}_{e}.png").stat().st_size > 0
