"""Pinned CPU numerics: the environment that makes a CPU job compute the same bits on any x86-64 CPU.

The same seeds and wheels give other weights on another vector unit: PyTorch picks its kernels by
the CPU (`ATEN_CPU_CAPABILITY`: default / avx2 / avx512), and so do the BLAS libraries under it.
torch 2.13.0's CPU wheel does its float32 matmuls in Intel oneMKL 2024.2 (`torch.__config__.show()`:
BLAS_INFO=mkl) and some operators in oneDNN 3.12; numpy 2.4 dispatches its ufuncs by CPU feature
group and links its own OpenBLAS 0.3.31 (DYNAMIC_ARCH). Every one of these can change the last bits
of a result, and one bit in a weight sends a whole GRPO run down another random path.

A study with `numerics.pin` (config.yaml; on by default when no job asks for a GPU) runs every job
with, overriding whatever the user's environment says:

* `ATEN_CPU_CAPABILITY=<cpu_capability>` (avx2 by default), and the same vector width for oneDNN
  (`ONEDNN_MAX_CPU_ISA`), numpy (`NPY_ENABLE_CPU_FEATURES`) and OpenBLAS (`OPENBLAS_CORETYPE`);
* `MKL_CBWR=<mkl_cbwr>`: MKL's conditional numerical reproducibility. COMPATIBLE by default: oneMKL's
  documentation ("Specifying Code Branches") makes every branch but AUTO and COMPATIBLE Intel-only,
  and on another vendor's CPU (an AMD EPYC) MKL_CBWR=AVX2 silently falls back to AUTO; COMPATIBLE
  (SSE2 without the approximate rcpps/rsqrtps) is the branch meant to agree on Intel and compatible
  CPUs. `MKL_ENABLE_INSTRUCTIONS` and `MKL_DEBUG_CPU_TYPE`, which would pick another branch, are removed;
* `matmul`: which library computes the linear layers' products. `mkl` (the default): torch's own, in the
  MKL branch above. `openblas`: numpy's OpenBLAS with the pinned kernel set (models/openblas_linear.py),
  as reproducible across vendors and 1.75x faster on one thread than MKL's COMPATIBLE (SSE2) branch; it
  computes other bits, so it is part of the spec (of a pinned study only: an unpinned one runs torch's);
* a fixed thread count: the job's `--threads` (resources.<kind>.cpus_per_task of the config, so the
  same on every machine), 1 for a verb without one, for OpenMP, MKL and OpenBLAS, without dynamic
  adjustment; the verbs set torch's intra-op threads to the same number.

These must be in the environment before torch, numpy or a BLAS is loaded: `python -m rlvr_support`
applies them first thing (__main__.py), in every job process, `accelerate launch`'s workers included
(they run the same module). Snakemake hands the config's `numerics` to its jobs in RLVR_NUMERICS
(workflow/rules/common.smk). `torch.use_deterministic_algorithms` is not set: on CPU it changed no
byte of pretraining, a GRPO stage or a sample job (measured), it would only add a guard.

What a job actually ran with (torch's capability, MKL's version and mode, threads, CPU, GPU) is
recorded in its provenance sidecars (lineage/provenance.py `numerics_record`); `audit` reports a
results tree whose jobs ran under different numerics. GPU studies record and do not pin: GPU
kernels are not bit-reproducible across GPU types.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

ENV_VAR = "RLVR_NUMERICS"  # the config's `numerics` section as JSON, for every job

# numpy's dispatch targets up to a width, by both spellings: numpy >= 2.4 groups them (X86_V2, X86_V3,
# X86_V4), earlier versions name each (the vLLM environment's numpy 2.3); each ignores the other's names
_NPY_V2 = "X86_V2 SSSE3 SSE41 POPCNT SSE42"
_NPY_V3 = f"{_NPY_V2} X86_V3 AVX F16C FMA3 AVX2"
_NPY_V4 = f"{_NPY_V3} X86_V4 AVX512F AVX512CD AVX512_SKX"
# ATEN_CPU_CAPABILITY -> the same vector width in the other libraries, and the CPU flags it needs
VECTOR_WIDTH = {
    "default": {"onednn": "SSE41", "numpy": _NPY_V2, "openblas": "NEHALEM", "cpu_flags": ("sse4_2",)},
    "avx2": {"onednn": "AVX2", "numpy": _NPY_V3, "openblas": "HASWELL", "cpu_flags": ("avx2", "fma")},
    "avx512": {"onednn": "AVX512_CORE", "numpy": _NPY_V4, "openblas": "SKYLAKEX",
               "cpu_flags": ("avx512f", "avx512bw", "avx512dq", "avx512vl")},
}
MKL_BRANCHES = ("COMPATIBLE", "AVX2", "AVX512", "AUTO")
# the kernel choices of a pinned study, each with its options, the first what a spec that does not name it
# ran (every run from before the choice existed did; bench/HISTORY.md has the ones measured and not kept)
CHOICES = {"matmul": ("mkl", "openblas")}  # who computes the linear layers' products (models/openblas_linear.py)
DEFAULTS = {"cpu_capability": "avx2", "mkl_cbwr": "COMPATIBLE"}
# what a user may have set that would pick another kernel than the pinned one
OVERRIDDEN = ("MKL_ENABLE_INSTRUCTIONS", "MKL_DEBUG_CPU_TYPE", "NPY_DISABLE_CPU_FEATURES", "DNNL_MAX_CPU_ISA",
              "OMP_DYNAMIC", "MKL_DYNAMIC")
THREAD_VARS = ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS")


def with_numerics_defaults(numerics: dict | None, uses_gpus: bool) -> dict:
    """The `numerics` section filled in: pinned unless the study puts a job on GPUs (then recorded only)."""
    return {"pin": not uses_gpus, **DEFAULTS, **(numerics or {})}


def pinned_environment(spec: dict, threads: int) -> dict[str, str | None]:
    """The environment variables of a pinned job (None: removed)."""
    width = VECTOR_WIDTH[spec["cpu_capability"]]
    env: dict[str, str | None] = {var: None for var in OVERRIDDEN}
    env.update({
        "ATEN_CPU_CAPABILITY": spec["cpu_capability"],
        "MKL_CBWR": spec["mkl_cbwr"],
        "ONEDNN_MAX_CPU_ISA": width["onednn"],
        "NPY_ENABLE_CPU_FEATURES": width["numpy"],
        "OPENBLAS_CORETYPE": width["openblas"],
        "MKL_DYNAMIC": "FALSE",
        "OMP_DYNAMIC": "FALSE",
        **{var: str(threads) for var in THREAD_VARS},
    })
    return env


def cpu_flags(cpuinfo: str | Path = "/proc/cpuinfo") -> set[str] | None:
    """The CPU's feature flags (Linux); None where /proc/cpuinfo cannot be read."""
    try:
        text = Path(cpuinfo).read_text()
    except OSError:
        return None
    m = re.search(r"^flags\s*:\s*(.*)$", text, re.M)
    return set(m.group(1).split()) if m else None


