"""A study's GPU jobs as the planner sees them: per model, the train, sample and analyse setups read from a
filled-in config (config/defaults.py fill_defaults), their memory plans, the context-length check, and the
GRPO step-time setup of the throughput model.

`check_study` runs in workflow/rules/common.smk before any job: a job kind that cannot fit its GPU, a
prompt + new tokens beyond a model's positions, or an accelerate config whose gradient accumulation
disagrees with the trainer's is a config error naming the keys to change. A hub model whose config.json
is neither in the local cache nor stored (planning/model_configs/) is reported, not refused: `prefetch`
brings it, and the plan then covers it.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import yaml

from rlvr_support.config.batches import micro_batches
from rlvr_support.config.benchmarks import max_new_tokens_keys
from rlvr_support.config.chains import parse_chain
from rlvr_support.config.checkpoints import externals_of
from rlvr_support.config.defaults import gradient_checkpointing
from rlvr_support.planning.gpus import gpu_of
from rlvr_support.planning.memory import (ADAM_BYTES, MASTER_BYTES, MemoryPlan, TrainSetup, context_problem,
                                          hf_sample_plan, js_plan, train_plan, vllm_plan)
from rlvr_support.planning.shapes import ModelShape, model_shape
from rlvr_support.planning.throughput import GRPOSetup
from rlvr_support.training.frozen import frozen_copies

REPO = Path(__file__).resolve().parents[3]
VLLM_UTILIZATION = 0.9  # vLLM's own default gpu_memory_utilization (the sampling backend leaves it)
TRL_VLLM_UTILIZATION = 0.3  # TRL's default vllm_gpu_memory_utilization (colocate)


class PlanError(ValueError):
    pass


def model_specs(config: dict) -> dict[str, dict]:
    """{model: base spec}: `models` (several) or `base` (one, named base); none for an imported base
    (`base: {kind: import}`: samples only, nothing runs a model)."""
    if config.get("models"):
        return dict(config["models"])
    return {} if config["base"]["kind"] == "import" else {"base": config["base"]}


def toy_vocab() -> int:
    """The toy tokenizer's vocabulary size, read without transformers (whose import is most of the
    second this check adds to every parse of the workflow)."""
    from rlvr_support.data.toyworld.tokenizer import build_word_tokenizer

    return build_word_tokenizer().get_vocab_size(with_added_tokens=True)


def shape_of(spec: dict) -> ModelShape | None:
    return model_shape(spec, toy_vocab() if spec["kind"] == "pretrain" else None)


def prompt_tokens(config: dict) -> int:
    """budget.max_prompt_tokens of a filled-in config (config/defaults.py BUDGET_DEFAULTS): the memory plans'
    and the budget's prompt length, an upper bound stated for real data."""
    return config["budget"]["max_prompt_tokens"]


def context_prompt_tokens(config: dict) -> tuple[int, str]:
    """The longest prompt a job may see, for the context check, and the key that sets it ("" when none does): on
    the toy world its own, measured (its checkpoints read its tokenizer), else budget.max_prompt_tokens. Needs
    the whole config (the world)."""
    if config["world"]["kind"] == "toy":
        from rlvr_support.data.toyworld.limits import longest_prompt

        return longest_prompt(config), ""
    return prompt_tokens(config), "budget.max_prompt_tokens"


def positions(spec: dict, shape: ModelShape) -> int:
    """The positions a model is planned with: its config.json's, or the config's stated override."""
    return spec.get("max_positions") or shape.max_positions


@dataclass
class Launch:
    sharding: str  # zero3 | zero2 | zero1 | fsdp | none
    offload_optimizer: bool
    accumulation: int | str | None  # what the accelerate config pins (None / "auto": the trainer's)
    save_16bit: bool = False  # ZeRO-3 save_model gathers a 16-bit state dict (zero3_save_16bit_model)


def launch_of(resources: dict) -> Launch:
    """How a train job shards its model: from the accelerate config it is launched with (plain python: none)."""
    if resources.get("launcher") != "accelerate":
        return Launch("none", False, None)
    path = Path(resources["accelerate_config"])
    path = path if path.is_absolute() else REPO / path
    acc = yaml.safe_load(path.read_text()) or {}
    if acc.get("distributed_type") == "DEEPSPEED":
        ds = acc.get("deepspeed_config") or {}
        return Launch(f"zero{ds.get('zero_stage', 2)}", ds.get("offload_optimizer_device", "none") not in (None, "none"),
                      ds.get("gradient_accumulation_steps"), bool(ds.get("zero3_save_16bit_model")))
    if acc.get("distributed_type") == "FSDP":
        fsdp = acc.get("fsdp_config") or {}
        return Launch("fsdp", bool(fsdp.get("fsdp_offload_params")), None)
    return Launch("none", False, None)


def processes(resources: dict) -> int:
    """Training processes: one per GPU under `accelerate launch`, one for the plain python launcher."""
    return max(1, resources["gpu"]) * resources.get("nodes", 1) if resources.get("launcher") == "accelerate" else 1


