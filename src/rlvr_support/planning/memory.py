"""Peak memory per GPU of a study's GPU jobs, from the model's shape and the config, before any job runs.

Each plan is a list of terms (what, bytes, how it is counted). A term is `resident` (held for the whole
job), or belongs to one phase of it (`update`: forward/backward of a micro-batch; `rollout`: generation);
the peak is the resident terms plus the larger phase. Within a phase, terms of one `moment` (a stretch of the
backward: the LM head's, a recomputed layer's, the embedding's) exist together and the phase holds its
largest moment on top of the terms held throughout it. The activation terms are the bytes autograd saves in
a forward of transformers' Llama / Qwen2 / Qwen3 decoder (with TRL's fused LM head, SDPA attention and the
padding mask every GRPO batch has), counted tensor by tensor; tests/test_memory_plan.py checks them
against `torch.autograd.graph.saved_tensors_hooks` on CPU, and the backward's transient gradients against
the storages a CPU step makes. Optimizer and sharding terms follow ZeRO (Rajbhandari et al. 2020) and FSDP;
the terms marked assumed are stated as such in the report. Every plan divides the memory the device reports
(planning/gpus.py GPU.total_gb: 84.9 GB on an H100 "80GB"), which is also what vLLM's gpu_memory_utilization
multiplies.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from rlvr_support.planning.gpus import GPU
from rlvr_support.planning.shapes import ModelShape

GB = 1e9
CUDA_OVERHEAD = 3.0 * GB  # CUDA context, cuBLAS/NCCL workspaces (assumed)
# TRL's fused LM head projects [4096 tokens x 32768 vocabulary] tiles into one buffer in the compute dtype
# (trl 1.16: kernels/chunked_logprob.py TOKEN_CHUNK_SIZE, trainer/utils.py _CHUNKED_LOGPROB_CHUNK_SIZE; the
# buffer is that wide whatever the vocabulary)
TOKEN_TILE, VOCAB_TILE = 4096, 32768
LOGITS_TILE = TOKEN_TILE * VOCAB_TILE * 2  # the tile in bf16, the compute dtype of every GPU run
ZERO3_LIVE_PARAMS = 1e9  # DeepSpeed stage3_max_live_parameters (its default): gathered at once, at most
ADAM_BYTES = 8  # two fp32 moments per parameter
MASTER_BYTES = 4  # fp32 master weights (mixed precision)
VLLM_GRAPH_OVERHEAD = 2.0 * GB  # vLLM's CUDA graphs and sampler workspace beside weights and KV cache (assumed)
# what a colocated vLLM engine keeps while asleep at level 2 (TRL 1.16 sleeps it so after each rollout): its
# weights and KV cache are unmapped, its CUDA-graph pool and NCCL communicators' buffers are not (vLLM PRs #45623
# and #51485: graphs ~1.5 GB captured, NCCL ~1 GiB per rank at TP 4); assumed 1-2 GB, 1.5 GB counted
VLLM_SLEEP_LEFTOVER = 1.5 * GB
# PyTorch's caching allocator holds more than it hands out (block rounding, fragmentation): 0.6-8 % "reserved by
# PyTorch but unallocated" in out-of-memory messages of H100/H200 training runs (e.g. 3.49 GiB beside 68.16 GiB,
# 5.93 beside 71.69); assumed 5 % of what the training process allocates at its peak (the GPU check measures it:
# reserved - allocated at the update's peak)
ALLOCATOR_HEADROOM = 0.05


@dataclass
class Term:
    name: str
    bytes: float
    how: str
    phase: str = "resident"  # resident | update | rollout
    assumed: bool = False
    moment: str = ""  # a stretch of the phase whose terms exist together ("": held through the whole phase)


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
        """A phase's bytes: its terms held throughout, plus its largest moment."""
        moments: dict[str, float] = {}
        for t in self.terms:
            if t.phase == name and t.moment:
                moments[t.moment] = moments.get(t.moment, 0.0) + t.bytes
        return sum(t.bytes for t in self.terms if t.phase == name and not t.moment) + max(moments.values(), default=0.0)

    @property
    def peak(self) -> float:
        return self.phase("resident") + max(self.phase("update"), self.phase("rollout"))

    @property
    def capacity(self) -> float:
        """The memory the device reports (GPU.total_gb), or the job's share of it (a vLLM engine)."""
        return self.gpu.total_gb * GB if self.limit is None else self.limit

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


# ---- the backward's transient gradients: what exists at once at a moment of the update


