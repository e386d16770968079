"""Pinned CPU numerics (config/numerics.py): the same bytes on another vector unit, recorded in every
sidecar, and an audit that reports a tree whose jobs ran under different numerics.

The end-to-end test runs pretraining, one GRPO stage and one sample job of the smoke config through
Snakemake under two environments of this one machine: as it is (AVX-512 here: torch's AVX512
kernels, MKL's AVX-512 branch) and as a CPU without AVX-512 would pick its kernels
(ATEN_CPU_CAPABILITY=default, MKL's AVX2 instructions, numpy and OpenBLAS without AVX-512). With
the pins the outputs are byte-identical; without them they differ, so the test can fail."""

from __future__ import annotations

import copy
import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from conftest import REPO, SMOKE_CONFIG
from rlvr_support.config import numerics
from rlvr_support.config.defaults import fill_defaults
from rlvr_support.review.mixed_numerics import mixed_numerics, numerics_facts, unrecorded

CFG = yaml.safe_load(SMOKE_CONFIG.read_text())


# ---------------------------------------------------------------- the pinned environment
def test_pins_override_the_users_environment():
    env = {"ATEN_CPU_CAPABILITY": "avx512", "MKL_ENABLE_INSTRUCTIONS": "AVX512", "MKL_CBWR": "AUTO",
           "OMP_NUM_THREADS": "64", "NPY_DISABLE_CPU_FEATURES": "X86_V3", numerics.ENV_VAR: json.dumps({"pin": True})}
    spec = numerics.apply(["pretrain", "--threads", "2"], environ=env)
    assert spec == {"pin": True, "cpu_capability": "avx2", "mkl_cbwr": "COMPATIBLE"}
    assert (env["ATEN_CPU_CAPABILITY"], env["MKL_CBWR"], env["ONEDNN_MAX_CPU_ISA"]) == ("avx2", "COMPATIBLE", "AVX2")
    assert env["OPENBLAS_CORETYPE"] == "HASWELL"
    assert {"X86_V3", "AVX2", "FMA3"} <= set(env["NPY_ENABLE_CPU_FEATURES"].split())  # numpy >= 2.4 and older names
    assert not {"X86_V4", "AVX512F"} & set(env["NPY_ENABLE_CPU_FEATURES"].split())
    assert env["OMP_NUM_THREADS"] == env["MKL_NUM_THREADS"] == env["OPENBLAS_NUM_THREADS"] == "2"
    assert env["MKL_DYNAMIC"] == env["OMP_DYNAMIC"] == "FALSE"
    assert "MKL_ENABLE_INSTRUCTIONS" not in env and "NPY_DISABLE_CPU_FEATURES" not in env


def test_unpinned_or_unset_leaves_the_environment_alone():
    for env in ({"ATEN_CPU_CAPABILITY": "default"},
                {"ATEN_CPU_CAPABILITY": "default", numerics.ENV_VAR: json.dumps({"pin": False})}):
        before = dict(env)
        numerics.apply(["score"], environ=env)
        assert env == before


def test_a_verb_without_threads_runs_one_thread():
    assert numerics.threads_arg(["score", "--samples", "x"]) == 1
    assert numerics.threads_arg(["sample", "--threads=3"]) == 3
    env = {numerics.ENV_VAR: "{}"}
    numerics.apply(["passk-table"], environ=env)
    assert env["OMP_NUM_THREADS"] == "1"


def test_a_cpu_without_the_pinned_vector_unit_stops_the_job(tmp_path):
    cpuinfo = tmp_path / "cpuinfo"
    cpuinfo.write_text("processor\t: 0\nflags\t\t: fpu sse sse2 sse4_1 sse4_2 avx\n")
    env = {numerics.ENV_VAR: json.dumps({"cpu_capability": "avx2"})}
    with pytest.raises(ValueError, match="lacks avx2, fma"):
        numerics.apply(["pretrain"], environ=env, cpuinfo=cpuinfo)
    env = {numerics.ENV_VAR: json.dumps({"cpu_capability": "default"})}
    assert numerics.apply(["pretrain"], environ=env, cpuinfo=cpuinfo)["cpu_capability"] == "default"


def test_bad_numerics_are_named():
    with pytest.raises(ValueError, match="cpu_capability 'avx3'"):
        numerics.requested({numerics.ENV_VAR: json.dumps({"cpu_capability": "avx3"})})
    with pytest.raises(ValueError, match="RLVR_NUMERICS: not valid JSON"):
        numerics.requested({numerics.ENV_VAR: "{pin"})


