"""Single-token interventions between the base and a checkpoint (the support-reshaping paper's single-token table).

`single_token_run` samples, for one checkpoint and one eval set's prompt subset, both directions of
sampling/single_token.py (recipient the checkpoint with the base as donor, and the other way round),
renders the texts and scores them like any sample. `single_token_table` turns the runs of every
checkpoint into one row per chain (RL seeds pooled), eval set, benchmark, recipient, condition and
position, with CIs over prompts and seeds (metrics/bootstrap.bootstrap_ci_grouped):

- `pass@1`, `best@k` (k = n, metrics/passk.best_at_k on graded rewards) and the opening-mode shares
  `DRI`, `DAI` (metrics/opening_modes.py, the rules of analysis.opening_modes);
- `best@k_diff`, `DAI_diff`: the condition minus the recipient's own samples, paired per prompt (the
  swapped samples share their prefix with the own ones);
- `best@k_fade` (swap rows): best@k after a swap at position 1 minus after a swap at this position,
  paired per prompt: how much more the first token moves than a later one;
- `swapped`: the share of samples that reached the position; `changed`: of those, the share whose
  forced token differs from the recipient's own.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from rlvr_support.analysis.benchmarks import split_benchmarks
from rlvr_support.analysis.scores import label_parts
from rlvr_support.metrics.bootstrap import bootstrap_ci_grouped
from rlvr_support.metrics.opening_modes import opening_modes
from rlvr_support.metrics.passk import best_at_k

RECIPIENTS = ("checkpoint", "base")


def single_token_run(model: str, base: str, prompts_path: str, *, cfg: dict, sampling: dict, scoring: dict,
                     threads: int = 1, dtype: str = "auto") -> pd.DataFrame:
    """Both directions for checkpoint `model` (manifest) and `base` on the prompts of `prompts_path`,
    scored: one row per sample (recipient, condition, position, prompt_id, benchmark, sample_idx, text,
    reward, swapped, changed)."""
    import torch

    from rlvr_support.config.benchmarks import prompt_benchmark
    from rlvr_support.models.loading import weights_id
    from rlvr_support.models.prompting import prompt_format, render
    from rlvr_support.sampling.jobs import eval_prompts, job_seed, sampler
    from rlvr_support.sampling.prompts import prompt_ids
    from rlvr_support.sampling.single_token import generate_single_token
    from rlvr_support.scoring.score import load_prompts, score_samples, scoring_options

    torch.set_num_threads(threads)
    prompts, by_id = eval_prompts(prompts_path), load_prompts(prompts_path)
    models = {"checkpoint": sampler(model, sampling, dtype=dtype), "base": sampler(base, sampling, dtype=dtype)}
    tok = models["checkpoint"].tokenizer
    if tok.get_vocab() != models["base"].tokenizer.get_vocab():
        raise ValueError(f"{model} and {base} have different tokenizers: a token of one is not a token of the other")
    eval_set = Path(prompts_path).stem
    frames = []
    for recipient, donor in (("checkpoint", "base"), ("base", "checkpoint")):
        r_path = model if recipient == "checkpoint" else base
        fmt = prompt_format(r_path)
        ids = prompt_ids(tok, render(tok, [p["prompt"] for p in prompts], fmt))
        # the same seed for both models of a direction; a new one for each checkpoint and eval set
        seed = job_seed(sampling["seed"], "single_token", weights_id(model), weights_id(base), recipient, eval_set)
        rows = generate_single_token(models[recipient], models[donor], ids, positions=cfg["positions"], n=cfg["n"],
                                     temperature=sampling["temperature"], top_p=sampling["top_p"],
                                     max_new_tokens=cfg["max_new_tokens"], seed=seed)
        df = pd.DataFrame(rows)
        df.insert(0, "recipient", recipient)
        df.insert(0, "eval_set", eval_set)
        df["prompt_id"] = [str(prompts[p]["id"]) for p in df["prompt_index"]]
        df["benchmark"] = [prompt_benchmark(prompts[p]) for p in df["prompt_index"]]
        df["text"] = [tok.decode(t, skip_special_tokens=True) for t in df["token_ids"]]
        df["reward"] = score_samples(df, by_id, **scoring_options(scoring))["reward"].to_numpy(float)
        df["changed"] = df["swapped"] & (df["forced_token"] != df["own_token"])
        for (c, t), g in df.groupby(["condition", "position"], sort=False):
            print(f"{recipient} <- {donor if c == 'swap' else c} @ {t}: reward {g['reward'].mean():.3f}, "
                  f"swapped {g['swapped'].mean():.2f}, changed {g['changed'].mean():.2f} ({models[recipient].backend})")
        frames.append(df.drop(columns=["prompt_index", "token_ids"]))
    return pd.concat(frames, ignore_index=True)


def per_prompt_values(df: pd.DataFrame, patterns: dict) -> pd.DataFrame:
    """One row per (recipient, condition, position, prompt): pass@1, best@k (k = the samples per
    prompt), DRI and DAI shares, swapped share and changed share (NaN where nothing was swapped)."""
    df = df.assign(mode=opening_modes(df["text"].tolist(), patterns))
    out = []
    for key, g in df.groupby(["recipient", "condition", "position", "prompt_id"], sort=False):
        r = g.sort_values("sample_idx")["reward"].to_numpy(float)
        swapped = g["swapped"].to_numpy(bool)
        out.append({**dict(zip(["recipient", "condition", "position", "prompt_id"], key)), "n": len(r),
                    "pass@1": float(r.mean()), "best@k": float(best_at_k(r[None, :], len(r))[0]),
                    "DRI": float((g["mode"] == "DRI").mean()), "DAI": float((g["mode"] == "DAI").mean()),
                    "swapped": float(swapped.mean()),
                    "changed": float(g["changed"][swapped].mean()) if swapped.any() else np.nan})
    return pd.DataFrame(out)


METRICS = ("pass@1", "best@k", "DRI", "DAI")


def single_token_table(runs: dict[str, pd.DataFrame], *, patterns: dict, n_boot: int, ci: float,
                       seed: int) -> pd.DataFrame:
    """`runs`: {checkpoint label (chain/seedK or an external name): its run, with an `eval_set`
    column}. One row per chain, eval set, benchmark, recipient, condition and position."""
    opts = dict(n_boot=n_boot, ci=ci, seed=seed)
    groups: dict[tuple, list[pd.DataFrame]] = {}
    for label, run in runs.items():
        chain, _ = label_parts(label)
        for eval_set, part in run.groupby("eval_set", sort=False):
            for bench, b in split_benchmarks(part, eval_set).items():
                groups.setdefault((chain, eval_set, bench), []).append(per_prompt_values(b, patterns))
    rows = []
    for (chain, eval_set, bench), per_seed in groups.items():
        prompts = sorted(per_seed[0]["prompt_id"].unique())
        if any(sorted(v["prompt_id"].unique()) != prompts for v in per_seed):
            raise ValueError(f"{chain}/{eval_set} [{bench}]: the seeds' runs have different prompts")

        def matrix(v, recipient, condition, position, col):
            sel = v[(v["recipient"] == recipient) & (v["condition"] == condition) & (v["position"] == position)]
            return sel.set_index("prompt_id")[col].reindex(prompts).to_numpy(float)

        conditions = per_seed[0][["recipient", "condition", "position"]].drop_duplicates()
        for recipient, condition, position in conditions.itertuples(index=False):
            donor = {"own": "", "top2": "self (top 2)"}.get(condition, "base" if recipient == "checkpoint" else chain)
            row = {"chain": chain, "eval_set": eval_set, "benchmark": bench,
                   "recipient": chain if recipient == "checkpoint" else "base", "donor": donor,
                   "condition": condition, "position": int(position), "n_seeds": len(per_seed),
                   "n_prompts": len(prompts), "n": int(per_seed[0]["n"].iloc[0])}
            for col in METRICS:
                row[col], row[f"{col}_lo"], row[f"{col}_hi"], _ = bootstrap_ci_grouped(
                    [matrix(v, recipient, condition, position, col) for v in per_seed], **opts)
            for col in ("swapped", "changed"):
                vals = np.concatenate([matrix(v, recipient, condition, position, col) for v in per_seed])
                row[col] = float(np.nanmean(vals)) if np.isfinite(vals).any() else np.nan
            for col in ("best@k", "DAI"):
                row[f"{col}_diff"], row[f"{col}_diff_lo"], row[f"{col}_diff_hi"] = _paired(
                    per_seed, lambda v: matrix(v, recipient, condition, position, col) - matrix(v, recipient, "own", 0, col),
                    opts)
            if condition == "swap":
                row["best@k_fade"], row["best@k_fade_lo"], row["best@k_fade_hi"] = _paired(
                    per_seed, lambda v: matrix(v, recipient, "swap", 1, "best@k")
                    - matrix(v, recipient, "swap", position, "best@k"), opts)
            rows.append(row)
    return pd.DataFrame(rows)


def _paired(per_seed: list[pd.DataFrame], diff, opts: dict) -> tuple[float, float, float]:
    ds = [d[~np.isnan(d)] for d in (diff(v) for v in per_seed)]
    if any(d.size == 0 for d in ds):
        return (np.nan,) * 3
    p, lo, hi, _ = bootstrap_ci_grouped(ds, **opts)
    return float(p), float(lo), float(hi)


def single_token_summary(table: pd.DataFrame) -> pd.DataFrame:
    """The Markdown view: per chain, eval set, benchmark, recipient and condition, best@k and DAI with
    their changes against the recipient's own samples."""
    keep = ["chain", "eval_set", "benchmark", "recipient", "donor", "condition", "position", "best@k", "best@k_lo",
            "best@k_hi", "best@k_diff", "best@k_diff_lo", "best@k_diff_hi", "DAI", "DAI_lo", "DAI_hi", "DAI_diff",
            "DAI_diff_lo", "DAI_diff_hi", "changed"]
    return table[keep]