def lm_head_backward_terms(shape: ModelShape, scored_tokens: int, p: int, weight_bytes: int) -> list[Term]:
    """What TRL's fused LM head holds at once at the end of its backward (trl 1.16, kernels/chunked_logprob.py
    ChunkedLogProbFunction.backward): the logits tile, min(N, 4,096) x 32,768 in the compute dtype (p); the
    weight gradient accumulated in fp32 (vocab x h x 4) and its cast to the weight's dtype (vocab x h x
    weight_bytes, none when the weights are fp32); the hidden states' gradient in fp32 and its cast (N x h x
    (4 + p)). N is the scored tokens: TRL projects only positions whose label is not -100 (the completion's)."""
    vh, n = shape.vocab * shape.hidden, scored_tokens
    terms = [Term("logits tile", min(n, TOKEN_TILE) * VOCAB_TILE * p,
                  f"TRL's fused LM head: {min(n, TOKEN_TILE):,} tokens x {VOCAB_TILE:,} vocabulary x {p} B "
                  "(the compute dtype)"),
             Term("LM-head weight gradient (fp32)", vh * 4, f"{shape.vocab:,} x {shape.hidden:,} x 4 B, accumulated "
                                                            "in fp32 over the tiles (trl 1.16 chunked_logprob)")]
    if weight_bytes != 4:
        terms.append(Term("LM-head weight gradient, cast", vh * weight_bytes,
                          f"{shape.vocab:,} x {shape.hidden:,} x {weight_bytes} B: the fp32 gradient cast to the "
                          "weight's dtype before it leaves the kernel"))
    terms.append(Term("LM-head input gradient", n * shape.hidden * (4 + p),
                      f"{n:,} scored tokens x {shape.hidden:,} x (4 B fp32 accumulator + {p} B cast)"))
    return terms


def layer_backward_bytes(shape: ModelShape, tokens: int, p: int, weight_bytes: int,
                         whole_layer: bool = False) -> tuple[float, float]:
    """(weight gradients, activation gradients) one decoder layer's backward holds at once, beyond the tensors its
    forward saved.

    Weight gradients: DeepSpeed copies each gradient into its reduce bucket (ZeRO) and one process accumulates it
    into `.grad` as soon as it is made, so one weight's gradient at a time, the largest (h x i, an MLP
    projection); FSDP reduce-scatters a unit (a layer) once all its gradients exist (`whole_layer`:
    layer_params); in the weights' dtype. Activation gradients: the SwiGLU MLP's backward, first in the
    layer's, holds the most: through y = down(silu(g) * u), the gradient of the product (i per token) and then,
    at once, those of silu(g) and u (2i, the product's freed only after both), beside the gradient coming into
    the layer (h); (2i + h) x p per token. Checked against the storages a CPU step makes
    (tests/test_memory_plan.py)."""
    weights = shape.layer_params() if whole_layer else shape.hidden * shape.intermediate
    return weights * weight_bytes, tokens * p * (2 * shape.intermediate + shape.hidden)


def update_terms(shape: ModelShape, sequences: int, seq_len: int, scored_tokens: int, p: int, weight_bytes: int,
                 checkpointing: bool, padded: bool = True, whole_layer_grads: bool = False) -> list[Term]:
    """The update phase of one micro-batch: what the forward saves, held through the backward, and the backward's
    moments (the LM head's, a recomputed layer's, the embedding's), each existing on its own on top of it."""
    saved, recompute = activation_bytes(shape, sequences, seq_len, p, checkpointing, padded)
    tokens = sequences * seq_len
    terms = [Term("activations", saved, f"micro-batch {sequences} x {seq_len} tokens, "
                                        + ("gradient checkpointing: layer inputs" if checkpointing
                                           else "every layer's saved tensors"), phase="update")]
    for t in lm_head_backward_terms(shape, scored_tokens, p, weight_bytes):
        terms.append(Term(t.name, t.bytes, t.how, phase="update", moment="LM head backward"))
    if recompute:
        terms.append(Term("recomputed layer", recompute, "one layer's saved tensors, rebuilt in the backward",
                          phase="update", moment="layer backward"))
    grads, act_grads = layer_backward_bytes(shape, tokens, p, weight_bytes, whole_layer_grads)
    terms.append(Term("layer's weight gradients", grads,
                      (f"the layer's {shape.layer_params() / 1e6:.3g}M parameters" if whole_layer_grads else
                       f"its largest weight, {shape.hidden:,} x {shape.intermediate:,}") + f" x {weight_bytes} B",
                      phase="update", moment="layer backward"))
    terms.append(Term("layer's activation gradients", act_grads, f"{tokens:,} tokens x (2 x {shape.intermediate:,} "
                                                                 f"+ {shape.hidden:,}) x {p} B (the MLP's backward)",
                      phase="update", moment="layer backward"))
    terms.append(Term("embedding gradient", shape.vocab * shape.hidden * weight_bytes,
                      f"dense ({shape.vocab:,} x {shape.hidden:,} x {weight_bytes} B: nn.Embedding's backward is not "
                      "sparse)", phase="update", moment="embedding backward"))
    return terms


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
    # bytes of a stored policy parameter: 2 under DeepSpeed bf16 (its engine casts the module, fp32 master weights
    # live in the optimizer), else 4 (FSDP and one process keep the policy in fp32, autocast computes in bf16);
    # None: p
    weight_bytes: int | None = None
    completion: int | None = None  # scored (completion) tokens per sequence; None: seq_len


def vllm_share(gpu: GPU, utilization: float) -> float:
    """Bytes a vLLM engine takes: gpu_memory_utilization x the total the device reports (vLLM's
    `requested_memory = total_memory * gpu_memory_utilization`, total from torch.cuda.mem_get_info)."""
    return utilization * gpu.total_gb * GB


