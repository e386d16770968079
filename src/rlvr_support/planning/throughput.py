"""Time per GRPO step and sampling throughput from the model's shape, the GPU and the config: a model with
stated terms instead of one assumed tokens/s.

GRPO step (every GPU works in parallel; the phases run one after the other):
* rollout: decoding is memory-bound: each decode step reads the weights once and the KV cache of every
  running sequence, at the GPU's bandwidth x `decode_efficiency`; a step's batch runs until its longest
  completion ends (`max_completion_tokens` decode steps: a group of 64 rollouts almost always has one
  truncated response), while the KV read shrinks as sequences finish. Where the engine's KV cache holds
  fewer sequences than the batch, they run in waves. transformers `generate` under ZeRO-3 gathers every
  weight from the other GPUs at each decode step (NVLink x `link_efficiency`) and pays a kernel-launch
  overhead per layer and step.
* update: 6N FLOPs per token for forward + backward, 2N more with gradient checkpointing (recompute), 2N
  per no-grad log-prob pass (the old policy with vLLM rollouts, TRL's reference when beta > 0, each
  reference / teacher copy of the remedies), plus attention (2 x layers x q_width x seq_len per token and
  forward, in the same proportion);
  over padded tokens (TRL pads every completion to the longest of the batch), at `mfu` of the GPU's peak.
* weight sync (vLLM rollouts): the full bf16 weights gathered and loaded into the engine after each step.
Sampling (vLLM): continuous batching keeps `concurrency` sequences running (what the KV cache holds, at
most max_num_seqs); tokens per decode step over the time to read the weights and their KV cache.
Every utilisation is ASSUMED until a pilot (cli/pilot.py) measures it: `efficiencies_from_pilot`.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from rlvr_support.planning.gpus import GPU
from rlvr_support.planning.shapes import ModelShape

VLLM_MAX_NUM_SEQS = 256  # vLLM's default max_num_seqs (GPU)


@dataclass
class Efficiencies:
    decode_efficiency: float = 0.6  # share of HBM bandwidth a decode step achieves (assumed)
    mfu: float = 0.4  # model FLOPs utilisation of the update (assumed)
    link_efficiency: float = 0.7  # share of NVLink bandwidth a gather achieves (assumed)
    launch_s_per_layer: float = 1e-4  # transformers generate: kernel launches per layer and decode step (assumed)
    measured: set = field(default_factory=set)  # names replaced by a pilot's measurement

    def status(self, name: str) -> str:
        return "measured" if name in self.measured else "assumed"


@dataclass
class GRPOSetup:
    processes: int
    sequences: int  # rollouts per GPU per optimizer step (prompts_per_step x group_size)
    group_size: int
    prompt_tokens: int
    max_completion: int
    mean_completion: float
    rollout: str  # vllm-colocate | vllm-server | hf
    kv_sequences: float  # sequences the rollout engine's KV cache holds at once (inf: no limit)
    checkpointing: bool
    nograd_passes: int  # no-grad log-prob forwards per step (old policy, references, teachers)
    sharded: bool  # ZeRO-3 / FSDP: generate gathers weights


@dataclass
class StepTime:
    rollout_s: float
    update_s: float
    sync_s: float
    terms: dict[str, str]  # term -> how it was counted (and whether assumed or measured)

    @property
    def total_s(self) -> float:
        return self.rollout_s + self.update_s + self.sync_s


def decode_seconds(shape: ModelShape, gpu: GPU, eff: Efficiencies, sequences: float, prompt: int, max_new: int,
                   mean_new: float, tp: int = 1) -> float:
    """One batch decoded until its longest sequence ends: weight reads every step plus each sequence's KV reads
    (context prompt + t at its step t, while it runs), against FLOPs 2N per token; whichever bound is slower."""
    kvb = shape.kv_bytes_per_token(2) / tp
    weight_bytes = max_new * shape.params * 2 / tp
    kv_bytes = sequences * (prompt * mean_new + mean_new ** 2 / 2) * kvb
    memory_s = (weight_bytes + kv_bytes) / (gpu.hbm_tb_s * 1e12 * eff.decode_efficiency)
    compute_s = 2 * shape.params / tp * sequences * mean_new / (gpu.bf16_tflops * 1e12 * eff.mfu)
    return max(memory_s, compute_s)


def decode_step_seconds(shape: ModelShape, gpu: GPU, eff: Efficiencies, sequences: float, context: float,
                        tp: int = 1) -> float:
    """One decode step of `sequences` running sequences with `context` tokens of KV cache each: the weights and
    their KV read once at the GPU's bandwidth x decode_efficiency, against 2N FLOPs per sequence at mfu;
    whichever bound is slower (the GPU check's decode ceiling times exactly this step)."""
    step_bytes = shape.params * 2 / tp + sequences * context * shape.kv_bytes_per_token(2) / tp
    memory_s = step_bytes / (gpu.hbm_tb_s * 1e12 * eff.decode_efficiency)
    compute_s = 2 * shape.params / tp * sequences / (gpu.bf16_tflops * 1e12 * eff.mfu)
    return max(memory_s, compute_s)


def update_flops_per_token(shape: ModelShape, seq_len: int, checkpointing: bool, nograd_passes: int = 0) -> float:
    """FLOPs per (padded) token of a GRPO update: 6N forward + backward, 2N more with gradient checkpointing (the
    recompute), 2N per no-grad log-prob pass, plus attention: QK^T and AV over the causal half of the context,
    2 x q_width x seq_len per layer and forward, in the same proportion."""
    passes = 6 + (2 if checkpointing else 0) + 2 * nograd_passes  # in units of N FLOPs per token
    return passes * shape.params + passes * shape.layers * shape.q_width * seq_len


def grpo_step(shape: ModelShape, gpu: GPU, s: GRPOSetup, eff: Efficiencies) -> StepTime:
    n = shape.params
    terms = {}
    waves = max(1.0, s.sequences / max(s.kv_sequences, 1e-9))
    per_wave = s.sequences / waves
    rollout = waves * decode_seconds(shape, gpu, eff, per_wave, s.prompt_tokens, s.max_completion, s.mean_completion)
    terms["rollout"] = (f"{s.max_completion} decode steps x (weights {2 * n / 1e9:.3g} GB + KV of {per_wave:.0f} "
                        f"sequences) at {gpu.hbm_tb_s:g} TB/s x decode_efficiency {eff.decode_efficiency:.2f} "
                        f"({eff.status('decode_efficiency')})" + (f", {waves:.1f} waves (KV cache)" if waves > 1 else ""))
    # prefill: each prompt once per group (prefix caching in vLLM; TRL's generate repeats it per rollout)
    prefills = s.sequences / (s.group_size if s.rollout.startswith("vllm") else 1)
    rollout += 2 * n * prefills * s.prompt_tokens / (gpu.bf16_tflops * 1e12 * eff.mfu)
    if s.rollout == "hf":
        link = gpu.link_gb_s * 1e9 * eff.link_efficiency
        gather = (2 * n * (s.processes - 1) / s.processes / link) if s.sharded and s.processes > 1 else 0.0
        launch = shape.layers * eff.launch_s_per_layer
        rollout += s.max_completion * (gather + launch)
        terms["rollout"] += (f"; transformers generate: + per step {gather * 1e3:.1f} ms weight gather (ZeRO-3) "
                             f"and {launch * 1e3:.1f} ms kernel launches ({eff.status('launch_s_per_layer')})")
    seq_len = s.prompt_tokens + s.max_completion  # padded width of every micro-batch
    tokens = s.sequences * seq_len
    update = tokens * update_flops_per_token(shape, seq_len, s.checkpointing, s.nograd_passes) / (
        gpu.bf16_tflops * 1e12 * eff.mfu)
    terms["update"] = (f"{tokens:,} padded tokens x ({6 + (2 if s.checkpointing else 0)} + 2 x {s.nograd_passes} "
                       f"no-grad passes) N FLOPs + attention, at {gpu.bf16_tflops:g} TFLOPS x mfu {eff.mfu:.2f} "
                       f"({eff.status('mfu')})")
    sync = 0.0
    if s.rollout.startswith("vllm"):
        link = gpu.link_gb_s * 1e9 * eff.link_efficiency
        sync = 2 * n / link + 2 * n / (gpu.hbm_tb_s * 1e12 * eff.decode_efficiency)
        terms["sync"] = (f"{2 * n / 1e9:.3g} GB of bf16 weights gathered over NVLink ({gpu.link_gb_s:g} GB/s x "
                         f"{eff.link_efficiency:.2f}, {eff.status('link_efficiency')}) and loaded into vLLM")
    return StepTime(rollout, update, sync, terms)


def sample_tokens_per_s(shape: ModelShape, gpu: GPU, eff: Efficiencies, concurrency: float, prompt: int,
                        mean_new: float, tp: int = 1) -> float:
    """vLLM's decode throughput per GPU with `concurrency` sequences running (continuous batching)."""
    c = max(1.0, min(concurrency, VLLM_MAX_NUM_SEQS))
    return c / decode_step_seconds(shape, gpu, eff, c, prompt + mean_new / 2, tp) / tp


def forward_tokens_per_s(shape: ModelShape, gpu: GPU, eff: Efficiencies) -> float:
    """Teacher-forced forward passes: 2N FLOPs per token at `mfu`."""
    return gpu.bf16_tflops * 1e12 * eff.mfu / (2 * shape.params)


def efficiencies_from_pilot(pilot: dict, shape: ModelShape, gpu: GPU, base: Efficiencies | None = None) -> Efficiencies:
    """The utilisations a pilot's measured phase times imply for its own setup (the same model and GPU kind),
    to be used for the study's setup: decode efficiency from its rollout, MFU from its update, link
    efficiency from its weight sync."""
    base = base or Efficiencies()
    g = pilot["grpo"]
    setup = GRPOSetup(**{**g["setup"], "kv_sequences": g["setup"].get("kv_sequences") or float("inf")})
    eff = Efficiencies(base.decode_efficiency, base.mfu, base.link_efficiency, base.launch_s_per_layer, set())
    ref = grpo_step(shape, gpu, setup, Efficiencies(1.0, 1.0, 1.0, 0.0))
    phases = g["phase_seconds"]
    if phases.get("rollout"):
        eff.decode_efficiency = min(1.0, ref.rollout_s / phases["rollout"])
        eff.measured.add("decode_efficiency")
    if phases.get("update"):
        eff.mfu = min(1.0, ref.update_s / phases["update"])
        eff.measured.add("mfu")
    if phases.get("sync") and ref.sync_s:
        eff.link_efficiency = min(1.0, ref.sync_s / phases["sync"])
        eff.measured.add("link_efficiency")
    return eff


def efficiencies_from_check(check: dict, base: Efficiencies | None = None) -> Efficiencies:
    """The utilisations a GPU check (planning/plan_check.py) measured on a GPU kind the planner knows: the MFU of
    the update at the study's micro-batch with the padding mask replaces the assumed one (one GPU without ZeRO-3
    gathers: an upper bound for a sharded run); the decode ceiling at the rollout batch bounds decode_efficiency
    from above (the lower of the two is kept). A check on a CPU measures no GPU's: the assumptions stay."""
    from rlvr_support.planning.gpus import GPUS

    base = base or Efficiencies()
    eff = Efficiencies(base.decode_efficiency, base.mfu, base.link_efficiency, base.launch_s_per_layer, set())
    measured = check.get("efficiencies") or {}
    if check.get("gpu_type") not in GPUS:
        return eff
    if measured.get("mfu"):
        eff.mfu = min(1.0, measured["mfu"]["value"])
        eff.measured.add("mfu")
    ceiling = (measured.get("decode_efficiency") or {}).get("value")
    if ceiling is not None and ceiling < eff.decode_efficiency:
        eff.decode_efficiency = ceiling
        eff.measured.add("decode_efficiency")
    return eff
