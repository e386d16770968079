"""Position-wise JS divergence between the base and a checkpoint on the same prefixes.

Source: Verifier-Induced Support Reshaping: the shift RLVR makes sits in the
first response tokens.  For a subset of eval prompts (``prompts``, drawn with the analysis
seed, the same subset for every checkpoint) and their first ``samples_per_prompt``
samples with token arrays (``sampling.token_arrays``), both policies are run teacher-forced over the same token sequence and
JS(base_t || ckpt_t) (metrics.divergence.js_divergence, nats) is recorded at response
positions t < ``max_positions``.  Prefixes come from the base's samples (``source=base``)
and from the checkpoint's own samples (``source=ckpt``), reported separately: on base
prefixes the question is how the checkpoint would continue the base's text; on its own
prefixes, how far the base is from what the checkpoint actually does.

Aggregation: the mean JS at position t pools every sequence with a token there; its CI,
the share of the summed curve in the first m positions (metrics.divergence.share_in_first_m)
and the mean JS in the first m positions minus the mean after them come from one
bootstrap over prompts and seeds on per-prompt (sum JS, count) by position, for each
benchmark of the eval set (run rows carry their prompt's ``benchmark``, its ``source``).
"""

from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
import pandas as pd

from rlvr_support.config.benchmarks import prompt_benchmark
from rlvr_support.storage.atomic import read_samples
from rlvr_support.metrics.divergence import js_divergence
from rlvr_support.analysis.benchmarks import benchmark_column, split_benchmarks, with_token_arrays
from rlvr_support.analysis.resample import grouped_sum_bootstrap
from rlvr_support.analysis.js_sums import per_seed_sums
from rlvr_support.analysis.runs import relation
from rlvr_support.analysis.scores import ScoreFile


def choose_prompts(prompt_ids, count: int, seed: int) -> list[str]:
    """A seeded subset of ``count`` prompt ids (all when count >= their number), sorted."""
    ids = sorted(set(str(p) for p in prompt_ids))
    if count >= len(ids):
        return ids
    rng = np.random.default_rng(seed)
    return sorted(rng.choice(ids, size=count, replace=False).tolist())


def choose_per_benchmark(samples: pd.DataFrame, count: int, seed: int, eval_set: str) -> list[str]:
    """`count` prompts of each benchmark of `samples` (choose_prompts within each), benchmarks in
    order: a 30-problem benchmark beside a 500-problem one still gets its own subsample."""
    return [p for part in split_benchmarks(samples, eval_set).values()
            for p in choose_prompts(part["prompt_id"], count, seed)]


def select_samples(samples: pd.DataFrame, prompt_ids: list[str], per_prompt: int) -> pd.DataFrame:
    """The first `per_prompt` samples with token arrays (the prefixes) of each of `prompt_ids`."""
    chosen = samples[samples["prompt_id"].isin(prompt_ids)]
    s = with_token_arrays(chosen).sort_values(["prompt_id", "sample_idx"], kind="stable")
    bare = sorted(set(chosen["prompt_id"]) - set(s["prompt_id"]))
    if bare:
        benches = sorted(set(benchmark_column(chosen[chosen["prompt_id"].isin(bare)], "?")))
        raise ValueError(f"prompts {bare[:5]} (benchmark {', '.join(benches)}) have no sample with token arrays, "
                         "which teacher-forced JS needs as prefixes")
    return s.groupby("prompt_id", sort=True).head(per_prompt).reset_index(drop=True)


def positional_js_run(base_model: str, ckpt_model: str, base_samples: str, ckpt_samples: str,
                      prompts_path: str, cfg: dict, seed: int, threads: int = 1, gpus: int = 0,
                      dtype: str = "auto") -> pd.DataFrame:
    """Long table: source, prompt_id, sample_idx, position, js (one row per real response token)."""
    return positional_js_runs(base_model, ckpt_model, [(base_samples, ckpt_samples, prompts_path)], cfg, seed,
                              threads, gpus, dtype)[0]


def positional_js_runs(base_model: str, ckpt_model: str, sets: list[tuple[str, str, str]], cfg: dict, seed: int,
                       threads: int = 1, gpus: int = 0, dtype: str = "auto") -> list[pd.DataFrame]:
    """positional_js_run for each (base samples, checkpoint samples, prompts) of `sets`, loading both models once.

    On GPUs (`gpus` > 0) the two models sit on one GPU, or on two when the job has two
    (models.devices.model_devices), in `dtype` (auto: bfloat16); the JS of each batch is
    computed on the base's GPU, and only the (B, T) divergences come back to the CPU."""
    import torch

    from rlvr_support.models.devices import model_devices, weights_dtype
    from rlvr_support.models.loading import load_policy
    from rlvr_support.models.prompting import prompt_format

    torch.set_num_threads(threads)
    dev_b, dev_c = model_devices(gpus, 2)
    base, tok = load_policy(base_model, weights_dtype(dtype, dev_b), dev_b)
    ckpt, tok_c = load_policy(ckpt_model, weights_dtype(dtype, dev_c), dev_c)
    print(f"base on {dev_b}, checkpoint on {dev_c}, weights {base.dtype}", flush=True)
    if tok.get_vocab() != tok_c.get_vocab():
        raise ValueError(f"{ckpt_model} and {base_model} use different tokenizers: JS needs one vocabulary")
    fmt = prompt_format(ckpt_model)
    return [_js_one_set(base, ckpt, tok, fmt, b, c, p, cfg, seed) for b, c, p in sets]