def threads_arg(argv: list[str]) -> int:
    """The verb's `--threads N` (or `--threads=N`), 1 when it has none."""
    for i, a in enumerate(argv):
        if a == "--threads" and i + 1 < len(argv) and argv[i + 1].isdigit():
            return int(argv[i + 1])
        if a.startswith("--threads=") and a.split("=", 1)[1].isdigit():
            return int(a.split("=", 1)[1])
    return 1


def requested(environ=os.environ) -> dict | None:
    """The numerics the job was started with (RLVR_NUMERICS), defaults filled in; None when not set."""
    raw = environ.get(ENV_VAR)
    if not raw:
        return None
    try:
        spec = json.loads(raw)
    except json.JSONDecodeError as e:
        raise ValueError(f"{ENV_VAR}: not valid JSON ({e.msg}): {raw!r}") from None
    spec = {"pin": True, **DEFAULTS, **spec}
    if spec["cpu_capability"] not in VECTOR_WIDTH:
        raise ValueError(f"{ENV_VAR}: cpu_capability {spec['cpu_capability']!r} is none of {', '.join(VECTOR_WIDTH)}")
    if spec["mkl_cbwr"] not in MKL_BRANCHES:
        raise ValueError(f"{ENV_VAR}: mkl_cbwr {spec['mkl_cbwr']!r} is none of {', '.join(MKL_BRANCHES)}")
    for key, options in CHOICES.items():
        if spec.get(key, options[0]) not in options:
            raise ValueError(f"{ENV_VAR}: {key} {spec[key]!r} is none of {', '.join(options)}")
        if spec.get(key) == options[0]:
            # not written, so that such a run records the spec that the sidecars of every run before the choice
            # existed record: `audit` and results-doc see one numerics in a tree that spans the two
            del spec[key]
    return spec


def chosen(key: str, environ=os.environ) -> str:
    """The kernel choice `key` (CHOICES) of this job: the spec's where its numerics are pinned, else the default."""
    spec = requested(environ)
    return spec.get(key, CHOICES[key][0]) if spec and spec["pin"] else CHOICES[key][0]


def apply(argv: list[str], environ=os.environ, cpuinfo: str | Path = "/proc/cpuinfo") -> dict | None:
    """Pin this process's numerics as RLVR_NUMERICS asks, before torch/numpy/BLAS load; the spec or None.

    Stops with a clear error when the CPU lacks the pinned vector unit: the libraries would fall
    back to narrower kernels without a word, and the run would not be the pinned one."""
    spec = requested(environ)
    if spec is None or not spec["pin"]:
        return spec
    flags = cpu_flags(cpuinfo)
    need = VECTOR_WIDTH[spec["cpu_capability"]]["cpu_flags"]
    missing = [f for f in need if flags is not None and f not in flags]
    if missing:
        raise ValueError(f"numerics.cpu_capability is {spec['cpu_capability']}, but this CPU lacks "
                         f"{', '.join(missing)}: pin a narrower capability (numerics.cpu_capability: default) or set "
                         "numerics.pin: false (the run will then not be byte-identical to pinned runs elsewhere)")
    for var, value in pinned_environment(spec, threads_arg(argv)).items():
        if value is None:
            environ.pop(var, None)
        else:
            environ[var] = value
    return spec
