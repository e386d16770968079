"""One request type for every sampling backend: prompts as text or as token ids.

A `Sampler` is one checkpoint made ready for the configured backend (`sampling.backend`):

* `hf`: transformers `generate` (sampling/hf.py), on the job's device;
* `fast`: the CPU decode loop (sampling/fast.py) for Llama / Qwen2;
* `vllm`: vLLM (sampling/vllm_backend.py), in-process where vllm is importable, else in the
  vLLM environment (`make setup-vllm`), one engine start for all the requests of a call;
* `auto`: `fast` where it can run the model, else `hf`.

A prompt is a string (tokenised by the checkpoint's tokenizer, as it is) or a list of token
ids, used exactly: forced openings, routed prefixes and teacher continuations are plain
requests whose ids end with the tokens to continue from, whatever the tokenizer would make
of the decoded text. Every backend returns the same rows (prompt_index, sample_idx,
token_ids, text, n_tokens, finish_reason, token_logprobs, token_entropies), in prompt order.
"""

from __future__ import annotations

from pathlib import Path

from rlvr_support.sampling.local import choose_backend, generate_local
from rlvr_support.sampling.top_tokens import top_tokens_local
from rlvr_support.sampling.prompts import Request, prompt_ids

__all__ = ["BACKENDS", "Request", "Sampler", "choose_backend"]  # Request and choose_backend: re-exported

BACKENDS = ("auto", "hf", "fast", "vllm")
VLLM_DEFAULTS = {"tensor_parallel_size": 1, "dtype": "auto", "entropy_topk": 20}


class Sampler:
    """A checkpoint (manifest or model directory) ready to sample with `backend`."""

    def __init__(self, model_path: str | Path, backend: str = "auto", *, prompt_batch: int = 16,
                 vllm: dict | None = None, device=None, dtype: str = "float32"):
        if backend not in BACKENDS:
            raise ValueError(f"sampling.backend {backend!r} is not one of {BACKENDS}")
        self.model_path, self.prompt_batch = str(model_path), prompt_batch
        if backend == "vllm":
            from rlvr_support.models.loading import checkpoint_dir, load_tokenizer

            p = Path(model_path)
            self.model_dir = str(checkpoint_dir(p) if p.suffix == ".json" else p)
            self.model, self.tokenizer = None, load_tokenizer(self.model_dir)
            self.vllm = {**VLLM_DEFAULTS, **(vllm or {})}
            self.backend = "vllm"
            return
        from rlvr_support.models.devices import torch_device, weights_dtype
        from rlvr_support.models.loading import load_policy

        # a GPU job samples on its GPU (`auto` then picks generate over the CPU sampler)
        device = device if device is not None else torch_device()
        self.model, self.tokenizer = load_policy(model_path, weights_dtype(dtype, device), device)
        self.backend = choose_backend(backend, self.model)

    @classmethod
    def from_model(cls, model, tokenizer, backend: str = "auto", *, prompt_batch: int = 16) -> "Sampler":
        """A loaded (model, tokenizer) pair on its current device (hf, fast or auto)."""
        if backend not in ("auto", "hf", "fast"):
            raise ValueError(f"a loaded model samples with hf or fast, not {backend!r}")
        self = cls.__new__(cls)
        self.model_path, self.prompt_batch, self.model, self.tokenizer = None, prompt_batch, model, tokenizer
        self.backend = choose_backend(backend, model)
        return self

    def generate(self, request: Request) -> list[dict]:
        return self.generate_many([request])[0]

    def generate_many(self, requests: list[Request]) -> list[list[dict]]:
        """Rows for each request, in order; vLLM starts its engine once for all of them."""
        if self.backend == "vllm":
            return self._generate_vllm(requests)
        return generate_local(self.model, self.tokenizer, self.backend, requests, prompt_batch=self.prompt_batch)

    def top_tokens(self, prompts: list, k: int) -> list[list[int]]:
        """The k most likely first response tokens after each prompt (text or ids), most likely first.

        Locally one forward pass; on vLLM a one-token request whose first step returns the top
        `vllm.entropy_topk` log-probs (so k may not exceed it)."""
        if self.backend != "vllm":
            return top_tokens_local(self.model, self.tokenizer, list(prompts), k, prompt_batch=self.prompt_batch)
        if k > self.vllm["entropy_topk"] > 0:
            raise ValueError(f"top {k} tokens on vLLM need sampling.vllm.entropy_topk >= {k}, "
                             f"it is {self.vllm['entropy_topk']}")
        rows = self._generate_vllm([Request(list(prompts), n=1, temperature=1.0, top_p=1.0, max_new_tokens=1, seed=0)],
                                   first_top=k)[0]
        return [r["top_ids"] for r in rows]

    def _generate_vllm(self, requests: list[Request], first_top: int = 0) -> list[list[dict]]:
        from rlvr_support.sampling import vllm_backend

        calls = [dict(model_dir=self.model_dir, prompt_token_ids=prompt_ids(self.tokenizer, r.prompts), n=r.n,
                      temperature=r.temperature, top_p=r.top_p, max_new_tokens=r.max_new_tokens, seed=r.seed,
                      prompt_offset=r.prompt_offset, token_arrays=r.token_arrays,
                      eos_token_id=self.tokenizer.eos_token_id, first_top=first_top, **self.vllm)
                 for r in requests]
        try:
            import vllm  # noqa: F401

            llm = vllm_backend.make_llm(**calls[0])
            results = [vllm_backend.generate_vllm(**c, llm=llm) for c in calls]
        except ImportError:
            results = vllm_backend.run_in_vllm_env(calls)
        for rows in results:
            for r in rows:
                r["text"] = self.tokenizer.decode(r["token_ids"], skip_special_tokens=True)
        return results

