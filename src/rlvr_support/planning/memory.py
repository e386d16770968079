"""Peak memory per GPU of a study's GPU jobs, from the model's shape and the config, before any job runs.

Each plan is a list of terms (what, bytes, how it is counted). A term is `resident` (held for the whole
job), or belongs to one phase of it (`update`: forward/backward of a micro-batch; `rollout`: generation);
the peak is the resident terms plus the larger phase. The activation terms are the bytes autograd saves in
a forward of transformers' Llama / Qwen2 / Qwen3 decoder (with TRL's fused LM head, SDPA attention and the
padding mask every GRPO batch has), counted tensor by tensor; tests/test_memory_plan.py checks them
against `torch.autograd.graph.saved_tensors_hooks` on CPU. Optimizer and sharding terms follow ZeRO
(Rajbhandari et al. 2020) and FSDP; the terms marked assumed are stated as such in the report.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from rlvr_support.planning.gpus import GPU
from rlvr_support.planning.shapes import ModelShape

GB = 1e9
CUDA_OVERHEAD = 3.0 * GB  # CUDA context, cuBLAS/NCCL workspaces, allocator slack (assumed)
LOGITS_TILE = 4096 * 32768 * 4  # TRL's fused LM head: one [4096 tokens x 32768 vocab] fp32 tile (trl 1.16)
ZERO3_LIVE_PARAMS = 1e9  # DeepSpeed stage3_max_live_parameters (its default): gathered at once, at most
ADAM_BYTES = 8  # two fp32 moments per parameter
MASTER_BYTES = 4  # fp32 master weights (mixed precision)
VLLM_GRAPH_OVERHEAD = 2.0 * GB  # vLLM's CUDA graphs and sampler workspace beside weights and KV cache (assumed)


@dataclass
class Term:
    name: str
    bytes: float
    how: str
    phase: str = "resident"  # resident | update | rollout
    assumed: bool = False


@dataclass
class MemoryPlan:
    kind: str  # train | sample | analyse
    model: str
    gpu: GPU
    terms: list[Term] = field(default_factory=list)
    keys: list[str] = field(default_factory=list)  # config keys that move the peak, for the error message
    note: str = ""
    limit: float | None = None  # bytes the job may use (default: the whole GPU; a vLLM engine: its share)

    def add(self, *args, **kwargs) -> None:
        self.terms.append(Term(*args, **kwargs))

    def phase(self, name: str) -> float:
        return sum(t.bytes for t in self.terms if t.phase == name)

    @property
    def peak(self) -> float:
        return self.phase("resident") + max(self.phase("update"), self.phase("rollout"))

    @property
    def capacity(self) -> float:
        return self.gpu.mem_gb * GB if self.limit is None else self.limit

    @property
    def fits(self) -> bool:
        return self.peak <= self.capacity


# ---- activations (what autograd saves), per token


def layer_activation_bytes(shape: ModelShape, p: int, padded: bool, seq_len: int) -> float:
    """Bytes one decoder layer saves per token in a training forward, parameters of dtype size `p`.

    p x (4h + 2q + 2kv + 4i): the two RMSNorm outputs and the attention input/output projections' inputs
    (4h), the rotated query and SDPA's output (2q), rotated keys and values (2kv; with a padding mask
    transformers expands them to all query heads, 2q), the MLP's gate, up, SiLU and product (4i);
    4 x (2h + heads + 2): each RMSNorm's fp32 upcast input and its fp32 rsqrt, SDPA's fp32 logsumexp per
    head; with a padding mask, SDPA also keeps the (seq_len) mask row of each token, in p bytes.
    Qwen3's per-head q/k RMSNorm adds (p + 4) x (q + kv) + 4 x (heads + kv_heads)."""
    h, i, q, kv = shape.hidden, shape.intermediate, shape.q_width, shape.kv_width
    kv_saved = q if (padded and shape.kv_heads < shape.heads) else kv
    b = p * (4 * h + 2 * q + 2 * kv_saved + 4 * i) + 4 * (2 * h + shape.heads + 2)
    if padded:
        b += p * seq_len
    if shape.qk_norm:
        b += (p + 4) * (q + kv) + 4 * (shape.heads + shape.kv_heads)
    return b


def model_activation_bytes(shape: ModelShape, p: int) -> float:
    """Bytes saved per token outside the decoder layers: embedding output and the final RMSNorm (2p x h),
    its fp32 upcast (4h), and the fused LM head's per-token labels, mask and log-sum-exp (24)."""
    return (2 * p + 4) * shape.hidden + 24


def activation_bytes(shape: ModelShape, sequences: int, seq_len: int, p: int, checkpointing: bool,
                     padded: bool = True) -> tuple[float, float]:
    """(saved by the forward of one micro-batch, recomputed at once in the backward) in bytes.

    With gradient checkpointing every layer keeps only its input (p x h per token) and the backward
    recomputes one layer at a time; without, every layer keeps all it saves and nothing is recomputed."""
    tokens = sequences * seq_len
    per_layer = layer_activation_bytes(shape, p, padded, seq_len)
    outside = model_activation_bytes(shape, p) * tokens
    if checkpointing:
        return shape.layers * p * shape.hidden * tokens + outside, per_layer * tokens
    return shape.layers * per_layer * tokens + outside, 0.0