def deepspeed_bf16(config: dict, launch: Launch) -> bool:
    """Whether the policy's weights are 16-bit: DeepSpeed under bf16 casts the module (fp32 master weights live in
    its optimizer); FSDP and a single process keep the policy in fp32 (training/stage.py loads it so, and mixed
    precision only casts the compute)."""
    res, rl = config["resources"]["train"], config["rl"]
    return res["gpu"] > 0 and rl.get("precision") == "bf16" and launch.sharding.startswith("zero")


def checkpoint_bytes_per_param(config: dict) -> tuple[int, int]:
    """(bytes per parameter of a stage's saved weights, of a resume checkpoint: weights + optimizer state).

    DeepSpeed under bf16 saves the 16-bit weights its engine computes in (ZeRO-3: gathered, with
    zero3_save_16bit_model) and keeps fp32 master weights beside Adam's two moments; FSDP and a single
    process keep the policy itself in fp32 (mixed precision only casts the compute), so they save fp32."""
    launch = launch_of(config["resources"]["train"])
    ds_bf16 = deepspeed_bf16(config, launch)
    saved = 2 if ds_bf16 and (launch.sharding != "zero3" or launch.save_16bit) else 4
    return saved, saved + (MASTER_BYTES if ds_bf16 else 0) + ADAM_BYTES


def rollout_kind(rl: dict) -> str:
    if rl.get("rollout_backend") == "vllm":
        return "vllm-server" if (rl.get("vllm") or {}).get("mode") == "server" else "vllm-colocate"
    return "hf"


def max_copies(config: dict) -> int:
    """The most frozen models (references, teachers) any chain's last stage holds."""
    rl, out = config["rl"], 0
    for chain in config["chains"]:
        _, variant = parse_chain(chain)
        remedies = {k: v for k, v in (config["variants"].get(variant) or {}).items()
                    if k not in ("enabled", "description")} if variant else {}
        teacher = (remedies.get("distill") or {}).get("teacher", "parent")
        separate = teacher != "parent" or bool((remedies.get("distill") or {}).get("teacher_step"))
        out = max(out, frozen_copies(remedies, rl.get("beta", 0.0), separate))
    return out


def train_setup(config: dict, spec: dict) -> TrainSetup:
    rl, res = config["rl"], config["resources"]["train"]
    launch = launch_of(res)
    per_step = rl["prompts_per_step"] * rl["group_size"]
    vllm = rl.get("vllm") or {}
    on_gpu = res["gpu"] > 0
    return TrainSetup(
        processes=processes(res), sharding=launch.sharding, offload_optimizer=launch.offload_optimizer,
        p=2 if on_gpu and rl.get("precision") == "bf16" else 4, micro_batch=rl.get("micro_batch") or per_step,
        seq_len=prompt_tokens(config) + rl["max_completion_tokens"],
        checkpointing=gradient_checkpointing(rl, spec), frozen_copies=max_copies(config), rollout=rollout_kind(rl),
        rollout_sequences=per_step, vllm_utilization=vllm.get("gpu_memory_utilization", TRL_VLLM_UTILIZATION),
        vllm_sleep=bool(vllm.get("enable_sleep_mode")), weight_bytes=2 if deepspeed_bf16(config, launch) else 4,
        completion=rl["max_completion_tokens"])


def grpo_setup(config: dict, spec: dict, mean_completion: float, kv_sequences: float) -> GRPOSetup:
    rl, res = config["rl"], config["resources"]["train"]
    s = train_setup(config, spec)
    # no-grad passes: the old policy's log-probs (TRL computes them for vLLM's importance correction, or when a
    # step's batch is split over several optimizer steps), and one per frozen model
    old = s.rollout.startswith("vllm")
    return GRPOSetup(processes=s.processes, sequences=s.rollout_sequences, group_size=rl["group_size"],
                     prompt_tokens=prompt_tokens(config), max_completion=rl["max_completion_tokens"],
                     mean_completion=mean_completion, rollout=s.rollout, kv_sequences=kv_sequences,
                     checkpointing=s.checkpointing, nograd_passes=int(old) + s.frozen_copies,
                     sharded=s.sharding in ("zero3", "fsdp") and res["gpu"] > 0,
                     vllm_sleep=s.rollout == "vllm-colocate" and s.vllm_sleep)


def max_new_tokens(config: dict) -> int:
    """The longest generation any sample job of the study asks for (over every benchmark's own budget)."""
    return max(max_new_tokens_keys(config["sampling"]).values())


def sample_plan(config: dict, model: str, shape: ModelShape, kind: str = "sample") -> MemoryPlan:
    s, res = config["sampling"], config["resources"][kind]
    gpu, prompt = gpu_of(res), prompt_tokens(config)
    if s["backend"] == "vllm":
        v = s.get("vllm") or {}
        return vllm_plan(kind, model, shape, gpu, v.get("tensor_parallel_size", 1),
                         v.get("gpu_memory_utilization", VLLM_UTILIZATION), shape.max_positions)
    n = max([s["n"]] + [own.get("n", s["n"]) for own in (s.get("benchmarks") or {}).values()])
    return hf_sample_plan(kind, model, shape, gpu, s["prompt_batch"] * n, max_new_tokens(config), prompt, 2)