def _js_one_set(base, ckpt, tok, fmt: str, base_samples: str, ckpt_samples: str, prompts_path: str, cfg: dict,
                seed: int) -> pd.DataFrame:
    from rlvr_support.storage.atomic import read_jsonl
    from rlvr_support.models.prompting import render
    from rlvr_support.probes.teacher_forcing import response_ids, response_logprobs

    # the prompt as the samples were drawn from it (a chat model's template included)
    records = [r for r in read_jsonl(prompts_path) if r["split"] == "eval"]
    rendered = render(tok, [r["prompt"] for r in records], fmt)
    prompt_text = {r["id"]: text for r, text in zip(records, rendered)}
    benchmark = {r["id"]: prompt_benchmark(r) for r in records}
    frames = []
    subsets = {src: read_samples(p) for src, p in (("base", base_samples), ("ckpt", ckpt_samples))}
    chosen = choose_per_benchmark(subsets["base"], cfg["prompts"], seed, Path(prompts_path).stem)
    T, batch = cfg["max_positions"], cfg["batch"]
    for source, samples in subsets.items():
        sel = select_samples(samples, chosen, cfg["samples_per_prompt"])
        missing = set(sel["prompt_id"]) - set(prompt_text)
        if missing:
            raise ValueError(f"{prompts_path}: no eval prompt for ids {sorted(missing)[:5]}")
        p_ids = [tok(prompt_text[p])["input_ids"] for p in sel["prompt_id"]]
        r_ids = [response_ids(t, f, tok.eos_token_id)[:T] for t, f in zip(sel["token_ids"], sel["finish_reason"])]
        for start in range(0, len(sel), batch):
            sl = slice(start, start + batch)
            lp_b, mask = response_logprobs(base, p_ids[sl], r_ids[sl], tok.pad_token_id)
            lp_c, _ = response_logprobs(ckpt, p_ids[sl], r_ids[sl], tok.pad_token_id)
            js = js_divergence(lp_b, lp_c.to(lp_b.device), axis=-1).double().cpu().numpy()
            b, t = np.nonzero(mask.cpu().numpy())
            frames.append(pd.DataFrame({
                "source": source, "benchmark": [benchmark[p] for p in sel["prompt_id"].to_numpy()[sl][b]],
                "prompt_id": sel["prompt_id"].to_numpy()[sl][b],
                "sample_idx": sel["sample_idx"].to_numpy()[sl][b].astype(np.int64),
                "position": t.astype(np.int64), "js": js[b, t]}))
        print(f"{source} prefixes: {len(sel)} sequences from {sel['prompt_id'].nunique()} prompts")
    return pd.concat(frames, ignore_index=True)


def _curve_stats(m: int, T: int):
    def fn(sums: np.ndarray) -> np.ndarray:
        js, cnt = sums[..., :T], sums[..., T:]
        with np.errstate(invalid="ignore", divide="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)  # all-NaN slices give NaN, as intended
            curve = np.where(cnt > 0, js / cnt, np.nan)
            total = np.nansum(curve, axis=-1)
            share = np.where(total > 0, np.nansum(curve[..., :m], axis=-1) / total, np.nan)
            early = np.nanmean(curve[..., :m], axis=-1)
            late = np.nanmean(curve[..., m:], axis=-1) if T > m else np.full(curve.shape[:-1], np.nan)
        return np.concatenate([curve, share[..., None], early[..., None], late[..., None],
                               (early - late)[..., None]], axis=-1)
    return fn


def js_tables(files: list[ScoreFile], *, m: int, n_boot: int, ci: float, seed: int
              ) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(by position: chain, eval_set, benchmark, source, position, js, ci, n_tokens;  summary: share in
    first m, early - late), per benchmark (a run's `benchmark` column; runs without it: the eval set)."""
    pos_rows, sum_rows = [], []
    for chain, eval_set, bench, T, source, per_seed in per_seed_sums(files):
        point, low, high, spread = grouped_sum_bootstrap(per_seed, _curve_stats(m, T), n_boot=n_boot, ci=ci,
                                                         seed=seed)
        counts = np.sum([x[:, T:].sum(0) for x in per_seed], axis=0)
        for t in range(T):
            pos_rows.append({"chain": chain, "eval_set": eval_set, "benchmark": bench, "source": source,
                             "position": t, "js": point[t], "ci_low": low[t], "ci_high": high[t],
                             "n_tokens": int(counts[t])})
        row = {"chain": chain, "eval_set": eval_set, "benchmark": bench, "relation": relation(chain, eval_set),
               "source": source, "m": m, "n_positions": T, "n_seeds": len(per_seed),
               "n_prompts": int(per_seed[0].shape[0])}
        for j, name in enumerate(("share_first_m", "js_first_m", "js_after_m", "early_minus_late")):
            row[name], row[f"{name}_lo"], row[f"{name}_hi"] = point[T + j], low[T + j], high[T + j]
        row["uniform_share"] = min(m, T) / T  # the share if divergence were spread evenly over positions
        sum_rows.append(row)
    return pd.DataFrame(pos_rows), pd.DataFrame(sum_rows)