def test_the_cli_stops_with_one_line_when_the_cpu_lacks_the_vector_unit():
    # `python -m rlvr_support` on a CPU without AVX2 (its flags faked): one line, exit 1, before any verb
    script = ("import runpy, sys; import rlvr_support.config.numerics as n; "
              "n.cpu_flags = lambda cpuinfo=None: {'sse2', 'sse4_2'}; sys.argv = ['rlvr_support', 'budget', '--help']; "
              "runpy.run_module('rlvr_support', run_name='__main__')")
    env = {**os.environ, numerics.ENV_VAR: json.dumps({"pin": True})}
    p = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True)
    assert p.returncode == 1 and p.stdout == ""
    assert p.stderr.startswith("error: numerics.cpu_capability is avx2, but this CPU lacks avx2, fma")
    assert len(p.stderr.strip().splitlines()) == 1


def test_toy_studies_pin_and_gpu_studies_record_by_default():
    toy = yaml.safe_load((REPO / "config.yaml").read_text())
    assert fill_defaults(toy)["numerics"] == {"pin": True, "cpu_capability": "avx2", "mkl_cbwr": "COMPATIBLE",
                                              "matmul": "openblas"}
    assert fill_defaults(CFG)["numerics"]["pin"] is True  # the smoke config says nothing: CPU only
    gpu = copy.deepcopy(CFG)
    gpu["resources"]["train"]["gpu"] = 8
    assert fill_defaults(gpu)["numerics"]["pin"] is False
    assert fill_defaults({**gpu, "numerics": {"pin": True}})["numerics"]["pin"] is True  # unless asked


# ---------------------------------------------------------------- the audit's comparison
def _rec(rule="pretrain_base", pinned=True, capability="AVX2", cbwr="COMPATIBLE", auto="AVX512_E1", vendor="Intel",
         threads=2, dispatch=("X86_V3",), gpu=None):
    spec = {"pin": True, "cpu_capability": "avx2", "mkl_cbwr": "COMPATIBLE"} if pinned else {"pin": False}
    return {"rule": rule, "numerics": {
        "pinned": pinned, "spec": spec, "cpu": {"vendor": vendor, "model": f"{vendor} CPU"}, "gpu": gpu,
        "torch": {"version": "2.13.0+cpu", "capability": capability, "threads": threads,
                  "mkl": {"version": "Intel(R) oneAPI Math Kernel Library Version 2024.2", "cbwr": cbwr,
                          "auto_branch": auto}},
        "numpy": {"version": "2.4.6", "dispatch": list(dispatch), "openblas": {"core": "Haswell", "threads": 1}}}}


def test_pinned_runs_on_an_intel_and_an_amd_cpu_agree():
    # MKL's own choice for the CPU differs (auto_branch), but the pinned branch is the one that ran
    assert mixed_numerics({"a": _rec(vendor="GenuineIntel"), "b": _rec(vendor="AuthenticAMD", auto="AVX2")}) == []


def test_unpinned_jobs_on_two_vector_units_are_reported():
    problems = mixed_numerics({"results/a": _rec(pinned=False, capability="AVX512", cbwr="OFF"),
                               "results/b": _rec(pinned=False, capability="AVX512", cbwr="OFF"),
                               "results/c": _rec(pinned=False, capability="AVX2", cbwr="OFF", auto="AVX2")})
    facts = {p.detail.split(" is ")[0] for p in problems}
    assert facts == {"torch CPU kernel capability", "MKL"} and {p.path for p in problems} == {"results/c"}
    assert all(p.kind == "mixed-numerics" and "e.g. results/a" in p.detail for p in problems)


def test_other_threads_for_one_rule_pinned_and_unpinned_gpus_are_reported():
    assert mixed_numerics({"a": _rec(threads=2), "b": _rec(threads=1, rule="train_stage")}) == []
    assert [p.path for p in mixed_numerics({"a": _rec(threads=2), "b": _rec(threads=2), "c": _rec(threads=4)})] == ["c"]
    assert [p.path for p in mixed_numerics({"a": _rec(), "b": _rec(), "c": _rec(pinned=False)})] == ["c"]
    h100 = {"devices": ["NVIDIA H100 80GB HBM3"], "cuda": "12.8", "cudnn": 91000, "driver": "570.1"}
    a100 = {**h100, "devices": ["NVIDIA A100-SXM4-80GB"]}
    problems = mixed_numerics({"a": _rec(gpu=h100), "b": _rec(gpu=h100), "c": _rec(gpu=a100), "d": _rec(rule="score")})
    assert [(p.path, p.detail.split(" is ")[0]) for p in problems] == [("c", "GPUs")]


