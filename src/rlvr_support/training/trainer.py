"""Mitigations and calibrations as a subclass of TRL's GRPOTrainer. Targets trl==1.16.0 (pinned).

Each remedy is switched on by its key in the stage's `remedies` mapping (config: a chain
variant such as `math-if~kl`, see workflow/schemas/config.schema.yaml); a missing key is off.
A remedy is one module of training/remedies/ (what it does, its checks, its hooks), declared with
its defaults in config/remedies.py. What TRL already has is used as is (k3 KL in the loss via
`beta`, clip-higher via `epsilon_high`, entropy bonus via `entropy_coef`: the remedies'
`grpo_kwargs`, set in stage.grpo_config); the rest runs as the switched-on remedies' hooks, called
in registry order at these override points of GRPOTrainer (tests/test_grpo_extensions.py fails if
one changes):

- `_generate_single_turn`: rollouts from the fast CPU sampler (sampling/fast.py) where it applies
  (`rollout_backend`) or from TRL's vLLM engine (`rollout_backend: vllm`; training/vllm_rollouts.py
  sets its dtype and seed and syncs its weights on vLLM's CPU backend); a remedy that
  `shapes_rollouts` draws a rollout's first tokens itself (`rollout_prefixes`: the routing prior)
  or samples the policy's continuations through logits processors (`logits_processors`: the
  memory network);
- `_calculate_rewards`: keeps the raw rewards so advantages can be recomputed;
- `_generate_and_score_completions`: `before_rollouts` (reference reset), `after_scoring`
  (routed-token masking through TRL's `tool_mask`, reference log-probs), then, when a remedy
  `recomputes_advantages`, the advantages from the raw rewards: `shape_rewards` (unlikeliness
  reward, KL in the reward), GRPO's group advantage or a `replace_advantages` (pass@k),
  `scale_advantages` (inverse-success calibration), `token_advantages` (per-token on-policy
  distillation);
- `_get_per_token_logps_and_entropies` + `_compute_loss`: a remedy's `loss_term` (the k1 KL).

The frozen models (the reference of the KL and routing remedies, the distillation teacher) are the
trainer's: built, placed and counted in training/frozen.py.
"""

from __future__ import annotations

import torch
from transformers import LogitsProcessorList, TemperatureLogitsWarper
from trl import GRPOTrainer
from trl.extras.profiling import profiling_context
from trl.trainer.utils import add_fused_lm_head

from rlvr_support.config.defaults import with_remedy_defaults
from rlvr_support.scoring.rewards import SUCCESS
from rlvr_support.training import remedy_code  # advantages.py: loaded when the remedies recompute advantages
from rlvr_support.training.frozen import (load_frozen, needs_reference, place_frozen, teacher_shares_reference,
                                          uses_trl_kl)
from rlvr_support.training.remedies import ScoredBatch, build, registered
from rlvr_support.training.vllm_rollouts import colocated_engine, is_cpu_engine, sync_cpu_engine
from rlvr_support.sampling.fast import fast_supported, sample_ids
from rlvr_support.sampling.prompts import left_pad

TRL_TARGET = "1.16.0"

# rl.rollout_backend: auto = the fast CPU sampler where it applies; vllm = TRL's vLLM engine (GRPOConfig.use_vllm)
ROLLOUT_BACKENDS = ("auto", "hf", "vllm")


def resolve_remedies(cfg: dict | None) -> dict[str, dict]:
    """Each switched-on remedy with its parameters filled in (config.defaults) and checked (its `validate`);
    unknown names are errors."""
    out = with_remedy_defaults(cfg)
    for cls, params in registered(out):
        cls.validate(params)
    return out


def _repeat_of(prompt_ids: list[list[int]], k: int) -> int:
    """k if `prompt_ids` is blocks of k identical prompts (TRL repeats each prompt num_generations
    times, consecutively), else 1: then every row is prefilled on its own."""
    n = len(prompt_ids)
    if k > 1 and n % k == 0 and all(prompt_ids[i] == prompt_ids[i - i % k] for i in range(n)):
        return k
    return 1


