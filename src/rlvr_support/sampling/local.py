"""Sampling a model loaded in this process: Hugging Face `generate` (sampling/hf.py) or the fast
CPU sampler (sampling/fast.py).

The training stage's support monitor samples the policy it is training through here, without
the vLLM path of sampling/backends.py, so an edit of the vLLM backend does not retrain anything
(lineage/codehash.py follows every import).
"""

from __future__ import annotations

from rlvr_support.sampling.prompts import Request


def choose_backend(backend: str, model) -> str:
    """`auto`: the fast sampler where it can run this (loaded) model, else Hugging Face `generate`."""
    from rlvr_support.sampling.fast import fast_supported

    if backend == "auto":
        return "fast" if fast_supported(model) is None else "hf"
    return backend


def generate_local(model, tokenizer, backend: str, requests: list[Request], *, prompt_batch: int = 16
                   ) -> list[list[dict]]:
    """Rows for each request (sampling/backends.py's row format) with `backend` hf, fast or auto."""
    from rlvr_support.sampling.fast import generate_fast
    from rlvr_support.sampling.hf import generate_hf

    backend = choose_backend(backend, model)
    if backend not in ("hf", "fast"):
        raise ValueError(f"a loaded model samples with hf or fast, not {backend!r}")
    generate = generate_fast if backend == "fast" else generate_hf
    return [drop_token_arrays(generate(model, tokenizer, list(r.prompts), n=r.n, temperature=r.temperature,
                                       top_p=r.top_p, max_new_tokens=r.max_new_tokens, seed=r.seed,
                                       prompt_batch=prompt_batch), r.token_arrays)
            for r in requests]


def drop_token_arrays(rows: list[dict], keep: int | None) -> list[dict]:
    """Rows with the log-probs and entropies of samples `keep`, `keep`+1, ... emptied (None: all kept)."""
    if keep is not None:
        for r in rows:
            if r["sample_idx"] >= keep:
                r["token_logprobs"], r["token_entropies"] = [], []
    return rows
