"""Opening intervention: force frequent openings and measure each model's success after them.

Source: the support-reshaping paper, "opening intervention": which opening a response starts with causally
changes math searchability, and RLVR mostly re-ranks openings the base already had.

1. Openings (first m tokens) are counted in every model's samples of the eval set (those
   that kept their token arrays, ``sampling.token_arrays``); each
   model's empirical distribution gets equal weight, and the ``top`` openings of that
   mixture are forced.
2. For a seeded subset of ``prompts`` eval prompts, each model continues ``prompt + opening``
   ``n`` times (the configured sampling backend, the study's temperature and top-p); the response is
   opening + continuation, scored by scoring.score_samples like any sample.
3. success(o) per model = mean reward over those continuations (searchability of o).
   Decomposition over the forced set O, with P_model(o) the model's own opening frequencies
   and covered = sum_{o in O} P(o):  decomposed = sum_o P(o) success(o) / covered, compared
   with the model's measured success on its own samples that open with some o in O (same
   prompts).  ``rerank_only`` = sum_o P_model(o) success_base(o) / covered: the success the
   base's continuations would give under the model's choice of openings; rerank_only minus
   the base's decomposed success isolates the re-ranking of openings.

The forced set and the prompt subset are drawn over the whole eval set; every table row is one
benchmark (the prompt's ``source``), with P_model(o) and the measured success read from the
model's own samples of that benchmark.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from rlvr_support.config.benchmarks import prompt_benchmark
from rlvr_support.storage.atomic import read_samples, read_scores
from rlvr_support.metrics.bootstrap import bootstrap_ci, bootstrap_ci_grouped, paired_bootstrap_diff
from rlvr_support.metrics.openings import opening_distribution, openings
from rlvr_support.analysis.benchmarks import benchmark_column, split_benchmarks, with_token_arrays
from rlvr_support.analysis.openings_table import key_str, token_rows
from rlvr_support.probes.positional_js import choose_per_benchmark
from rlvr_support.analysis.scores import label_parts


def top_openings(sample_tables: dict[str, pd.DataFrame], m: int, top: int) -> list[tuple[int, ...]]:
    """The ``top`` openings of the equal-weight mixture of every model's opening distribution
    (read from the samples with token arrays)."""
    mix: dict[tuple, float] = {}
    for df in sample_tables.values():
        dist = opening_distribution(openings(list(with_token_arrays(df)["token_ids"]), m))
        for o, p in zip(dist["opening"], dist["prob"]):
            mix[o] = mix.get(o, 0.0) + p / len(sample_tables)
    return [o for o, _ in sorted(mix.items(), key=lambda kv: (-kv[1], key_str(kv[0])))[:top]]


def intervention_run(models: dict[str, str], samples: dict[str, str], prompts_path: str, *, m: int, cfg: dict,
                     sampling: dict, scoring: dict, seed: int, threads: int = 1, dtype: str = "auto") -> pd.DataFrame:
    """Forced-opening continuations of every model, scored: one row per continuation.

    Each model continues `prompt ids + opening ids` (token-exact forcing, whatever the tokenizer
    would make of the concatenated text) through the `sampling` section's backend: the fast
    sampler on CPU, vLLM on GPUs; one request per forced opening, all sent at once.
    """
    import torch

    from rlvr_support.models.prompting import prompt_format, render
    from rlvr_support.sampling.backends import Request
    from rlvr_support.models.loading import weights_id
    from rlvr_support.sampling.jobs import job_seed, sampler
    from rlvr_support.sampling.prompts import prompt_ids
    from rlvr_support.scoring.score import load_prompts, score_samples, scoring_options

    torch.set_num_threads(threads)
    eval_set = Path(prompts_path).stem  # the benchmark of prompts without a `source`
    tables = {label: read_samples(p) for label, p in samples.items()}
    for label, p in samples.items():
        token_rows(tables[label], p, eval_set)
    forced = top_openings(tables, m, cfg["top"])
    prompts = load_prompts(prompts_path)
    chosen = choose_per_benchmark(tables["base"], cfg["prompts"], seed, eval_set)
    frames = []
    for label, manifest in models.items():
        policy = sampler(manifest, sampling, dtype=dtype)  # on the job's GPU when it has one
        tok = policy.tokenizer
        ids = prompt_ids(tok, render(tok, [prompts[p]["prompt"] for p in chosen], prompt_format(manifest)))
        weights = weights_id(manifest)  # once per model: without recorded checksums it hashes the weights
        requests = [Request([i + list(o) for i in ids], n=cfg["n"], temperature=sampling["temperature"],
                            top_p=sampling["top_p"], max_new_tokens=cfg["max_new_tokens"],
                            seed=job_seed(sampling["seed"], "intervention", weights, key_str(o)))
                    for o in forced]
        for o, rows in zip(forced, policy.generate_many(requests)):
            text_o = tok.decode(list(o), skip_special_tokens=True)
            df = pd.DataFrame({
                "prompt_id": [chosen[r["prompt_index"]] for r in rows],
                "benchmark": [prompt_benchmark(prompts[chosen[r["prompt_index"]]]) for r in rows],
                "sample_idx": [r["sample_idx"] for r in rows],
                "text": [tok.decode(list(o) + list(r["token_ids"]), skip_special_tokens=True) for r in rows],
            })
            scored = score_samples(df, prompts, **scoring_options(scoring))
            df["reward"] = scored["reward"].to_numpy(float)
            df.insert(0, "opening_text", text_o)
            df.insert(0, "opening", key_str(o))
            df.insert(0, "model", label)
            frames.append(df)
            print(f"{label} | {text_o!r}: success {df['reward'].mean():.3f} over {len(df)} continuations "
                  f"({policy.backend})")
    return pd.concat(frames, ignore_index=True)


def intervention_tables(run: pd.DataFrame, samples: dict[str, str], scores: dict[str, str], *, m: int,
                        n_boot: int, ci: float, seed: int) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(success per model, benchmark and forced opening;  decomposition per model and benchmark).

    A benchmark's rows use the run's continuations of its prompts and each model's own samples of
    it: opening frequencies from the samples with token arrays, measured success from every sample.
    Runs without a `benchmark` column are one benchmark named like the eval set (the samples' file name).
    """
    eval_set = Path(next(iter(samples.values()))).stem
    files: dict[str, pd.DataFrame] = {}

    def own(label: str, bench: str) -> tuple[pd.DataFrame, pd.DataFrame]:
        """(the model's samples of `bench` merged with their rewards, those with token arrays)."""
        if label not in files:
            sc = read_scores(scores[label])
            files[label] = read_samples(samples[label]).merge(sc[["prompt_id", "sample_idx", "reward"]],
                                                              on=["prompt_id", "sample_idx"])
        df = files[label]
        df = df[benchmark_column(df, eval_set) == bench]
        return df, token_rows(df, f"{samples[label]} [{bench}]", eval_set)

    per, dec = [], []
    for bench, part in split_benchmarks(run, eval_set).items():
        p, d = _benchmark_tables(part, bench, eval_set, own, m=m, n_boot=n_boot, ci=ci, seed=seed)
        per.append(p)
        dec.append(d)
    return pd.concat(per, ignore_index=True), pd.concat(dec, ignore_index=True)


