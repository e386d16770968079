"""Perplexity of reference solutions under the base and each checkpoint.

Source: The Invisible Leash, sec. 4.3: RLVR policies give external reference
solutions a higher perplexity than the base does (they narrow towards their own modes).
In the toy world the references are the generator's canonical solutions of each eval math
problem in every style (toyworld.world.reference_solutions), i.e. text the base was
trained to produce.  Per (checkpoint, prompt, style): the summed negative log-likelihood
of the solution tokens plus eos, teacher-forced after the prompt (tokenised exactly as in
pretraining), and the token count; perplexity = exp(sum NLL / sum tokens) over prompts,
for each benchmark (the prompt's ``source``; in the toy world the one benchmark ``math``).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from rlvr_support.config.benchmarks import prompt_benchmark
from rlvr_support.metrics.bootstrap import bootstrap_ci_grouped
from rlvr_support.analysis.benchmarks import benchmark_column, split_benchmarks
from rlvr_support.probes.positional_js import choose_prompts
from rlvr_support.analysis.runs import chain_sort_key
from rlvr_support.analysis.resample import grouped_sum_bootstrap, paired_grouped_diff


def perplexity_run(model_path: str, prompts_path: str, *, count: int, seed: int, batch: int = 32,
                   threads: int = 1, gpus: int = 0, dtype: str = "auto") -> pd.DataFrame:
    """One row per (prompt, style): benchmark (the prompt's source), nll (summed, nats), n_tokens."""
    import torch

    from rlvr_support.storage.atomic import read_jsonl
    from rlvr_support.models.devices import model_devices, weights_dtype
    from rlvr_support.models.loading import load_policy
    from rlvr_support.data.toyworld.world import reference_solutions
    from rlvr_support.probes.teacher_forcing import response_logprobs

    torch.set_num_threads(threads)
    records = {r["id"]: r for r in read_jsonl(prompts_path) if r["split"] == "eval" and r["task"] == "math"}
    if not records:
        raise ValueError(f"{prompts_path}: no eval math prompts to take reference solutions from")
    (device,) = model_devices(gpus, 1)
    model, tok = load_policy(model_path, weights_dtype(dtype, device), device)
    items = []
    for pid in choose_prompts(records, count, seed):
        for style, text in reference_solutions(records[pid]).items():
            items.append((pid, style, tok(records[pid]["prompt"])["input_ids"],
                          tok(text, add_special_tokens=False)["input_ids"] + [tok.eos_token_id]))
    rows = []
    for start in range(0, len(items), batch):
        chunk = items[start:start + batch]
        lp, mask = response_logprobs(model, [c[2] for c in chunk], [c[3] for c in chunk], tok.pad_token_id)
        for i, (pid, style, _, r) in enumerate(chunk):
            tgt = torch.tensor(r, dtype=torch.long, device=lp.device)
            nll = -lp[i, :len(r)].gather(-1, tgt[:, None]).squeeze(-1).double().sum().item()
            rows.append({"prompt_id": pid, "benchmark": prompt_benchmark(records[pid]), "style": style,
                         "nll": nll, "n_tokens": len(r)})
    return pd.DataFrame(rows)


def _ppl(sums: np.ndarray) -> np.ndarray:
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        return np.exp(sums[..., :1] / sums[..., 1:2])


def perplexity_table(runs: dict[str, pd.DataFrame], *, n_boot: int, ci: float, seed: int, eval_set: str = "math"
                     ) -> pd.DataFrame:
    """``runs``: {checkpoint label ('base' or 'chain/seedK'): perplexity_run output}.

    Rows: chain x benchmark x style (and 'all' styles pooled): perplexity with CI over prompts
    and seeds, the mean per-token NLL, and the paired per-prompt NLL-per-token difference to the
    base. Runs without a `benchmark` column are one benchmark named like the eval set.
    """
    if "base" not in runs:
        raise ValueError("perplexity table needs the base policy's run")
    chains: dict[str, list[pd.DataFrame]] = {}
    for label, df in runs.items():
        chains.setdefault(label.rsplit("/seed", 1)[0], []).append(df)
    rows = []
    for bench, base_runs in split_benchmarks(runs["base"], eval_set).items():
        for chain, all_dfs in sorted(chains.items(), key=lambda kv: chain_sort_key(kv[0])):
            dfs = [df[benchmark_column(df, eval_set) == bench] for df in all_dfs]
            rows += _benchmark_rows(chain, dfs, base_runs, eval_set, bench, n_boot=n_boot, ci=ci, seed=seed)
    return pd.DataFrame(rows)


def _benchmark_rows(chain: str, dfs: list[pd.DataFrame], base_run: pd.DataFrame, eval_set: str, bench: str, *,
                    n_boot: int, ci: float, seed: int) -> list[dict]:
    """The rows of one chain on one benchmark: every style, then 'all' (styles pooled)."""
    rows = []
    for style in sorted(base_run["style"].unique()) + ["all"]:
        def sel(df):
            d = df if style == "all" else df[df["style"] == style]
            return d.groupby("prompt_id", sort=True)[["nll", "n_tokens"]].sum()
        per_seed = [sel(d) for d in dfs]
        base = sel(base_run)
        point, low, high, spread = grouped_sum_bootstrap([g.to_numpy(float) for g in per_seed], _ppl,
                                                         n_boot=n_boot, ci=ci, seed=seed)
        nll_tok = [(g["nll"] / g["n_tokens"]).to_numpy() for g in per_seed]
        m, _, _, _ = bootstrap_ci_grouped(nll_tok, n_boot=n_boot, ci=ci, seed=seed)
        d = paired_grouped_diff((base["nll"] / base["n_tokens"]).to_numpy(), nll_tok, n_boot=n_boot, ci=ci, seed=seed)
        rows.append({"chain": chain, "eval_set": eval_set, "benchmark": bench, "style": style,
                     "n_seeds": len(dfs), "n_prompts": len(base),
                     "perplexity": float(point[0]), "perplexity_lo": float(low[0]), "perplexity_hi": float(high[0]),
                     "nll_per_token": m, "nll_diff": d[0], "nll_diff_lo": d[1], "nll_diff_hi": d[2]})
    return rows
