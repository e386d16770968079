"""Faults on resume (issue 18): a rerun after a kill continues only from saved state it can trust.

* a code edit between the kill and the rerun discards `_partial/`: its fingerprint holds the hash
  of the code the verb runs, so the rerun equals a fresh run of the new code;
* a crafted pickle saved as pretraining's partial state with a matching fingerprint never runs;
* a truncated partial checkpoint (GRPO stage or pretraining) is dropped with a log line and the
  job finishes, on the weights of an uninterrupted run;
* a resumed stage writes the same monitor.csv, byte for byte, as an uninterrupted one;
* (issue 30) every file of a TRL checkpoint that the Trainer loads (optimizer.pt, scheduler.pt,
  rng_state.pth, trainer_state.json, the weights), crafted or cut, is dropped with a log line: the
  stage falls back to the checkpoint before it or starts afresh, and a crafted pickle never runs;
* (issue 30) weights and resume state get the umask's modes (safetensors writes 0600).

In-process on a tiny random policy, no smoke run: a "kill" is an exception raised right after a
save (what SIGKILL leaves behind then; tests/test_resume.py kills real processes).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import stat
from pathlib import Path

import pytest
import torch
from safetensors.torch import load_file, save_file

import rlvr_support.models.pretrain as pretrain_mod
import rlvr_support.training.stage as stage
import rlvr_support.training.trainer as ext
from rlvr_support.cli import main as cli
from rlvr_support.lineage import codehash
from rlvr_support.models import resume
from rlvr_support.storage.atomic import write_jsonl
from toy_parent import arithmetic_prompts, length_reward, write_parent

ARCH = {"hidden_size": 32, "intermediate_size": 64, "num_layers": 1, "num_heads": 4, "max_positions": 128}
RL = {"steps": 4, "group_size": 4, "prompts_per_step": 2, "lr": 1e-3, "temperature": 1.0, "max_completion_tokens": 12,
      "beta": 0.0, "loss_type": "grpo", "epsilon": 0.2, "log_every": 1, "save_every": 2,
      "monitor": {"every": 1, "prompts": 2, "n": 2, "opening_tokens": 2, "early_stop_margin": None}}


class Killed(Exception):
    """Stands for SIGKILL right after a save."""


OLD_REWARD, NEW_REWARD = length_reward(3), length_reward(5)


@pytest.fixture(scope="module")
def parent(tmp_path_factory):
    return write_parent(tmp_path_factory.mktemp("parent"), ARCH, arithmetic_prompts(("train", "eval"), math_fields=True))


def _argv(parent: Path, out: Path) -> list[str]:
    return ["train", "--parent", str(parent / "manifest.json"), "--task", "math", "--prompts",
            str(parent / "prompts.jsonl"), "--cfg", json.dumps(RL), "--seed", "0", "--chain", "math",
            "--probe", f"math={parent / 'prompts.jsonl'}", "--out", str(out / "manifest.json")]


def _train(parent: Path, out: Path, make_reward, kill_at: int | None = None) -> None:
    """The `train` verb in-process (without the provenance sidecars); `kill_at`: die after that step's save."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(stage, "make_reward", make_reward)
        if kill_at is not None:
            save = ext.SupportGRPOTrainer._save_checkpoint

            def save_then_die(self, *a, **kw):
                save(self, *a, **kw)
                if self.state.global_step == kill_at:
                    raise Killed

            mp.setattr(ext.SupportGRPOTrainer, "_save_checkpoint", save_then_die)
        args = cli.build_parser().parse_args(_argv(parent, out))
        if kill_at is None:
            args.fn(args)
        else:
            with pytest.raises(Killed):
                args.fn(args)
            assert (out / f"_partial/checkpoint-{kill_at}/trainer_state.json").is_file()


@pytest.fixture(scope="module")
def uninterrupted(parent, tmp_path_factory):
    """A run of the new code from start to end."""
    out = tmp_path_factory.mktemp("uninterrupted")
    _train(parent, out, NEW_REWARD)
    return out


