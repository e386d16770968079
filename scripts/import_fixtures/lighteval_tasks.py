"""lighteval custom task: the six math prompts of prompts.py, n=4 samples each. Written for
`lighteval accelerate --custom-tasks`, which cannot run here (lighteval_details.py says why);
lighteval_details.py uses its prompt function and metrics.

Built like lighteval's own math_500 task (lighteval 0.13.0, tasks/tasks/math_500.py) but with the
local rows (`hf_repo` is the folder holding math.jsonl, read by `datasets.load_dataset`) and the
prompt text every other fixture uses. The metrics are lighteval's n-sample ones, so the details
Parquet holds all n responses in `model_response.text`: pass@k (k=1, n=4) with lighteval's math
extraction, and maj@4.
"""

import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))  # lighteval imports this file by path

from lighteval.metrics.metrics import Metrics  # noqa: E402
from lighteval.tasks.lighteval_task import LightevalTaskConfig  # noqa: E402
from lighteval.tasks.requests import Doc  # noqa: E402
from prompts import math_prompt  # noqa: E402

N_SAMPLES = 4


def toy_math_prompt(line: dict, task_name: str = "") -> Doc:
    return Doc(task_name=task_name, query=math_prompt(line), choices=[line["answer"]], gold_index=0,
               specific={"unique_id": line["unique_id"]})


toy_math = LightevalTaskConfig(
    name="toy_math",
    prompt_function=toy_math_prompt,
    hf_repo=os.environ["FIXTURE_DATA_DIR"],  # a local folder; datasets' json builder reads it offline
    hf_subset="default",
    hf_avail_splits=["train"],
    evaluation_splits=["train"],
    few_shots_split=None,
    few_shots_select=None,
    generation_size=128,
    metrics=[
        Metrics.pass_at_k_math(sample_params={"k": 1, "n": N_SAMPLES}),
        Metrics.maj_at_n(sample_params={"n": N_SAMPLES}),
    ],
    version=0,
)

TASKS_TABLE = [toy_math]