# ---- the job kinds


@dataclass
class TrainSetup:
    processes: int  # GPUs the stage runs on (one process each)
    sharding: str  # zero3 | zero2 | zero1 | fsdp | none
    offload_optimizer: bool
    p: int  # bytes of a compute-dtype parameter: 2 (bf16) or 4 (fp32)
    micro_batch: int
    seq_len: int  # prompt + completion tokens (the padded width of a batch)
    checkpointing: bool
    frozen_copies: int  # reference / teacher models beside the policy
    rollout: str  # vllm-colocate | vllm-server | hf
    rollout_sequences: int  # sequences generated per GPU per optimizer step
    vllm_utilization: float = 0.0
    vllm_sleep: bool = False


def train_plan(model: str, shape: ModelShape, s: TrainSetup, gpu: GPU) -> MemoryPlan:
    n, w = shape.params, s.processes
    plan = MemoryPlan("train", model, gpu, keys=["rl.micro_batch", "rl.gradient_checkpointing", "resources.train.gpu",
                                                 "resources.train.accelerate_config"])
    shard = w if s.sharding in ("zero3", "fsdp") else 1
    opt_shard = w if s.sharding in ("zero1", "zero2", "zero3", "fsdp") else 1
    grad_shard = w if s.sharding in ("zero2", "zero3", "fsdp") else 1
    mixed = s.p == 2
    plan.add("policy parameters", n * s.p / shard,
             f"{n / 1e9:.3g}B x {s.p} B" + (f" / {shard} GPUs" if shard > 1 else ""))
    opt = n * ((MASTER_BYTES if mixed else 0) + ADAM_BYTES)
    if s.offload_optimizer:
        plan.add("optimizer state (offloaded to CPU)", 0.0, "fp32 master + Adam moments in host memory")
    else:
        plan.add("optimizer state", opt / opt_shard,
                 ("fp32 master + " if mixed else "") + f"Adam's 2 fp32 moments: {opt / n:g} B/param"
                 + (f" / {opt_shard} GPUs" if opt_shard > 1 else ""))
    plan.add("gradients", n * 4 / grad_shard, "fp32 (accumulated over micro-batches)"
             + (f" / {grad_shard} GPUs" if grad_shard > 1 else ""))
    if s.sharding == "zero3":
        live = min(n, ZERO3_LIVE_PARAMS) * s.p
        plan.add("gathered parameters", live, "DeepSpeed stage3_max_live_parameters (1e9) x p", assumed=True)
    elif s.sharding == "fsdp":
        unit = max(shape.layer_params(), shape.vocab * shape.hidden)
        plan.add("gathered parameters", 2 * unit * s.p, "two FSDP units at once (current + prefetch), the largest "
                                                        "being the embedding or LM head")
    if s.frozen_copies:
        plan.add("reference / teacher copies", s.frozen_copies * n * s.p / shard,
                 f"{s.frozen_copies} x {n / 1e9:.3g}B x {s.p} B" + (f" / {shard} GPUs" if shard > 1 else "")
                 + " (prepared like TRL's ref_model)")
    saved, recompute = activation_bytes(shape, s.micro_batch, s.seq_len, s.p, s.checkpointing)
    plan.add("activations", saved, f"micro-batch {s.micro_batch} x {s.seq_len} tokens, "
                                   + ("gradient checkpointing: layer inputs" if s.checkpointing
                                      else "every layer's saved tensors"), phase="update")
    if recompute:
        plan.add("recomputed layer", recompute, "one layer's saved tensors, rebuilt in the backward", phase="update")
    plan.add("logits tile", LOGITS_TILE, "TRL's fused LM head: 4,096 tokens x 32,768 vocabulary in fp32",
             phase="update")
    if s.rollout == "vllm-colocate":
        share = s.vllm_utilization * gpu.mem_gb * GB
        if s.vllm_sleep:
            plan.add("vLLM engine (colocated)", share, f"rl.vllm.gpu_memory_utilization {s.vllm_utilization:g} of "
                                                       f"the GPU, during rollouts (sleep mode frees it)",
                     phase="rollout")
        else:
            plan.add("vLLM engine (colocated)", share, f"rl.vllm.gpu_memory_utilization {s.vllm_utilization:g} "
                                                       "of the GPU, held throughout")
        plan.keys.append("rl.vllm.gpu_memory_utilization")
    elif s.rollout == "hf":
        kv = s.rollout_sequences * s.seq_len * shape.kv_bytes_per_token(s.p)
        plan.add("KV cache (transformers generate)", kv, f"{s.rollout_sequences} sequences x {s.seq_len} tokens x "
                                                         f"{shape.kv_bytes_per_token(s.p) / 1e3:.3g} kB",
                 phase="rollout")
    plan.add("CUDA context and workspaces", CUDA_OVERHEAD, "3 GB", assumed=True)
    return plan