def _benchmark_tables(run: pd.DataFrame, bench: str, eval_set: str, own, *, m: int, n_boot: int, ci: float,
                      seed: int) -> tuple[pd.DataFrame, pd.DataFrame]:
    forced = list(dict.fromkeys(run["opening"]))
    prompts = sorted(run["prompt_id"].unique())
    where = {"eval_set": eval_set, "benchmark": bench}
    # per model: (P_int, O) per-prompt success after each forced opening
    succ: dict[str, np.ndarray] = {}
    rows = []
    for label, g in run.groupby("model", sort=False):
        mat = (g.groupby(["prompt_id", "opening"])["reward"].mean().unstack("opening")
               .reindex(index=prompts, columns=forced).to_numpy(float))
        succ[label] = mat
        _, tok = own(label, bench)
        dist = opening_distribution([key_str(k) for k in openings(list(tok["token_ids"]), m)]).set_index("opening")
        chain, s = label_parts(label)
        for j, o in enumerate(forced):
            point, low, high = bootstrap_ci(mat[:, j], n_boot=n_boot, ci=ci, seed=seed)
            rows.append({"model": label, "chain": chain, "seed": s, **where, "opening": o,
                         "opening_text": g.loc[g["opening"] == o, "opening_text"].iloc[0],
                         "p_model": float(dist["prob"].get(o, 0.0)), "rank_model": dist["rank"].get(o, np.nan),
                         "success": point, "success_lo": low, "success_hi": high, "n_prompts": len(prompts)})
    per_opening = pd.DataFrame(rows)
    if "base" not in succ:
        raise ValueError(f"the intervention run has no base model rows for benchmark {bench!r}")
    weights = {label: per_opening[per_opening["model"] == label].set_index("opening")["p_model"].reindex(forced).to_numpy()
               for label in succ}
    dec, gains = [], {}
    for label, mat in succ.items():
        w = weights[label]
        covered = float(w.sum())
        chain, s = label_parts(label)
        row = {"model": label, "chain": chain, "seed": s, **where, "n_openings": len(forced), "covered": covered}
        every, tok = own(label, bench)
        every = every[every["prompt_id"].isin(prompts)]
        tok = tok[tok["prompt_id"].isin(prompts)]
        keys = np.array([key_str(k) for k in openings(list(tok["token_ids"]), m)], dtype=object)
        row["measured"] = float(every["reward"].mean())
        on = np.isin(keys, forced)
        row["measured_on_covered"] = float(tok["reward"][on].mean()) if on.any() else np.nan
        if covered > 0:
            wn = w / covered
            per_prompt = np.nan_to_num(mat) @ wn
            row["decomposed"], row["decomposed_lo"], row["decomposed_hi"] = bootstrap_ci(per_prompt, n_boot=n_boot, ci=ci, seed=seed)
            base_mat = np.nan_to_num(succ["base"])
            rerank = base_mat @ wn
            row["rerank_only"], row["rerank_only_lo"], row["rerank_only_hi"] = bootstrap_ci(rerank, n_boot=n_boot, ci=ci, seed=seed)
            wb = weights["base"] / weights["base"].sum() if weights["base"].sum() > 0 else np.zeros_like(wn)
            row["rerank_gain"], row["rerank_gain_lo"], row["rerank_gain_hi"] = paired_bootstrap_diff(
                base_mat @ wb, rerank, n_boot=n_boot, ci=ci, seed=seed)
            gains.setdefault(chain, []).append(rerank - base_mat @ wb)
        dec.append(row)
    for chain, per_seed in gains.items():  # seeds pooled: CI over prompts and seeds
        if chain != "base" and len(per_seed) > 1:
            p, lo, hi, _ = bootstrap_ci_grouped(per_seed, n_boot=n_boot, ci=ci, seed=seed)
            dec.append({"model": f"{chain}/pooled", "chain": chain, "seed": None, **where, "n_openings": len(forced),
                        "rerank_gain": p, "rerank_gain_lo": lo, "rerank_gain_hi": hi})
    dec = pd.DataFrame(dec)
    dec["seed"] = dec["seed"].astype("Int64")  # an RL seed, blank for the base and pooled rows (not 0.000000)
    return per_opening, dec