def train_plan(model: str, shape: ModelShape, s: TrainSetup, gpu: GPU) -> MemoryPlan:
    n, w = shape.params, s.processes
    wb = s.weight_bytes or s.p
    plan = MemoryPlan("train", model, gpu, keys=["rl.micro_batch", "rl.gradient_checkpointing", "resources.train.gpu",
                                                 "resources.train.accelerate_config"])
    shard = w if s.sharding in ("zero3", "fsdp") else 1
    opt_shard = w if s.sharding in ("zero1", "zero2", "zero3", "fsdp") else 1
    grad_shard = w if s.sharding in ("zero2", "zero3", "fsdp") else 1
    mixed = wb == 2  # 16-bit weights: the optimizer keeps fp32 master weights
    plan.add("policy parameters", n * wb / shard,
             f"{n / 1e9:.3g}B x {wb} B" + (" (fp32: FSDP / one process keep the policy in fp32)"
                                           if wb == 4 and s.p == 2 else "")
             + (f" / {shard} GPUs" if shard > 1 else ""))
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
        live = min(n, ZERO3_LIVE_PARAMS) * wb
        plan.add("gathered parameters", live, f"DeepSpeed stage3_max_live_parameters (1e9) x {wb} B", assumed=True)
    elif s.sharding == "fsdp":
        unit = max(shape.layer_params(), shape.vocab * shape.hidden)
        plan.add("gathered parameters", 2 * unit * s.p, "two FSDP units at once (current + prefetch), the largest "
                                                        "being the embedding or LM head, gathered in the compute dtype")
    if s.frozen_copies:
        plan.add("reference / teacher copies", s.frozen_copies * n * s.p / shard,
                 f"{s.frozen_copies} x {n / 1e9:.3g}B x {s.p} B" + (f" / {shard} GPUs" if shard > 1 else "")
                 + " (prepared like TRL's ref_model)")
    scored = s.micro_batch * (s.completion or s.seq_len)
    plan.terms += update_terms(shape, s.micro_batch, s.seq_len, scored, s.p, wb, s.checkpointing,
                               whole_layer_grads=s.sharding == "fsdp")
    allocated = plan.phase("resident") + plan.phase("update")
    plan.add("allocator headroom", ALLOCATOR_HEADROOM * allocated,
             f"{ALLOCATOR_HEADROOM:.0%} of the {allocated / GB:.1f} GB the training allocates at its peak: PyTorch's "
             "caching allocator reserves more than it hands out", phase="update", assumed=True)
    if s.rollout == "vllm-colocate":
        share = vllm_share(gpu, s.vllm_utilization)
        of = f"rl.vllm.gpu_memory_utilization {s.vllm_utilization:g} x the {gpu.total_gb:.1f} GB the device reports"
        if s.vllm_sleep:
            plan.add("vLLM engine (colocated)", share, f"{of}, during rollouts (sleep mode frees most of it)",
                     phase="rollout")
            plan.add("vLLM engine asleep", VLLM_SLEEP_LEFTOVER,
                     "level-2 sleep unmaps weights and KV cache; its CUDA-graph pool and NCCL buffers stay "
                     "(vLLM PRs #45623, #51485: 1-2 GB)", phase="update", assumed=True)
        else:
            plan.add("vLLM engine (colocated)", share, f"{of}, held throughout")
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
    """A vLLM engine: it takes `utilization` of the memory the device reports; weights, CUDA graphs and at least one max_model_len
    sequence of KV cache must fit in that share (vLLM refuses to start otherwise). `section`: the config
    section of its options (sampling.vllm, or rl.vllm for the engine colocated with training)."""
    plan = MemoryPlan(kind, model, gpu, keys=[f"{section}.vllm.tensor_parallel_size",
                                              f"{section}.vllm.gpu_memory_utilization",
                                              f"{section}.vllm.max_model_len" if section == "rl" else
                                              "sampling.max_new_tokens"], limit=vllm_share(gpu, utilization))
    weights = shape.params * p / tp
    plan.add("weights", weights, f"{shape.params / 1e9:.3g}B x {p} B / TP {tp}")
    plan.add("CUDA graphs and sampler", VLLM_GRAPH_OVERHEAD, "2 GB", assumed=True)
    kv_token = shape.kv_bytes_per_token(p) / tp
    need = max_model_len * kv_token
    budget = vllm_share(gpu, utilization)
    room = budget - weights - VLLM_GRAPH_OVERHEAD
    plan.add("KV cache", max(room, need), f"the rest of gpu_memory_utilization {utilization:g} x "
                                          f"{gpu.total_gb:.1f} GB; at least one "
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
    """A plan as Markdown rows: term, GB, phase (and the moment of it a term belongs to), how (assumed marked)."""
    lines = [f"| {t.name} | {t.bytes / GB:.2f} | {t.phase}{': ' + t.moment if t.moment else ''} | "
             f"{t.how}{' (assumed)' if t.assumed else ''} |" for t in plan.terms]
    return "\n".join(lines)
