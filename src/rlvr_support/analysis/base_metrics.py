"""Check the base policy before RL: greedy accuracy and sampled pass@1 per eval task.

The toy-world notes say math RL does nothing on a base whose greedy math accuracy is low,
so this file is the first thing to read when a study shows no effect.
"""

from __future__ import annotations

import pandas as pd
import torch

from rlvr_support.models.loading import load_policy
from rlvr_support.sampling.jobs import eval_prompts
from rlvr_support.models.prompting import prompt_format, render
from rlvr_support.sampling.hf import generate_hf
from rlvr_support.scoring.score import score_samples


def _style_word(text: str) -> str:
    """The opening word (the toy world's style marker), ignoring quotes and case; "" if empty."""
    words = text.replace('"', " ").split()
    return words[0].lower() if words else ""


def base_metrics(model_path: str, prompt_files: dict[str, str], *, max_new_tokens: int, n_sampled: int = 4,
                 seed: int = 0, threads: int = 1) -> dict:
    torch.set_num_threads(threads)
    model, tok = load_policy(model_path)
    fmt = prompt_format(model_path)
    out = {}
    for task, path in sorted(prompt_files.items()):
        prompts = eval_prompts(path)
        records = {p["id"]: p for p in prompts}
        texts = render(tok, [p["prompt"] for p in prompts], fmt)
        result = {}
        for label, temperature, n in (("greedy", 0.0, 1), ("sampled", 1.0, n_sampled)):
            rows = generate_hf(model, tok, texts, n=n, temperature=temperature, top_p=1.0,
                               max_new_tokens=max_new_tokens, seed=seed, prompt_batch=32)
            samples = pd.DataFrame({"prompt_id": [prompts[r["prompt_index"]]["id"] for r in rows],
                                    "sample_idx": [r["sample_idx"] for r in rows],
                                    "text": [r["text"] for r in rows]})
            scores = score_samples(samples, records)
            result[f"{label}_reward"] = round(float(scores["reward"].mean()), 4)
            if task != "math":
                result[f"{label}_constraint_share"] = round(float(scores["if_frac_strict"].mean()), 4)
            firsts = pd.Series([_style_word(t) for t in samples["text"]])
            result[f"{label}_opening_share"] = {
                w: round(float(s), 4) for w, s in firsts.value_counts(normalize=True).sort_index().items()}
        result["n_prompts"] = len(prompts)
        out[task] = result
    return out
