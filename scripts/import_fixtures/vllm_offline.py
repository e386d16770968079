"""vLLM offline `LLM.generate(prompts, SamplingParams(n=4, logprobs=1))` on the six math prompts,
each `RequestOutput` saved as one JSON line (run with the vLLM interpreter, .venv-vllm/bin/python):

    python vllm_offline.py MODEL_DIR OUT.jsonl [SEED]

(SEED, default 1234, lets make_import_fixtures.sh draw the verl fixture's rollouts apart from this one.)

vLLM has no file format for offline outputs; users dump the objects. This script's dump, which the
fixture documents (tests/data/imports/README.md), keeps every field of `RequestOutput` and
`CompletionOutput` that is data, under vLLM's own names:

    {"request_id", "prompt", "prompt_token_ids", "finished",
     "outputs": [{"index", "text", "token_ids", "cumulative_logprob", "finish_reason", "stop_reason",
                  "logprobs": [{"<token id>": {"logprob", "rank", "decoded_token"}, ...} per generated token]}]}

`logprobs` is vLLM's `list[dict[int, Logprob]]` with JSON's string keys: each position holds the
sampled token and the top-`logprobs` tokens (one or two entries with logprobs=1). Prompts are the
user message put through the model's chat template as text, as a user of `LLM.generate` does.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
os.environ.setdefault("VLLM_CPU_KVCACHE_SPACE", "1")

from prompts import MATH, math_prompt  # noqa: E402

SAMPLING = {"n": 4, "temperature": 0.6, "max_tokens": 64, "logprobs": 1, "seed": 1234}


def completion_record(c) -> dict:
    logprobs = None if c.logprobs is None else [
        {str(tok): {"logprob": lp.logprob, "rank": lp.rank, "decoded_token": lp.decoded_token}
         for tok, lp in step.items()} for step in c.logprobs]
    return {"index": c.index, "text": c.text, "token_ids": list(c.token_ids),
            "cumulative_logprob": c.cumulative_logprob, "logprobs": logprobs,
            "finish_reason": c.finish_reason, "stop_reason": c.stop_reason}


def request_record(out) -> dict:
    return {"request_id": out.request_id, "prompt": out.prompt, "prompt_token_ids": list(out.prompt_token_ids),
            "finished": out.finished, "outputs": [completion_record(c) for c in out.outputs]}


def main(model_dir: str, out_path: str, seed: int) -> None:
    from transformers import AutoTokenizer
    from vllm import LLM, SamplingParams

    tok = AutoTokenizer.from_pretrained(model_dir)
    prompts = [tok.apply_chat_template([{"role": "user", "content": math_prompt(r)}], tokenize=False,
                                       add_generation_prompt=True) for r in MATH]
    llm = LLM(model=model_dir, dtype="float32", seed=seed, max_model_len=1024)
    outs = llm.generate(prompts, SamplingParams(**{**SAMPLING, "seed": seed}))
    tmp = Path(out_path + ".tmp")
    with open(tmp, "w") as f:
        for out in outs:
            f.write(json.dumps(request_record(out), ensure_ascii=False, separators=(",", ":")) + "\n")
    tmp.replace(out_path)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], int(sys.argv[3]) if len(sys.argv) > 3 else SAMPLING["seed"])