def test_a_job_without_torch_is_compared_on_what_it_has():
    table = _rec(rule="claims_table")
    del table["numerics"]["torch"]
    assert "torch CPU kernel capability" not in numerics_facts(table)
    assert mixed_numerics({"a": _rec(), "t": table}) == []
    old = {"rule": "toy_data"}  # a sidecar from before numerics were recorded: unknown, counted, not compared
    assert mixed_numerics({"a": _rec(), "old": old}) == [] and unrecorded({"a": _rec(), "old": old}) == ["old"]


def test_audit_of_a_tree_reports_mixed_numerics(tmp_path, monkeypatch):
    import argparse

    from rlvr_support.lineage import provenance
    from rlvr_support.review import audit

    monkeypatch.chdir(tmp_path)
    tree = tmp_path / "results"
    tree.mkdir()
    for name, capability in (("a", "AVX2"), ("b", "AVX2"), ("c", "AVX512")):
        out = tree / f"{name}.csv"
        args = argparse.Namespace(verb="passk-table", out=str(out))
        rec = provenance.begin(args, ["passk-table"], rule="passk_table")
        out.write_text("x\n1\n")
        monkeypatch.setattr(provenance, "numerics_record", lambda gpus=0, c=capability: _rec(
            rule="passk_table", pinned=False, capability=c, cbwr="OFF")["numerics"])
        provenance.finish(rec)
    said = []
    assert audit.run(str(tree), say=said.append, quick=True) == 1
    text = "\n".join(said)
    assert "results/c.csv: mixed-numerics: torch CPU kernel capability is AVX512" in text
    assert "error: results/c.csv was computed under other numerics" in text
    (tree / "c.csv").unlink()
    (tree / "c.csv.prov.json").unlink()
    assert audit.run(str(tree), say=said.append, quick=True) == 0


def test_every_sidecar_records_the_numerics_and_the_config_files(tmp_path, monkeypatch):
    import argparse

    from rlvr_support.lineage import provenance

    monkeypatch.chdir(tmp_path)
    (tmp_path / "study.yaml").write_text("study: x\n")
    monkeypatch.setenv(provenance.CONFIGFILES_ENV,
                       json.dumps(provenance.configfiles_record(["study.yaml"], tmp_path)))
    monkeypatch.setenv(numerics.ENV_VAR, json.dumps({"pin": True}))
    import torch  # a job that computed with torch records its kernels

    torch.ones(3).sum()
    out = tmp_path / "t.csv"
    rec = provenance.begin(argparse.Namespace(verb="passk-table", out=str(out)), ["passk-table"])
    out.write_text("x\n")
    side = json.loads(provenance.finish(rec)[0].read_text())
    assert side["configfiles"] == [{"path": "study.yaml", "sha256": hashlib.sha256(b"study: x\n").hexdigest()}]
    n = side["numerics"]
    assert n["pinned"] and n["spec"]["cpu_capability"] == "avx2"
    assert n["torch"]["capability"] == torch.backends.cpu.get_cpu_capability()
    assert n["torch"]["version"] == torch.__version__ and n["torch"]["threads"] == torch.get_num_threads()
    assert n["torch"]["mkl"]["version"].startswith("Intel(R) oneAPI Math Kernel Library")
    assert n["cpu"]["model"] and n["gpu"] is None and n["numpy"]["version"]


# ---------------------------------------------------------------- the same bytes on another vector unit
# What a CPU without AVX-512 would pick, emulated on this one.
NARROWER_MACHINE = {"ATEN_CPU_CAPABILITY": "default", "MKL_ENABLE_INSTRUCTIONS": "AVX2",
                    "NPY_DISABLE_CPU_FEATURES": "X86_V4 AVX512_ICL AVX512_SPR", "OPENBLAS_CORETYPE": "HASWELL"}
# One GRPO stage of the smoke config; the smoke model earns no reward in 2 steps (every group is
# all-fail, zero advantages), so an entropy bonus makes the stage move the weights.
STAGE = "if~entropy"
TARGETS = ["results/checkpoints/base/manifest.json", f"results/checkpoints/{STAGE}/seed0/manifest.json",
           f"results/samples/{STAGE}/seed0/math.parquet"]
OUTPUTS = ["results/checkpoints/base/model/model.safetensors", f"results/checkpoints/{STAGE}/seed0/model/model.safetensors",
           f"results/checkpoints/{STAGE}/seed0/reward_curve.csv", f"results/samples/{STAGE}/seed0/math.parquet"]