def memory_plans(config: dict) -> tuple[list[MemoryPlan], list[str]]:
    """(a plan per GPU job kind and model, the models whose config.json is not here yet)."""
    plans, missing = [], []
    res = config["resources"]
    for model, spec in model_specs(config).items():
        shape = shape_of(spec)
        if shape is None:
            missing.append(f"{model} ({spec.get('path', spec['kind'])})")
            continue
        if config["chains"] and res["train"]["gpu"] > 0:
            setup = train_setup(config, spec)
            plans.append(train_plan(model, shape, setup, gpu_of(res["train"])))
            if setup.rollout == "vllm-colocate":  # the engine itself inside its share of each training GPU
                v = config["rl"].get("vllm") or {}
                plans.append(vllm_plan("train (colocated vLLM)", model, shape, gpu_of(res["train"]),
                                       v.get("tensor_parallel_size", 1), setup.vllm_utilization,
                                       v.get("max_model_len") or positions(spec, shape), section="rl"))
        if res["sample"]["gpu"] > 0:
            plans.append(sample_plan(config, model, shape))
        if res["analyse"]["gpu"] > 0:
            js = config["analysis"]["divergence"]
            if js.get("eval_sets"):
                plans.append(js_plan(model, shape, gpu_of(res["analyse"]), js["batch"], js["max_positions"],
                                     prompt_tokens(config), 2))
            plans.append(sample_plan(config, model, shape, "analyse"))
    return plans, missing


def context_problems(config: dict) -> list[str]:
    """Every model (and external checkpoint) whose positions cannot hold a prompt and its longest generation."""
    problems = []
    prompt, prompt_key = context_prompt_tokens(config)
    prompt_source = f" (or {prompt_key})" if prompt_key else ""
    lengths = [("sampling.max_new_tokens (or a benchmark's)", max_new_tokens(config))]
    if config["chains"]:
        lengths.append(("rl.max_completion_tokens", config["rl"]["max_completion_tokens"]))
    for part in ("intervention", "single_token"):
        spec = config["analysis"].get(part)
        if spec and spec.get("max_new_tokens"):
            lengths.append((f"analysis.{part}.max_new_tokens", spec["max_new_tokens"]))
    specs = model_specs(config)
    for model, spec in specs.items():
        where = f"models.{model}" if config.get("models") else "base"
        # a toy base checks its own lengths (data/toyworld/limits.py); its external checkpoints are checked here
        entries = [] if spec["kind"] == "pretrain" else [(where, spec)]
        entries += [(f"checkpoints.{name}", config["checkpoints"][name]) for name in externals_of(config, model)]
        for label, s in entries:
            shape = shape_of(s)
            if shape is None:
                continue
            over = [(key, new) for key, new in lengths if context_problem(shape, prompt, new, positions(s, shape))]
            if over:
                longest = max(new for _, new in over)
                problems.append(f"{label}: {context_problem(shape, prompt, longest, positions(s, shape))}; lower "
                                f"{', '.join(key for key, _ in over)}{prompt_source}, or state "
                                f"{label}.max_positions if the run extends the model's context")
    return problems


def accumulation_problems(config: dict) -> list[str]:
    """An accelerate/DeepSpeed config that pins its own gradient accumulation disagrees with the trainer's."""
    if not config["chains"]:
        return []
    res, rl = config["resources"]["train"], config["rl"]
    launch = launch_of(res)
    _, want = micro_batches(rl)
    if launch.accumulation not in (None, "auto") and int(launch.accumulation) != want:
        return [f"resources.train.accelerate_config: {res['accelerate_config']} pins gradient_accumulation_steps "
                f"{launch.accumulation}, but the trainer accumulates {want} micro-batches (rl.prompts_per_step x "
                f"rl.group_size / rl.micro_batch); leave it out (or 'auto') so DeepSpeed takes the trainer's"]
    return []


def check_study(config: dict) -> list[str]:
    """Raise PlanError with every job that cannot fit or run; return notes on what could not be planned yet."""
    problems = context_problems(config) + accumulation_problems(config)
    plans, missing = memory_plans(config)
    for plan in plans:
        if not plan.fits:
            big = sorted(plan.terms, key=lambda t: -t.bytes)[:3]
            problems.append(
                f"resources.{plan.kind.split()[0]}: a {plan.kind} job of {plan.model} needs {plan.peak / 1e9:.1f} GB per GPU, "
                f"more than the {plan.capacity / 1e9:.1f} GB "
                + (f"of {plan.gpu.name} (its vLLM share)" if plan.limit is not None else
                   f"{plan.gpu.name} reports")
                + f"; largest terms: {', '.join(f'{t.name} {t.bytes / 1e9:.1f} GB' for t in big)}; change "
                + ", ".join(plan.keys) + " (python -m rlvr_support budget shows every term)")
    if problems:
        raise PlanError("the study cannot run as configured:\n  " + "\n  ".join(problems))
    return [f"memory plan of {m} skipped: its config.json is not in the local Hugging Face cache yet "
            "(run the prefetch rule on the submit host)" for m in missing]
