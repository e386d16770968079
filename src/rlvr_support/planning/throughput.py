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
* weight sync (vLLM rollouts): TRL 1.16 gathers the policy's tensors one at a time under ZeRO-3 and calls
  vLLM's `load_weights` once per tensor (trl/generation/vllm_generation.py `sync_weights`): the bf16 bytes over
  NVLink and into the engine, plus a fixed time per tensor; with sleep mode the engine wakes (weights, then KV
  cache) and sleeps (level 2) once per step.
Sampling (vLLM): continuous batching keeps `concurrency` sequences running (what the KV cache holds, at
most max_num_seqs); tokens per decode step over the time to read the weights and their KV cache.

Every utilisation and overhead is a stated range (ASSUMED): its value in the budget's low, expected and high
GPU-hours case, with its source; the rollout's KV cache holds the mean completion in the low and expected
cases and the full `max_completion_tokens` in the high one (a run whose completions do not stop at EOS, as
the pilot's, which ignores it: 58 s instead of 41 s of rollout per step at Qwen3-8B). A pilot (cli/pilot.py:
`efficiencies_from_pilot`) or the GPU check (`efficiencies_from_check`) replaces what it measured, and a
measured figure's range collapses to the measurement.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from rlvr_support.planning.gpus import GPU
from rlvr_support.planning.shapes import ModelShape

VLLM_MAX_NUM_SEQS = 256  # vLLM's default max_num_seqs (GPU)
CASES = ("low", "expected", "high")  # the budget's GPU-hours: every figure at its favourable end, expected, unfavourable


@dataclass(frozen=True)
class Assumed:
    """A figure's value in the budget's low, expected and high GPU-hours case (so a utilisation's `low` is its
    largest value), and where the range comes from."""
    low: float
    expected: float
    high: float
    source: str

    def span(self) -> str:
        lo, hi = sorted((self.low, self.high))
        return f"{lo:.3g}-{hi:.3g}"


ASSUMED = {
    "decode_efficiency": Assumed(
        0.7, 0.6, 0.5, "share of HBM bandwidth a decode step reaches; the GPU check's decode ceiling bounds it"),
    "mfu": Assumed(
        0.40, 0.30, 0.25, "model FLOPs utilisation of the update: 0.25-0.35 is usual for padded batches under ZeRO-3 "
                          "gathers with SDPA's memory-efficient kernel (padding masks), 0.40 the top"),
    "sync_s_per_tensor": Assumed(
        0.001, 0.003, 0.010, "seconds per tensor of the weight sync: one ZeRO-3 gather (a collective's latency) and "
                             "one vLLM load_weights call per tensor (TRL 1.16 sync_weights)"),
    "wake_sleep_s": Assumed(
        0.3, 0.6, 2.0, "seconds per step to wake the colocated vLLM engine (weights, KV cache) and put it to sleep "
                       "(level 2): 0.08 s sleep + 0.47 s wake for Qwen3-32B at TP 1 on an H20 (vLLM PR #45648)"),
    "full_length_kv": Assumed(
        0.0, 0.0, 1.0, "how far the rollout's KV cache goes from the mean completion (0) to max_completion_tokens "
                       "(1): completions that stop at EOS free theirs; ones that run to the limit (EOS ignored, "
                       "as in the pilot) hold the full length"),
}
RANGED = tuple(ASSUMED)


@dataclass
class Efficiencies:
    decode_efficiency: float = ASSUMED["decode_efficiency"].expected  # share of HBM bandwidth a decode step achieves
    mfu: float = ASSUMED["mfu"].expected  # model FLOPs utilisation of the update
    link_efficiency: float = 0.7  # share of NVLink bandwidth a gather achieves (assumed)
    launch_s_per_layer: float = 1e-4  # transformers generate: kernel launches per layer and decode step (assumed)
    measured: set = field(default_factory=set)  # names replaced by a pilot's measurement
    sync_s_per_tensor: float = ASSUMED["sync_s_per_tensor"].expected
    wake_sleep_s: float = ASSUMED["wake_sleep_s"].expected
    full_length_kv: float = ASSUMED["full_length_kv"].expected
    ceilings: dict = field(default_factory=dict)  # {name: a measured upper bound} (the GPU check's decode ceiling)

    def status(self, name: str) -> str:
        return "measured" if name in self.measured else "assumed"

    def in_case(self, case: str) -> "Efficiencies":
        """These figures in the budget's `case` (CASES): each assumed figure at that end of its range (below any
        measured ceiling), each measured one as measured."""
        values = {name: getattr(self, name) if name in self.measured else getattr(ASSUMED[name], case)
                  for name in RANGED}
        values = {name: min(v, self.ceilings[name]) if name in self.ceilings else v for name, v in values.items()}
        return replace(self, **values, measured=set(self.measured), ceilings=dict(self.ceilings))

    def describe(self, name: str) -> str:
        """`name measured 0.5`, or `name assumed 0.5-0.7` (its range)."""
        if name in self.measured:
            return f"{name} measured {getattr(self, name):.3g}"
        lo, hi = sorted(getattr(self.in_case(c), name) for c in ("low", "high"))
        return f"{name} assumed {lo:.3g}-{hi:.3g}"


IDEAL = Efficiencies(1.0, 1.0, 1.0, 0.0, sync_s_per_tensor=0.0, wake_sleep_s=0.0, full_length_kv=0.0)


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
    vllm_sleep: bool = False  # the colocated engine sleeps between rollouts (woken and put to sleep every step)


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


def kv_completion(s: GRPOSetup, eff: Efficiencies) -> float:
    """The completion length the rollout's KV cache holds per sequence: the mean, or towards the full length by
    eff.full_length_kv (the range's high case: completions that run to max_completion_tokens)."""
    return s.mean_completion + eff.full_length_kv * (s.max_completion - s.mean_completion)