def _run(workdir: Path, pin: bool, outer: dict) -> dict[str, str]:
    cfg = copy.deepcopy(CFG)
    cfg["variants"]["entropy"] = {"entropy_bonus": {"coef": 0.05}}
    cfg["chains"] = [*cfg["chains"], STAGE]
    cfg["numerics"] = {"pin": pin}
    workdir.mkdir()
    (workdir / "study.yaml").write_text(yaml.safe_dump(cfg))
    bindir = Path(sys.executable).parent
    env = {k: v for k, v in os.environ.items() if k not in (*numerics.OVERRIDDEN, *NARROWER_MACHINE, numerics.ENV_VAR)}
    env.update(outer, PATH=f"{bindir}{os.pathsep}{os.environ.get('PATH', '')}")
    proc = subprocess.run([str(bindir / "snakemake"), "-s", str(REPO / "Snakefile"), "-d", str(workdir),
                           "--configfile", str(workdir / "study.yaml"), "--cores", "2", *TARGETS],
                          capture_output=True, text=True, env=env, timeout=900)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return {o: hashlib.sha256((workdir / o).read_bytes()).hexdigest() for o in OUTPUTS}


def _capabilities(workdir: Path) -> set[str]:
    recs = [json.loads((workdir / f"{t}.prov.json").read_text()) for t in TARGETS]
    return {r["numerics"]["torch"]["capability"] for r in recs}


@pytest.mark.slow
@pytest.mark.snakemake
def test_pinned_numerics_give_the_same_bytes_under_another_vector_unit(tmp_path):
    flags = numerics.cpu_flags()
    if flags is None or not {"avx2", "fma"} <= flags:
        pytest.skip("needs an x86-64 CPU with AVX2 and FMA (the pinned capability) and /proc/cpuinfo")
    t0 = __import__("time").time()
    pinned = {name: _run(tmp_path / f"pinned-{name}", True, outer)
              for name, outer in (("native", {}), ("narrower", NARROWER_MACHINE))}
    free = {name: _run(tmp_path / f"free-{name}", False, outer)
            for name, outer in (("native", {}), ("narrower", NARROWER_MACHINE))}
    print(f"four runs of pretraining + GRPO stage + sample job: {__import__('time').time() - t0:.0f} s")
    # the stage really trained: its weights are not its parent's
    base, stage = OUTPUTS[0], OUTPUTS[1]
    assert pinned["native"][stage] != pinned["native"][base]
    assert pinned["native"] == pinned["narrower"], "pinned numerics differ across the two vector units"
    differ = [o for o in OUTPUTS if free["native"][o] != free["narrower"][o]]
    assert base in differ and OUTPUTS[3] in differ, f"without pins only {differ} differ: the test could not fail"
    # and the sidecars say what ran: the pinned runs AVX2 both, the free ones each machine's own
    assert _capabilities(tmp_path / "pinned-native") == _capabilities(tmp_path / "pinned-narrower") == {"AVX2"}
    assert _capabilities(tmp_path / "free-narrower") == {"DEFAULT"}
    assert _capabilities(tmp_path / "free-native") != {"DEFAULT"}


def test_a_gpu_job_records_its_devices_and_library_versions(monkeypatch):
    from types import SimpleNamespace

    from rlvr_support.lineage import provenance

    # no GPU here: a stand-in for torch with CUDA initialised on two devices, and an nvidia-smi that answers
    cuda = SimpleNamespace(is_available=lambda: True, is_initialized=lambda: True, device_count=lambda: 2,
                           get_device_name=lambda i: f"NVIDIA H100 80GB HBM3 #{i}")
    fake = SimpleNamespace(cuda=cuda, version=SimpleNamespace(cuda="12.8"),
                           backends=SimpleNamespace(cudnn=SimpleNamespace(version=lambda: 91002)))
    monkeypatch.setattr(provenance.subprocess, "run", lambda *a, **k: SimpleNamespace(stdout="570.86.15\n570.86.15\n"))
    gpu = provenance._gpu(fake, asked=2)
    assert gpu["devices"] == ["NVIDIA H100 80GB HBM3 #0", "NVIDIA H100 80GB HBM3 #1"]
    assert (gpu["cuda"], gpu["cudnn"], gpu["driver"]) == ("12.8", 91002, "570.86.15")
    assert "not bit-reproducible across GPU types" in gpu["note"]
    assert provenance._gpu(None, asked=0) is None  # a CPU job records no GPU
