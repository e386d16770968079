"""A model's shape, read from its config.json: what a memory or throughput plan needs to know about it.

The config.json comes, in this order, from a local folder (`kind: local`, a trained checkpoint), the
Hugging Face cache that the submit host's `prefetch` filled (`kind: hf`), or the stored copies of
public configs in model_configs/ (architecture keys only; their `_source` says where each is from).
The toy model's shape is its `base.arch`. Nothing here loads weights: the plan runs at parse time.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

STORED = Path(__file__).with_name("model_configs")
# decoder families whose layer is the Llama layout (RMSNorm, GQA attention, SwiGLU MLP); qwen3 adds a
# per-head RMSNorm on queries and keys, qwen2 biases on q/k/v (no activation memory of their own)
FAMILIES = ("llama", "qwen2", "qwen3", "mistral")
# GGUF files of `kind: gguf_wheel` bases -> the hub model they quantise (its stored config.json)
GGUF_MODELS = {"SmolLM2-135M-Instruct.Q4_1.gguf": "HuggingFaceTB/SmolLM2-135M-Instruct"}


@dataclass(frozen=True)
class ModelShape:
    family: str
    hidden: int
    intermediate: int
    layers: int
    heads: int
    kv_heads: int
    head_dim: int
    vocab: int
    tied: bool
    max_positions: int
    source: str = ""

    @property
    def qk_norm(self) -> bool:
        return self.family == "qwen3"

    @property
    def qkv_bias(self) -> bool:
        return self.family == "qwen2"

    @property
    def q_width(self) -> int:
        return self.heads * self.head_dim

    @property
    def kv_width(self) -> int:
        return self.kv_heads * self.head_dim

    def layer_params(self) -> int:
        h, q, kv = self.hidden, self.q_width, self.kv_width
        attn = h * q + 2 * h * kv + q * h + ((q + 2 * kv) if self.qkv_bias else 0)
        norms = 2 * h + (2 * self.head_dim if self.qk_norm else 0)
        return attn + 3 * h * self.intermediate + norms

    def tensors(self) -> int:
        """Named parameters, as transformers builds the model (what TRL's weight sync moves one at a time): per
        layer q, k, v, o, gate, up, down and two norms, q/k/v biases (qwen2), q/k norms (qwen3); the embedding,
        the final norm and an untied LM head (Qwen3-8B: 36 x 11 + 3 = 399)."""
        per_layer = 9 + (3 if self.qkv_bias else 0) + (2 if self.qk_norm else 0)
        return self.layers * per_layer + 2 + (0 if self.tied else 1)

    @property
    def params(self) -> int:
        """Parameters, counted as transformers builds the model (tests check it on the meta device)."""
        embed = self.vocab * self.hidden * (1 if self.tied else 2)
        return embed + self.layers * self.layer_params() + self.hidden

    def kv_bytes_per_token(self, dtype_bytes: int = 2) -> int:
        """KV cache per token of context: keys and values of every layer."""
        return 2 * self.layers * self.kv_width * dtype_bytes


def shape_from_config(cfg: dict, source: str = "") -> ModelShape:
    """The shape of a config.json dict; a family the plan has no layer model for is an error naming it."""
    family = cfg.get("model_type")
    if family not in FAMILIES:
        raise ValueError(f"{source or 'config.json'}: model_type {family!r} has no memory model "
                         f"(known: {', '.join(FAMILIES)})")
    heads = cfg["num_attention_heads"]
    return ModelShape(
        family=family, hidden=cfg["hidden_size"], intermediate=cfg["intermediate_size"],
        layers=cfg["num_hidden_layers"], heads=heads, kv_heads=cfg.get("num_key_value_heads") or heads,
        head_dim=cfg.get("head_dim") or cfg["hidden_size"] // heads, vocab=cfg["vocab_size"],
        tied=bool(cfg.get("tie_word_embeddings", False)), max_positions=cfg["max_position_embeddings"],
        source=source)


def toy_shape(arch: dict, vocab: int) -> ModelShape:
    """The toy world's Llama (models/loading.py toy_llama: tied embeddings, as many KV heads as heads)."""
    return ModelShape("llama", arch["hidden_size"], arch["intermediate_size"], arch["num_layers"], arch["num_heads"],
                      arch["num_heads"], arch["hidden_size"] // arch["num_heads"], vocab, True, arch["max_positions"],
                      source="base.arch")


def stored_config(hub_id: str) -> Path | None:
    path = STORED / (hub_id.replace("/", "--") + ".json")
    return path if path.is_file() else None


def read_model_config(name: str) -> dict:
    """The config.json keys (without the stored copies' `_source` notes) of a stored model config (a hub id of
    model_configs/) or of a config.json file: what the pilot and the GPU check build a random model from."""
    path = Path(name) if Path(name).is_file() else stored_config(name)
    if path is None:
        raise ValueError(f"{name}: neither a config.json file nor a stored model config "
                         "(src/rlvr_support/planning/model_configs/)")
    return {k: v for k, v in json.loads(path.read_text()).items() if not k.startswith("_")}


def cached_config(hub_id: str, revision: str | None = None) -> Path | None:
    """config.json of a hub model in the local Hugging Face cache (filled by `prefetch`), without the network."""
    try:
        from huggingface_hub import try_to_load_from_cache
    except ImportError:
        return None
    hit = try_to_load_from_cache(hub_id, "config.json", revision=revision)
    return Path(hit) if isinstance(hit, str) else None


def find_config(spec: dict) -> Path | None:
    """Where a model spec's config.json can be read now (None: nowhere until `prefetch` has run)."""
    if spec["kind"] == "local":
        path = Path(spec["path"]) / "config.json"
        return path if path.is_file() else None
    if spec["kind"] == "hf":
        return cached_config(spec["path"], spec.get("revision")) or stored_config(spec["path"])
    if spec["kind"] == "gguf_wheel":  # the wheel holds GGUF, not config.json: the stored copy of its model
        hub = GGUF_MODELS.get(spec.get("gguf_file", ""))
        return stored_config(hub) if hub else None
    return None


def load_shape(path: str | Path) -> ModelShape:
    path = Path(path)
    try:
        cfg = json.loads(path.read_text())
    except (OSError, json.JSONDecodeError) as e:
        raise ValueError(f"{path}: cannot read the model's config.json: {e}") from None
    shown = path.relative_to(STORED.parents[2]) if path.is_relative_to(STORED) else path  # src/rlvr_support/...
    return shape_from_config(cfg, str(shown))


def model_shape(spec: dict, toy_vocab: int | None = None) -> ModelShape | None:
    """The shape of a `models:` / `base:` / checkpoint spec, or None where its config.json is not here yet."""
    if spec["kind"] == "pretrain":
        return toy_shape(spec["arch"], toy_vocab) if toy_vocab else None
    path = find_config(spec)
    return load_shape(path) if path else None
