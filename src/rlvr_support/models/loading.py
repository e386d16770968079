"""Load and build causal LMs: the toy world's small Llama and any Hugging Face checkpoint.

The toy model is a plain `LlamaForCausalLM`, so the toy path, the real-model path and vLLM
share the same code: everything downstream only sees `AutoModelForCausalLM` directories.

No checkpoint's own code ever runs: every load passes `trust_remote_code=False` (left unset,
transformers asks on stdin, and `yes | snakemake ...` answers it), and a folder whose config asks
for custom code is refused first, naming the file and key (config/checkpoints.py).

Every model is built or loaded here, so this is where a job whose pinned numerics say `matmul: openblas`
sends its linear layers to OpenBLAS (models/openblas_linear.py), before the model computes anything.
"""

from __future__ import annotations

import json
from pathlib import Path

import torch
from transformers import AutoModelForCausalLM, AutoTokenizer, LlamaConfig, LlamaForCausalLM

from rlvr_support.config.checkpoints import remote_code_problem
from rlvr_support.models.openblas_linear import route_linear


def toy_llama(vocab_size: int, arch: dict, tokenizer) -> LlamaForCausalLM:
    route_linear()
    config = LlamaConfig(
        vocab_size=vocab_size,
        hidden_size=arch["hidden_size"],
        intermediate_size=arch["intermediate_size"],
        num_hidden_layers=arch["num_layers"],
        num_attention_heads=arch["num_heads"],
        num_key_value_heads=arch["num_heads"],
        max_position_embeddings=arch["max_positions"],
        tie_word_embeddings=True,
        bos_token_id=tokenizer.bos_token_id,
        eos_token_id=tokenizer.eos_token_id,
        pad_token_id=tokenizer.pad_token_id,
    )
    return LlamaForCausalLM(config)


def checkpoint_dir(manifest_path: str | Path) -> Path:
    """A checkpoint is declared by its manifest; the weights sit in `model/` beside it."""
    manifest = json.loads(Path(manifest_path).read_text())
    model_dir = Path(manifest_path).parent / manifest["model_dir"]
    if not (model_dir / "config.json").exists():
        raise FileNotFoundError(f"checkpoint {manifest_path} names {model_dir}, which has no config.json")
    return model_dir


def weights_id(manifest_path: str | Path) -> str:
    """A name for the weights a manifest (or a model folder) declares: the digest of their files' sha256 (recorded in the
    manifest, else computed). Sampling seeds follow it, not the checkpoint's label, so the same
    weights registered under another name (an external copy of a trained checkpoint) give the same
    samples, and two different checkpoints never share a random stream by accident."""
    import hashlib

    from rlvr_support.models.base_models import weights_checksums

    path = Path(manifest_path)
    if path.is_dir():  # a model folder given directly
        sums = weights_checksums(path)
    else:
        sums = json.loads(path.read_text()).get("sha256") or weights_checksums(checkpoint_dir(path))
    return hashlib.sha256(json.dumps(sums, sort_keys=True).encode()).hexdigest()[:16]


def load_model(manifest_or_dir: str | Path, dtype=torch.float32):
    """The causal LM of a manifest or a model directory (no tokenizer, no custom code), in eval mode, on the CPU."""
    p = Path(manifest_or_dir)
    model_dir = checkpoint_dir(p) if p.suffix == ".json" else p
    from safetensors import SafetensorError

    if problem := remote_code_problem(model_dir):
        raise ValueError(f"cannot load model from {model_dir}: {problem}")
    route_linear()
    try:  # a missing, truncated or corrupt weight file is an error naming the checkpoint
        model = AutoModelForCausalLM.from_pretrained(model_dir, dtype=dtype, trust_remote_code=False)
    except (OSError, ValueError, RuntimeError, SafetensorError) as e:
        raise ValueError(f"cannot load model from {model_dir}: {e}") from None
    model.eval()
    return model


def load_tokenizer(model_dir: str | Path):
    """A checkpoint's tokenizer, as it was saved (no custom code)."""
    if problem := remote_code_problem(model_dir):
        raise ValueError(f"cannot load the tokenizer of {model_dir}: {problem}")
    try:
        return AutoTokenizer.from_pretrained(model_dir, trust_remote_code=False)
    except (OSError, ValueError) as e:
        raise ValueError(f"cannot load the tokenizer of {model_dir}: {e}") from None


def load_policy(manifest_or_dir: str | Path, dtype=torch.float32, device: str | None = None):
    """(model, tokenizer) from a manifest file or a model directory, in eval mode, left padding;
    on `device` (default: where transformers puts it, the CPU)."""
    p = Path(manifest_or_dir)
    model_dir = checkpoint_dir(p) if p.suffix == ".json" else p
    model = load_model(model_dir, dtype)
    tok = load_tokenizer(model_dir)
    tok.padding_side = "left"
    if tok.pad_token is None:
        tok.pad_token = tok.eos_token
    if device is not None:
        model.to(device)
    return model, tok