class SupportGRPOTrainer(GRPOTrainer):
    """GRPOTrainer plus the remedies above; with no remedy on it trains exactly like GRPOTrainer."""

    def __init__(self, *args, remedies: dict | None = None, teacher=None, reference=None,
                 rollout_backend: str = "auto", **kwargs):
        """`reference`: the starting weights' checkpoint (folder or manifest) the reference copy is loaded from,
        default a copy of `model` (only for a model that is not sharded yet, e.g. built in memory);
        `teacher`: the distillation teacher's checkpoint (or a model), default the reference's weights."""
        if rollout_backend not in ROLLOUT_BACKENDS:
            raise ValueError(f"rollout_backend must be one of {ROLLOUT_BACKENDS}, got {rollout_backend!r}")
        if (rollout_backend == "vllm") != bool(getattr(kwargs.get("args"), "use_vllm", False)):
            raise ValueError("rollout_backend vllm and GRPOConfig.use_vllm go together (training/stage.py grpo_config)")
        self.remedies = resolve_remedies(remedies)
        self._remedy_hooks = build(self.remedies)
        model = kwargs.get("model", args[0] if args else None)
        if isinstance(model, str):
            raise ValueError("SupportGRPOTrainer needs a loaded model (it copies it as reference/teacher)")
        r, grpo_args = self.remedies, kwargs.get("args")
        # The frozen models compute in the policy's dtype (bf16 under mixed precision) and are loaded, patched
        # with the fused LM head and later sharded the way TRL treats its own ref_model (training/frozen.py).
        # (k3 in the loss is TRL's own ref_model: no copy of ours needed)
        on_gpu = grpo_args is not None and not grpo_args.use_cpu and torch.cuda.is_available()
        dtype = torch.bfloat16 if on_gpu and grpo_args.bf16 else model.dtype
        head = {"temperature": grpo_args.temperature if grpo_args is not None else 1.0,
                "cast_lm_head_to_fp32": grpo_args.cast_lm_head_to_fp32 if grpo_args is not None else False}
        start = reference if reference is not None else model

        def frozen(source):
            m = load_frozen(source, dtype)
            add_fused_lm_head(m, **head)
            return m

        self._ref = frozen(start) if needs_reference(r) else None
        self._teacher = None
        if "distill" in r:
            if teacher_shares_reference(r, teacher is not None):
                self._teacher = self._ref  # the same frozen start weights: share the memory
            else:
                self._teacher = frozen(teacher if teacher is not None else start)
        with colocated_engine(kwargs.get("args")):  # rollout_backend vllm: the engine's dtype and seed
            super().__init__(*args, **kwargs)
        placed = {}
        for name in ("_ref", "_teacher"):
            m = getattr(self, name)
            if m is not None:
                placed.setdefault(id(m), place_frozen(m, self))
                setattr(self, name, placed[id(m)])
        for hook in self._remedy_hooks:
            hook.setup(self)
        self._last_rewards: torch.Tensor | None = None
        self._capture_logps = False
        self._captured_logps: torch.Tensor | None = None
        self._cpu_engine = self.use_vllm and is_cpu_engine(self.vllm_generation)
        why = self._fast_rollouts_unsupported(rollout_backend)
        # "fast", "hf" or "vllm", and why not fast; train_stage logs both and the manifest records the backend
        self.rollout_backend, self.rollout_backend_reason = (
            ("vllm", None) if self.use_vllm else ("hf", why) if why else ("fast", None))

    # ---------------------------------------------------------------- references
    def kl_reference(self):
        """The model the KL term points at: TRL's ref_model for native k3, ours otherwise."""
        return self.ref_model if uses_trl_kl(self.remedies) and self.ref_model is not None else self._ref

    def _maybe_reset_reference(self) -> None:
        """Before a training step's rollouts: the remedies' `before_rollouts` (the kl remedy's reference reset,
        hence the name, which tests/sharded_workers.py wraps to measure the reset)."""
        for hook in self._remedy_hooks:
            hook.before_rollouts(self)

    # ---------------------------------------------------------------- sampling
    def _eos_ids(self) -> list[int]:
        return list(self.eos_token_ids)

    def _fast_rollouts_unsupported(self, backend: str) -> str | None:
        """None if the fast sampler draws from the same distribution as TRL's HF generate path, else why not."""
        if backend == "hf":
            return "rl.rollout_backend is hf"
        if self.use_vllm or self.use_transformers_continuous_batching:
            return "vLLM / continuous batching generates the rollouts"
        for hook in self._remedy_hooks:
            if hook.samples_with_processors:
                return f"the {hook.name} remedy samples through an HF logits processor"
        if self.is_deepspeed_enabled or self.is_fsdp_enabled:
            return "the policy's parameters are sharded"
        # the fast sampler implements temperature and top-p only
        if self.top_k or self.min_p is not None or self.repetition_penalty != 1.0 or self.args.generation_kwargs:
            return "top_k / min_p / repetition_penalty / generation_kwargs are set"
        return fast_supported(self.accelerator.unwrap_model(self.model))

    def _fast_sample(self, model, prompt_ids: list[list[int]], max_new: int, group: int = 1) -> list[list[int]]:
        """Completion ids (cut after the first EOS, kept) from the fast sampler; blocks of `group`
        identical prompts are prefilled once."""
        n = _repeat_of(prompt_ids, group)
        # seeded from the global RNG, which TRL checkpoints: runs repeat, and a resumed run redraws the same rollouts
        gen = torch.Generator().manual_seed(int(torch.randint(2**62, (1,)).item()))
        return sample_ids(model, prompt_ids[::n], n=n, temperature=self.temperature, top_p=self.top_p,
                          max_new_tokens=max_new, eos_ids=self._eos_ids(), pad_id=self._tokenizer.pad_token_id,
                          generator=gen)

    def _rollouts(self, prompt_ids, images, multimodal_fields, num_generations, has_tool_images=False):
        """TRL's rollouts (completion ids, sampling logprobs or None), from the fast sampler where it applies."""
        if self._cpu_engine and self.state.global_step != self._last_loaded_step:
            # before TRL's own sync (which then skips): TRL's in-place copy fails on vLLM's CPU backend
            with profiling_context(self, "sync_weights"):
                sync_cpu_engine(self.vllm_generation)
            self._last_loaded_step = self.state.global_step
        if self.rollout_backend != "fast" or images is not None or multimodal_fields:
            return super()._generate_single_turn(prompt_ids, images, multimodal_fields, num_generations,
                                                 has_tool_images)
        policy = self.accelerator.unwrap_model(self.model)
        return self._fast_sample(policy, prompt_ids, self.max_completion_length, num_generations), None

    @torch.no_grad()
    def _sample_continuations(self, model, prompt_ids: list[list[int]], max_new: int,
                              processors=None) -> list[list[int]]:
        """Sample continuations, each cut after its first EOS: with the fast sampler where it applies, else
        (and always with logits `processors`) with HF generate, left padding."""
        if not prompt_ids:
            return []
        if processors is None and self.rollout_backend == "fast":
            return self._fast_sample(model, prompt_ids, max_new)
        pad = self._tokenizer.pad_token_id
        ids, att = (t.to(self.accelerator.device) for t in left_pad(prompt_ids, pad))
        width = ids.shape[1]
        temperature, procs = self.temperature, None
        if processors:
            # generate runs a caller's processors before its own temperature warper, but a calibration acts on the
            # sampling logits (logits / temperature, as TRL's loss reads them): temperature first, then them
            procs = LogitsProcessorList([p(width) for p in processors])
            if temperature != 1.0:
                procs.insert(0, TemperatureLogitsWarper(temperature))
            temperature = 1.0
        was_training = model.training
        model.eval()
        out = model.generate(input_ids=ids, attention_mask=att, do_sample=True, temperature=temperature,
                             top_p=self.top_p, top_k=self.top_k or None, max_new_tokens=max_new,
                             logits_processor=procs, pad_token_id=pad, eos_token_id=self._eos_ids())
        if was_training:
            model.train()
        eos = set(self._eos_ids())
        rows = []
        for seq in out[:, width:].tolist():
            cut = next((i + 1 for i, t in enumerate(seq) if t in eos), len(seq))
            rows.append(seq[:cut])
        return rows

    def _generate_single_turn(self, prompt_ids, images, multimodal_fields, num_generations, has_tool_images=False):
        shapers = [hook for hook in self._remedy_hooks if hook.shapes_rollouts]
        if not self.model.training or not shapers:
            return self._rollouts(prompt_ids, images, multimodal_fields, num_generations, has_tool_images)
        if images is not None or multimodal_fields:
            raise ValueError("routing / memory remedies support text-only prompts")
        n, max_len = len(prompt_ids), self.max_completion_length
        prefixes: list[list[int]] = [[] for _ in range(n)]
        for hook in shapers:
            for i, p in hook.rollout_prefixes(self, prompt_ids, max_len).items():
                prefixes[i] = p
        eos = set(self._eos_ids())
        todo = [i for i in range(n) if not (prefixes[i] and prefixes[i][-1] in eos) and len(prefixes[i]) < max_len]
        group = num_generations
        if self.use_vllm:
            # every row, one sample each: TRL's vLLM paths slice gathered rows by rank and dedupe them in blocks
            # of num_generations (server mode, tensor parallel); continuations of finished prefixes are dropped
            todo, group = list(range(n)), 1
        cont_prompts = [list(prompt_ids[i]) + prefixes[i] for i in todo]
        logprobs = None
        processors = [p for hook in shapers for p in hook.logits_processors(self)]
        if processors:
            conts = self._sample_continuations(self.accelerator.unwrap_model(self.model), cont_prompts, max_len,
                                               processors=processors)
        else:
            conts, lps = self._rollouts(cont_prompts, images, multimodal_fields, group, has_tool_images)
            if lps is not None:  # vLLM: routed tokens have no sampling logprob (NaN is neutralised by TRL)
                logprobs = [[] for _ in range(n)]
                for i, lp in zip(todo, lps):
                    logprobs[i] = lp
        completions = [list(p) for p in prefixes]
        for i, c in zip(todo, conts):
            if not (prefixes[i] and prefixes[i][-1] in eos):
                completions[i] = (prefixes[i] + list(c))[:max_len]
        if logprobs is not None:
            logprobs = [([float("nan")] * len(prefixes[i]) + list(logprobs[i]))[:len(completions[i])] for i in range(n)]
        for hook in shapers:
            hook.after_rollouts(self, completions, prefixes)
        return completions, logprobs

    # ---------------------------------------------------------------- rewards and advantages
    def _calculate_rewards(self, inputs, prompts, completions, completion_ids_list):
        rewards_per_func = super()._calculate_rewards(inputs, prompts, completions, completion_ids_list)
        self._last_rewards = rewards_per_func
        return rewards_per_func

    def _logps(self, model, out: dict) -> torch.Tensor:
        ids = torch.cat([out["prompt_ids"], out["completion_ids"]], dim=1)
        att = torch.cat([out["prompt_mask"], out["completion_mask"]], dim=1)
        with torch.no_grad():  # chunked by the micro-batch, like TRL's own old/reference log-prob passes
            logps, _, _ = self._get_per_token_logps_and_entropies(model, ids, att, out["completion_ids"].size(1),
                                                                  batch_size=self.args.per_device_train_batch_size)
        return logps

    def _needs_new_advantages(self) -> bool:
        return any(hook.recomputes_advantages() for hook in self._remedy_hooks)

    def _generate_and_score_completions(self, inputs):
        if self.model.training:
            self._maybe_reset_reference()
        out = super()._generate_and_score_completions(inputs)
        if not self.model.training:
            return out
        for hook in self._remedy_hooks:
            hook.after_scoring(self, out)
        if self._needs_new_advantages():
            out["advantages"] = self._remedy_advantages(out, out["completion_mask"].float())
        return out

    def _remedy_advantages(self, out: dict, mask: torch.Tensor) -> torch.Tensor:
        """The step's advantages from the raw rewards, through the switched-on remedies' hooks."""
        hooks, G = self._remedy_hooks, self.num_generations
        adv = remedy_code.load(self.remedies, "advantages")
        weights = self.reward_weights.to(self._last_rewards.device)
        raw = (self._last_rewards * weights.unsqueeze(0)).nansum(dim=1)
        batch = ScoredBatch(out, mask, success=raw >= SUCCESS)
        rewards = raw.clone()
        if any(hook.needs_policy_logps() for hook in hooks):
            batch.policy_logps = self._logps(self.model, out)  # once, before any hook reads it
        for hook in hooks:
            rewards = hook.shape_rewards(self, batch, rewards)
        replaced = {hook.name: hook.replace_advantages(self, batch, rewards) for hook in hooks}
        replaced = {name: a for name, a in replaced.items() if a is not None}
        if len(replaced) > 1:
            raise ValueError(f"remedies {' and '.join(replaced)} both replace the group advantage")
        a = next(iter(replaced.values())) if replaced else adv.group_advantages(rewards, G, self.scale_rewards)
        for hook in hooks:
            a = hook.scale_advantages(self, batch, a)
        a = torch.nan_to_num(a, nan=0.0)
        n_local = out["completion_ids"].shape[0]
        start = self.accelerator.process_index * n_local
        a = a[start:start + n_local]
        for hook in hooks:
            a = hook.token_advantages(self, batch, a)
        self._metrics["train"]["remedy/advantage_abs_mean"].append(float(a.abs().mean()))
        return a

    # ---------------------------------------------------------------- loss
    def _get_per_token_logps_and_entropies(self, model, input_ids, attention_mask, logits_to_keep, batch_size=None,
                                           compute_entropy=False, compute_aux_loss=False, **kwargs):
        result = super()._get_per_token_logps_and_entropies(
            model, input_ids, attention_mask, logits_to_keep, batch_size=batch_size,
            compute_entropy=compute_entropy, compute_aux_loss=compute_aux_loss, **kwargs)
        if self._capture_logps:
            self._captured_logps = result[0]
        return result

    def _compute_loss(self, model, inputs):
        terms = [hook for hook in self._remedy_hooks if hook.adds_loss_term()]
        if not terms:
            return super()._compute_loss(model, inputs)
        self._capture_logps = True  # the policy's log-probs of TRL's own forward pass, for the terms
        try:
            loss = super()._compute_loss(model, inputs)
        finally:
            self._capture_logps = False
        logps, self._captured_logps = self._captured_logps, None
        for hook in terms:
            loss = loss + hook.loss_term(self, inputs, logps)
        return loss


def remedy_grpo_kwargs(remedies: dict) -> dict:
    """GRPOConfig keys that TRL itself implements for these (resolved) remedies: each one's `grpo_kwargs`."""
    out = {}
    for cls, params in registered(remedies):
        out.update(cls.grpo_kwargs(params))
    return out


def check_remedies(remedies: dict, group_size: int) -> None:
    """Cross-key checks the schema cannot make (they depend on the group size): each remedy's `check`."""
    for cls, params in registered(remedies):
        cls.check(params, group_size)
