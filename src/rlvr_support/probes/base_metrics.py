"""Check the base policy before RL: greedy accuracy and sampled pass@1 per eval task.

The toy-world notes say math RL does nothing on a base whose greedy math accuracy is low,
so this file is the first thing to read when a study shows no effect.
"""

from __future__ import annotations

import pandas as pd
import torch

from rlvr_support.models.devices import model_devices
from rlvr_support.models.prompting import prompt_format, render
from rlvr_support.sampling.backends import Request
from rlvr_support.sampling.jobs import eval_prompts, sampler
from rlvr_support.sampling.prompts import prompt_ids
from rlvr_support.scoring.score import score_samples, scoring_options

MODES = (("greedy", 0.0, 1), ("sampled", 1.0, 4))  # (label, temperature, samples per prompt)


def _style_word(text: str) -> str:
    """The opening word (the toy world's style marker), ignoring quotes and case; "" if empty."""
    words = text.replace('"', " ").split()
    return words[0].lower() if words else ""


def base_metrics(model_path: str, prompt_files: dict[str, str], *, sampling: dict, scoring: dict | None = None,
                 seed: int = 0, threads: int = 1, gpus: int = 0, dtype: str = "auto") -> dict:
    """Greedy and sampled reward per task through the configured backend (`sampling`: backend,
    prompt_batch, max_new_tokens, vllm): vLLM on GPUs, the fast sampler on CPU; token-id prompts,
    every task's requests sent at once (one vLLM engine start)."""
    torch.set_num_threads(threads)
    scoring = scoring or {"timeout_s": 1.0, "workers": 1, "reasoning": "none"}
    (device,) = model_devices(gpus, 1)
    policy = sampler(model_path, sampling, dtype=dtype, device=device)
    tok = policy.tokenizer
    fmt = prompt_format(model_path)
    tasks = sorted(prompt_files)
    prompts = {t: eval_prompts(prompt_files[t]) for t in tasks}
    ids = {t: prompt_ids(tok, render(tok, [p["prompt"] for p in prompts[t]], fmt)) for t in tasks}
    requests = [Request(ids[t], n=n, temperature=temperature, top_p=1.0, max_new_tokens=sampling["max_new_tokens"],
                        seed=seed) for t in tasks for _, temperature, n in MODES]
    results = iter(policy.generate_many(requests))
    out = {}
    for task in tasks:
        records = {p["id"]: p for p in prompts[task]}
        result = {}
        for label, _, _ in MODES:
            rows = next(results)
            samples = pd.DataFrame({"prompt_id": [prompts[task][r["prompt_index"]]["id"] for r in rows],
                                    "sample_idx": [r["sample_idx"] for r in rows],
                                    "text": [r["text"] for r in rows]})
            scores = score_samples(samples, records, **scoring_options(scoring))
            result[f"{label}_reward"] = round(float(scores["reward"].mean()), 4)
            if task != "math":
                result[f"{label}_constraint_share"] = round(float(scores["if_frac_strict"].mean()), 4)
            firsts = pd.Series([_style_word(t) for t in samples["text"]])
            result[f"{label}_opening_share"] = {
                w: round(float(s), 4) for w, s in firsts.value_counts(normalize=True).sort_index().items()}
        result["n_prompts"] = len(prompts[task])
        result["backend"] = policy.backend
        out[task] = result
    return out