def _weights(run: Path) -> dict:
    return load_file(run / "model/model.safetensors")


def _assert_same_weights(a: Path, b: Path) -> None:
    wa, wb = _weights(a), _weights(b)
    assert wa.keys() == wb.keys()
    for k in wa:
        assert torch.equal(wa[k], wb[k]), f"{k} differs from the uninterrupted run of the same code"


def _edit_package(tmp_path, monkeypatch, module: str, edit: str) -> None:
    """Point the code hash at a copy of the package with `edit` appended to `module` (a path in it);
    the code that runs stays the test's (a behaviour change is a monkeypatched function)."""
    root = tmp_path / "pkg" / "rlvr_support"
    if not root.exists():
        shutil.copytree(codehash.PACKAGE, root, ignore=shutil.ignore_patterns("__pycache__"))
    (root / module).write_text((root / module).read_text() + edit)
    monkeypatch.setattr(codehash, "PACKAGE", root)


def test_code_edit_between_kill_and_rerun_discards_the_partial_state(parent, uninterrupted, tmp_path, monkeypatch,
                                                                      capsys):
    out = tmp_path / "run"
    # code edits (a comment would not change the hash: it hashes syntax trees)
    _edit_package(tmp_path, monkeypatch, "training/rewards.py", "\n_REWARD = 'old'\n")
    _train(parent, out, OLD_REWARD, kill_at=2)
    capsys.readouterr()
    _edit_package(tmp_path, monkeypatch, "training/rewards.py", "\n_REWARD = 'new'\n")
    _train(parent, out, NEW_REWARD)
    log = capsys.readouterr().out
    assert "resuming from" not in log and re.search(r"discarding .*_partial.*\bcode\b", log), log[-2000:]
    assert json.loads((out / "manifest.json").read_text())["resumed"] is False
    start = load_file(parent / "model/model.safetensors")
    assert any(not torch.equal(start[k], w) for k, w in _weights(uninterrupted).items()), "GRPO did not move"
    _assert_same_weights(uninterrupted, out)


def test_resumed_stage_writes_the_uninterrupted_runs_monitor_csv(parent, uninterrupted, tmp_path, capsys):
    """Without an edit the rerun does resume (the guard of the test above), to the same weights
    and the same monitor.csv and reward_curve.csv, byte for byte."""
    out = tmp_path / "run"
    _train(parent, out, NEW_REWARD, kill_at=2)
    capsys.readouterr()
    _train(parent, out, NEW_REWARD)
    assert "resuming from" in capsys.readouterr().out
    assert json.loads((out / "manifest.json").read_text())["resumed"] is True
    _assert_same_weights(uninterrupted, out)
    for name in ("monitor.csv", "reward_curve.csv"):
        assert (out / name).read_bytes() == (uninterrupted / name).read_bytes(), f"{name} differs after a resume"