def grpo_step(shape: ModelShape, gpu: GPU, s: GRPOSetup, eff: Efficiencies) -> StepTime:
    """A GRPO step's phases; s.kv_sequences is what the engine holds at kv_completion(s, eff) tokens each."""
    n = shape.params
    terms = {}
    waves = max(1.0, s.sequences / max(s.kv_sequences, 1e-9))
    per_wave = s.sequences / waves
    kv_new = kv_completion(s, eff)
    rollout = waves * decode_seconds(shape, gpu, eff, per_wave, s.prompt_tokens, s.max_completion, kv_new)
    terms["rollout"] = (f"{s.max_completion} decode steps x (weights {2 * n / 1e9:.3g} GB + KV of {per_wave:.0f} "
                        f"sequences of {s.prompt_tokens} + {kv_new:.0f} tokens ({eff.status('full_length_kv')})) at "
                        f"{gpu.hbm_tb_s:g} TB/s x decode_efficiency {eff.decode_efficiency:.2f} "
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
        tensors = shape.tensors()
        sync = 2 * n / link + 2 * n / (gpu.hbm_tb_s * 1e12 * eff.decode_efficiency) + tensors * eff.sync_s_per_tensor
        terms["sync"] = (f"{2 * n / 1e9:.3g} GB of bf16 weights gathered over NVLink ({gpu.link_gb_s:g} GB/s x "
                         f"{eff.link_efficiency:.2f}, {eff.status('link_efficiency')}) and loaded into vLLM, "
                         f"{tensors} tensors one at a time x {eff.sync_s_per_tensor * 1e3:.3g} ms "
                         f"({eff.status('sync_s_per_tensor')})")
        if s.vllm_sleep and s.rollout == "vllm-colocate":
            sync += eff.wake_sleep_s
            terms["sync"] += f"; the engine woken and put to sleep, {eff.wake_sleep_s:.3g} s ({eff.status('wake_sleep_s')})"
    return StepTime(rollout, update, sync, terms)


def sample_tokens_per_s(shape: ModelShape, gpu: GPU, eff: Efficiencies, concurrency: float, prompt: int,
                        mean_new: float, tp: int = 1) -> float:
    """vLLM's decode throughput per GPU with `concurrency` sequences running (continuous batching)."""
    c = max(1.0, min(concurrency, VLLM_MAX_NUM_SEQS))
    return c / decode_step_seconds(shape, gpu, eff, c, prompt + mean_new / 2, tp) / tp


def forward_tokens_per_s(shape: ModelShape, gpu: GPU, eff: Efficiencies) -> float:
    """Teacher-forced forward passes: 2N FLOPs per token at `mfu`."""
    return gpu.bf16_tflops * 1e12 * eff.mfu / (2 * shape.params)


def efficiencies_from_pilot(pilot: dict, shape: ModelShape, gpu: GPU, base: Efficiencies | None = None,
                            study_rollout: str | None = None) -> Efficiencies:
    """The utilisations a pilot's measured phase times imply for its own setup (the same model and GPU kind),
    to be used for the study's setup: MFU from its update; decode efficiency from its rollout, when it rolled
    out as the study does (transformers generate's efficiency says nothing of vLLM's, and the reverse:
    `study_rollout`); the sync's time per tensor from its weight sync (the bytes' time at the ideal link taken
    off). Each sets its figure's whole range (measured)."""
    base = base or Efficiencies()
    g = pilot["grpo"]
    setup = GRPOSetup(**{**g["setup"], "kv_sequences": g["setup"].get("kv_sequences") or float("inf")})
    eff = replace(base, measured=set(), ceilings={})
    ref = grpo_step(shape, gpu, setup, IDEAL)
    phases = g["phase_seconds"]
    same_engine = study_rollout is None or study_rollout.startswith("vllm") == setup.rollout.startswith("vllm")
    if phases.get("rollout") and same_engine:
        eff.decode_efficiency = min(1.0, ref.rollout_s / phases["rollout"])
        eff.measured.add("decode_efficiency")
    if phases.get("update"):
        eff.mfu = min(1.0, ref.update_s / phases["update"])
        eff.measured.add("mfu")
    if phases.get("sync") and ref.sync_s:
        eff.sync_s_per_tensor = max(0.0, phases["sync"] - ref.sync_s) / shape.tensors()
        eff.measured.add("sync_s_per_tensor")
    return eff


def efficiencies_from_check(check: dict, base: Efficiencies | None = None) -> Efficiencies:
    """The utilisations a GPU check (planning/plan_check.py) measured on a GPU kind the planner knows: the MFU of
    the update at the study's micro-batch with the padding mask replaces the assumed one (one GPU without ZeRO-3
    gathers: an upper bound for a sharded run); the decode ceiling at the rollout batch bounds decode_efficiency
    from above (the lower of the two is kept). A check on a CPU measures no GPU's: the assumptions stay."""
    from rlvr_support.planning.gpus import GPUS

    base = base or Efficiencies()
    eff = replace(base, measured=set(), ceilings={})
    measured = check.get("efficiencies") or {}
    if check.get("gpu_type") not in GPUS:
        return eff
    if measured.get("mfu"):
        eff.mfu = min(1.0, measured["mfu"]["value"])
        eff.measured.add("mfu")
    ceiling = (measured.get("decode_efficiency") or {}).get("value")
    if ceiling is not None:
        eff.ceilings["decode_efficiency"] = ceiling  # caps the range's favourable end
        if ceiling < eff.decode_efficiency:
            eff.decode_efficiency = ceiling
            eff.measured.add("decode_efficiency")
    return eff