def vllm_plan(kind: str, model: str, shape: ModelShape, gpu: GPU, tp: int, utilization: float, max_model_len: int,
              p: int = 2, section: str = "sampling") -> MemoryPlan:
    """A vLLM engine: it takes `utilization` of the GPU; weights, CUDA graphs and at least one max_model_len
    sequence of KV cache must fit in that share (vLLM refuses to start otherwise). `section`: the config
    section of its options (sampling.vllm, or rl.vllm for the engine colocated with training)."""
    plan = MemoryPlan(kind, model, gpu, keys=[f"{section}.vllm.tensor_parallel_size",
                                              f"{section}.vllm.gpu_memory_utilization",
                                              f"{section}.vllm.max_model_len" if section == "rl" else
                                              "sampling.max_new_tokens"], limit=utilization * gpu.mem_gb * GB)
    weights = shape.params * p / tp
    plan.add("weights", weights, f"{shape.params / 1e9:.3g}B x {p} B / TP {tp}")
    plan.add("CUDA graphs and sampler", VLLM_GRAPH_OVERHEAD, "2 GB", assumed=True)
    kv_token = shape.kv_bytes_per_token(p) / tp
    need = max_model_len * kv_token
    budget = utilization * gpu.mem_gb * GB
    room = budget - weights - VLLM_GRAPH_OVERHEAD
    plan.add("KV cache", max(room, need), f"the rest of gpu_memory_utilization {utilization:g}; at least one "
                                          f"{max_model_len}-token sequence ({need / GB:.2f} GB)")
    plan.note = (f"KV cache holds {max(room, 0) / kv_token:,.0f} tokens: {max(room, 0) / need:.1f} sequences of "
                 f"{max_model_len} tokens at once")
    return plan


def kv_concurrency(plan: MemoryPlan, shape: ModelShape, tp: int, seq_tokens: int, p: int = 2) -> float:
    """Sequences of `seq_tokens` a vLLM plan's KV cache holds at once."""
    kv = next(t.bytes for t in plan.terms if t.name == "KV cache")
    return kv / (seq_tokens * shape.kv_bytes_per_token(p) / tp)


def hf_sample_plan(kind: str, model: str, shape: ModelShape, gpu: GPU, sequences: int, max_new: int, prompt: int,
                   p: int) -> MemoryPlan:
    """transformers generate (sampling/hf.py): weights, the KV cache of the batch, and the raw logits it keeps
    for every generated token (output_logits) to compute log-probs and entropies afterwards."""
    plan = MemoryPlan(kind, model, gpu, keys=["sampling.backend", "sampling.prompt_batch", "sampling.n"])
    plan.add("weights", shape.params * p, f"{shape.params / 1e9:.3g}B x {p} B")
    plan.add("KV cache", sequences * (prompt + max_new) * shape.kv_bytes_per_token(p),
             f"{sequences} sequences x {prompt + max_new} tokens")
    plan.add("kept logits", sequences * max_new * shape.vocab * 4, f"{sequences} x {max_new} tokens x "
                                                                  f"{shape.vocab:,} vocabulary x 4 B (fp32)")
    plan.add("CUDA context and workspaces", CUDA_OVERHEAD, "3 GB", assumed=True)
    return plan


def js_plan(model: str, shape: ModelShape, gpu: GPU, batch: int, positions: int, prompt: int, p: int) -> MemoryPlan:
    """Position-wise JS (probes/positional_js.py): the base and a checkpoint on one GPU, teacher-forced
    batches of `batch` x (prompt + positions) tokens, fp32 log-probs over the vocabulary at each position."""
    plan = MemoryPlan("analyse", model, gpu, keys=["analysis.divergence.batch", "analysis.divergence.max_positions"])
    plan.add("weights (2 models)", 2 * shape.params * p, f"2 x {shape.params / 1e9:.3g}B x {p} B")
    plan.add("log-probs (2 models)", 2 * batch * positions * shape.vocab * 4,
             f"2 x {batch} x {positions} positions x {shape.vocab:,} x 4 B")
    tokens = batch * (prompt + positions)
    plan.add("forward working set", tokens * layer_activation_bytes(shape, p, True, prompt + positions),
             "one layer's tensors of the batch (no-grad forward)")
    plan.add("CUDA context and workspaces", CUDA_OVERHEAD, "3 GB", assumed=True)
    return plan


def context_problem(shape: ModelShape, prompt_tokens: int, new_tokens: int, positions: int | None = None) -> str | None:
    """Why prompt + new tokens do not fit the model's positions (None when they do)."""
    limit = positions or shape.max_positions
    if prompt_tokens + new_tokens > limit:
        return (f"{prompt_tokens} prompt + {new_tokens} new tokens = {prompt_tokens + new_tokens} exceed the model's "
                f"{limit} positions ({shape.source or 'its config'}: max_position_embeddings)")
    return None


def format_plan(plan: MemoryPlan) -> str:
    """A plan as Markdown rows: term, GB, phase, how (assumed marked)."""
    lines = [f"| {t.name} | {t.bytes / GB:.2f} | {t.phase} | {t.how}{' (assumed)' if t.assumed else ''} |"
             for t in plan.terms]
    return "\n".join(lines)