def test_truncated_partial_checkpoint_is_dropped_and_the_stage_finishes(parent, uninterrupted, tmp_path, capsys):
    out = tmp_path / "run"
    _train(parent, out, NEW_REWARD, kill_at=2)
    weights = out / "_partial/checkpoint-2/model.safetensors"
    weights.write_bytes(weights.read_bytes()[: weights.stat().st_size // 2])
    capsys.readouterr()
    _train(parent, out, NEW_REWARD)
    log = capsys.readouterr().out
    assert re.search(r"dropping unreadable checkpoint .*checkpoint-2", log), log[-2000:]
    assert "resuming from" not in log  # TRL kept only that one: a fresh start
    _assert_same_weights(uninterrupted, out)
    assert (out / "monitor.csv").read_bytes() == (uninterrupted / "monitor.csv").read_bytes()


def _crafted(f: Path, marker: Path, state: dict) -> None:
    """`f` as a torch file whose unpickling would write `marker` (with a matching fingerprint, as
    someone with write access to `_partial/` could leave it)."""
    torch.save({k: _Payload(marker) if v is None else v for k, v in state.items()}, f)


# Every file of a TRL checkpoint that the Trainer loads on resume, made unreadable in its own way.
UNREADABLE = {
    "optimizer.pt": lambda f, marker: _crafted(f, marker, {"state": None, "param_groups": []}),
    "scheduler.pt": lambda f, marker: _crafted(f, marker, {"last_epoch": None}),
    "rng_state.pth": lambda f, marker: _crafted(f, marker, {"python": None, "numpy": None, "cpu": None}),
    "trainer_state.json": lambda f, marker: f.write_text('{"global_step": 2, "not_a_trainer_state_field": 1}'),
    "model.safetensors": lambda f, marker: f.write_bytes(f.read_bytes()[:-64]),
}


@pytest.mark.parametrize("name", sorted(UNREADABLE))
def test_an_unreadable_resume_file_is_dropped_and_the_stage_trains_afresh(parent, uninterrupted, tmp_path, capsys,
                                                                           name):
    out, marker = tmp_path / "run", tmp_path / "payload-ran"
    _train(parent, out, NEW_REWARD, kill_at=2)
    target = out / "_partial/checkpoint-2" / name
    assert target.is_file(), sorted(p.name for p in target.parent.iterdir())
    UNREADABLE[name](target, marker)
    capsys.readouterr()
    _train(parent, out, NEW_REWARD)  # before the fix, every such rerun failed the same way
    log = capsys.readouterr().out
    assert not marker.exists(), f"resuming unpickled and ran a crafted {name}"
    assert re.search(rf"dropping unreadable checkpoint \S*checkpoint-2 \({re.escape(name)}: .*starting afresh", log), \
        log[-2000:]
    assert "resuming from" not in log and json.loads((out / "manifest.json").read_text())["resumed"] is False
    start = load_file(parent / "model/model.safetensors")
    assert any(not torch.equal(start[k], w) for k, w in _weights(out).items()), "GRPO did not move the weights"
    _assert_same_weights(uninterrupted, out)


def test_an_unreadable_newest_checkpoint_falls_back_to_the_previous_one(parent, uninterrupted, tmp_path, capsys):
    earlier = tmp_path / "earlier"
    _train(parent, earlier, NEW_REWARD, kill_at=2)
    out, marker = tmp_path / "run", tmp_path / "payload-ran"
    _train(parent, out, NEW_REWARD, kill_at=4)  # TRL keeps only its newest checkpoint: put step 2's back beside it
    shutil.copytree(earlier / "_partial/checkpoint-2", out / "_partial/checkpoint-2")
    UNREADABLE["optimizer.pt"](out / "_partial/checkpoint-4/optimizer.pt", marker)
    capsys.readouterr()
    _train(parent, out, NEW_REWARD)
    log = capsys.readouterr().out
    assert not marker.exists()
    assert re.search(r"dropping unreadable checkpoint \S*checkpoint-4 \(optimizer\.pt: .*falling back to checkpoint-2",
                     log), log[-2000:]
    assert re.search(r"resuming from \S*checkpoint-2\b", log), log[-2000:]
    _assert_same_weights(uninterrupted, out)


def _modes(root: Path) -> dict[str, tuple[int, int]]:
    """{path: (its mode, the mode a new file or folder gets under the current umask)}."""
    mask = os.umask(0)
    os.umask(mask)
    return {str(p.relative_to(root)): (stat.S_IMODE(p.stat().st_mode), (0o777 if p.is_dir() else 0o666) & ~mask)
            for p in sorted(root.rglob("*"))}


@pytest.mark.parametrize("mask", [0o022, 0o002])
def test_weights_and_resume_state_get_the_umasks_modes(parent, corpus, tmp_path, mask, monkeypatch):
    """model.safetensors (safetensors writes it 0600), every file of `_partial/` and of the published
    model, of a GRPO stage and of pretraining, under two umasks."""
    done = resume.SharedModes.on_save

    def save_then_die(self, args, state, control, **kw):  # killed once the save and its callbacks are done
        done(self, args, state, control, **kw)
        if state.global_step == 2:
            raise Killed

    old = os.umask(mask)
    try:
        out = tmp_path / "stage"
        with monkeypatch.context() as mp:
            mp.setattr(resume.SharedModes, "on_save", save_then_die)
            mp.setattr(stage, "make_reward", NEW_REWARD)
            args = cli.build_parser().parse_args(_argv(parent, out))
            with pytest.raises(Killed):
                args.fn(args)
        partial = _modes(out / "_partial")
        assert "checkpoint-2/model.safetensors" in partial and "checkpoint-2/optimizer.pt" in partial
        _train(parent, out, NEW_REWARD)
        base = tmp_path / "base"
        _pretrain(corpus, base, kill=True)
        partial.update({f"pretrain/{k}": v for k, v in _modes(base / "_partial").items()})
        _pretrain(corpus, base)
        published = {**_modes(out), **{f"pretrain/{k}": v for k, v in _modes(base).items()}}
    finally:
        os.umask(old)
    assert "model/model.safetensors" in published and "pretrain/model/model.safetensors" in published
    for name, (mode, want) in {**partial, **{f"published/{k}": v for k, v in published.items()}}.items():
        assert mode == want, f"{name}: mode {mode:o}, the umask {mask:03o} gives {want:o}"


def test_a_damaged_newest_checkpoint_falls_back_to_the_one_before(tmp_path, capsys):
    partial = tmp_path / "_partial"
    resume.prepare(partial, {"seed": 0})
    for step in (2, 4):
        ck = partial / f"checkpoint-{step}"
        ck.mkdir()
        save_file({"w": torch.ones(64)}, ck / "model.safetensors")
        torch.save({"state": {}}, ck / "optimizer.pt")
        (ck / "trainer_state.json").write_text("{}")
    assert resume.damage(partial / "checkpoint-4") is None
    optimizer = partial / "checkpoint-4/optimizer.pt"
    optimizer.write_bytes(optimizer.read_bytes()[:-40])
    resume.prepare(partial, {"seed": 0})
    assert [p.name for p in resume.checkpoints(partial)] == ["checkpoint-2"]
    assert re.search(r"dropping unreadable checkpoint .*checkpoint-4 \(optimizer\.pt.*falling back to checkpoint-2",
                     capsys.readouterr().out)


def test_resume_state_left_private_by_a_kill_gets_the_umasks_modes(tmp_path):
    partial = tmp_path / "_partial"
    resume.prepare(partial, {"seed": 0})
    ck = partial / "checkpoint-2"
    ck.mkdir()
    save_file({"w": torch.ones(4)}, ck / "model.safetensors")  # 0600 whatever the umask
    (ck / "trainer_state.json").write_text("{}")
    resume.prepare(partial, {"seed": 0})
    modes = _modes(partial)
    assert "checkpoint-2/model.safetensors" in modes
    assert all(mode == want for mode, want in modes.values()), modes


@pytest.mark.snakemake
def test_rules_hash_the_code_the_resume_fingerprint_names(tmp_path):
    """The resume fingerprint hashes what the rule's rerun trigger hashes (lineage/job_code.py), for every
    train job of the smoke DAG (their verifiers and remedies differ) and the pretraining."""
    from conftest import REPO, SMOKE_CONFIG
    from rlvr_support.lineage.job_code import job_hash
    from rlvr_support.review.rerun_reasons import Plan
    from rlvr_support.scoring.verifiers.families import parse

    with Plan(["all"], tmp_path, REPO / "Snakefile", [SMOKE_CONFIG]) as plan:
        jobs = [j for j in plan.dag.jobs if j.rule.name in ("train_stage", "pretrain_base")]
        trained = [j for j in jobs if j.rule.name == "train_stage"]
        assert len(trained) >= 5 and any(j.params.remedies != "{}" for j in trained)
        for j in jobs:
            verb = "train" if j.rule.name == "train_stage" else "pretrain"
            args = (parse(j.params.verifiers), json.loads(j.params.remedies)) if verb == "train" else ()
            assert codehash.manifest_digest(j.params.code) == job_hash(verb, *args), j
        assert "training/rewards.py" in trained[0].params.code


# ----------------------------------------------------------------------------- pretraining
BASE = {"arch": ARCH, "train": {"steps": 4, "batch_size": 4, "lr": 4e-3, "lr_floor": 2e-4, "warmup": 1,
                                "weight_decay": 0.01, "save_every": 2}}


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    path = tmp_path_factory.mktemp("corpus") / "corpus.jsonl"
    write_jsonl(path, [{"prompt": f"Q : solve {i} + {i + 1} . A :", "response": str(2 * i + 1)} for i in range(8)])
    return path


def _pretrain(corpus: Path, out: Path, kill: bool = False) -> dict | None:
    """The `pretrain` verb in-process; `kill`: die after the last partial save (before the model is written)."""
    args = cli.build_parser().parse_args(["pretrain", "--corpus", str(corpus), "--cfg", json.dumps(BASE),
                                          "--seed", "0", "--out", str(out / "manifest.json")])
    if not kill:
        args.fn(args)
        return json.loads((out / "manifest.json").read_text())
    with pytest.MonkeyPatch.context() as mp:
        def die(*_a, **_kw):
            raise Killed
        mp.setattr(pretrain_mod, "atomic_dir", die)
        with pytest.raises(Killed):
            args.fn(args)
    assert (out / "_partial/state.pt").is_file()
    return None


@pytest.fixture(scope="module")
def pretrained(corpus, tmp_path_factory):
    out = tmp_path_factory.mktemp("pretrained")
    _pretrain(corpus, out)
    return out


class _Payload:
    """Unpickling this writes `marker`: what a crafted state.pt could do instead."""

    def __init__(self, marker: Path):
        self.marker = str(marker)

    def __reduce__(self):
        return exec, (f"open({self.marker!r}, 'w').write('ran')",)


def test_crafted_pickle_as_pretraining_state_never_runs(corpus, pretrained, tmp_path, capsys):
    out = tmp_path / "base"
    _pretrain(corpus, out, kill=True)
    marker = tmp_path / "payload-ran"
    torch.save({"model": _Payload(marker), "opt": {}, "step": 2}, out / "_partial/state.pt")  # fingerprint kept
    capsys.readouterr()
    try:
        manifest = _pretrain(corpus, out)
    finally:  # the payload runs while loading, whatever the loader does next
        assert not marker.exists(), "resuming pretraining unpickled and ran a crafted state.pt"
    assert re.search(r"dropping unreadable .*state\.pt", capsys.readouterr().out)
    assert manifest["resumed_from"] == 0
    _assert_same_weights(pretrained, out)


def test_truncated_pretraining_state_is_dropped_and_pretraining_finishes(corpus, pretrained, tmp_path, capsys):
    out = tmp_path / "base"
    _pretrain(corpus, out, kill=True)
    state = out / "_partial/state.pt"
    state.write_bytes(state.read_bytes()[: state.stat().st_size // 2])
    capsys.readouterr()
    manifest = _pretrain(corpus, out)
    assert re.search(r"dropping unreadable .*state\.pt", capsys.readouterr().out)
    assert manifest["resumed_from"] == 0
    _assert_same_weights(pretrained, out)


def test_pretraining_resumes_its_own_state_and_not_after_a_code_edit(corpus, pretrained, tmp_path, monkeypatch,
                                                                     capsys):
    out = tmp_path / "base"
    _pretrain(corpus, out, kill=True)
    capsys.readouterr()
    shutil.copytree(out / "_partial", tmp_path / "partial-copy")
    assert _pretrain(corpus, out)["resumed_from"] == 2
    _assert_same_weights(pretrained, out)
    # the same partial state again, now under edited code: a fresh start
    shutil.rmtree(out)
    shutil.copytree(tmp_path / "partial-copy", out / "_partial")
    _edit_package(tmp_path, monkeypatch, "models/pretrain.py", "\n_EDITED = True\n")  # a code edit
    capsys.readouterr()
    assert _pretrain(corpus, out)["resumed_from"] == 0
    assert re.search(r"discarding .*_partial.*\bcode\b", capsys.readouterr().out)
