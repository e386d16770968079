"""Answer-level entropy, token-level entropy and response length per checkpoint and eval set.

Source: seeds/003 (The Invisible Leash), sec. 3.3: RLVR lowers answer-level entropy (fewer
distinct final answers per prompt) while token-level entropy may rise.  Per prompt:

* answer entropy (metrics.entropy.answer_entropy) over the n samples' answers: the scorer's
  ``extracted_answer`` for math and joint prompts (no answer = "NA"), and for IF prompts,
  which have no single answer, the whole response text normalised (lower case, single
  spaces) so that only textually identical responses count as the same answer;
* token entropy: mean over samples of the per-sample mean next-token entropy (the
  sampler's ``token_entropies``, eos position included);
* length: mean response length in tokens (``n_tokens``, eos included).

Table rows: chain x eval set x metric with the mean over seeds of the prompt mean, its CI
over prompts and seeds, and the paired difference checkpoint - base with its CI.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from rlvr_support.storage.atomic import read_parquet
from rlvr_support.metrics.bootstrap import bootstrap_ci_grouped
from rlvr_support.metrics.entropy import mean_per_prompt, per_prompt_answer_entropy, sample_token_entropy
from rlvr_support.analysis.resample import paired_grouped_diff
from rlvr_support.analysis.runs import by_chain, relation
from rlvr_support.analysis.scores import ScoreFile

METRICS = ("answer_entropy", "token_entropy", "length")


def normalise_text(text) -> str:
    return " ".join(str(text or "").lower().split())


def per_prompt_entropies(samples_path, scores_path) -> pd.DataFrame:
    """One row per prompt (sorted by id): answer_entropy, token_entropy, length."""
    samples = read_parquet(samples_path)
    scores = read_parquet(scores_path)
    df = samples.merge(scores[["prompt_id", "sample_idx", "task", "extracted_answer"]],
                       on=["prompt_id", "sample_idx"], how="inner", validate="one_to_one")
    if len(df) != len(samples):
        raise ValueError(f"{scores_path} does not score every sample of {samples_path}")
    task = df["task"].iloc[0]
    answers = ([normalise_text(t) for t in df["text"]] if task == "if"
               else [None if pd.isna(a) else a for a in df["extracted_answer"]])
    ids, h_ans = per_prompt_answer_entropy(df["prompt_id"].to_numpy(str), answers)
    ids2, h_tok = mean_per_prompt(df["prompt_id"].to_numpy(str), sample_token_entropy(list(df["token_entropies"])))
    ids3, length = mean_per_prompt(df["prompt_id"].to_numpy(str), df["n_tokens"].to_numpy(float))
    assert (ids == ids2).all() and (ids == ids3).all()
    return pd.DataFrame({"prompt_id": ids, "answer_entropy": h_ans, "token_entropy": h_tok, "length": length})


def entropy_table(samples: list[ScoreFile], scores: list[ScoreFile], *, n_boot: int, ci: float, seed: int
                  ) -> pd.DataFrame:
    """``samples``/``scores``: parsed paths of the same checkpoints and eval sets."""
    score_of = {(f.checkpoint, f.eval_set): f for f in scores}
    per: dict[tuple[str, str], list[pd.DataFrame]] = {}
    for (chain, eval_set), group in by_chain(samples).items():
        for f in group:
            s = score_of.get((f.checkpoint, f.eval_set))
            if s is None:
                raise ValueError(f"no scores for samples {f.path}")
            per.setdefault((chain, eval_set), []).append(per_prompt_entropies(f.path, s.path))
    rows = []
    for (chain, eval_set), tables in per.items():
        base = per.get(("base", eval_set))
        if base is None:
            raise ValueError(f"no base samples for eval set {eval_set!r}")
        for metric in METRICS:
            vals = [t[metric].to_numpy(float) for t in tables]
            ok = [v[~np.isnan(v)] for v in vals]
            point, low, high, spread = bootstrap_ci_grouped(ok, n_boot=n_boot, ci=ci, seed=seed)
            row = {"chain": chain, "eval_set": eval_set, "relation": relation(chain, eval_set) if chain != "base" else "",
                   "metric": metric, "n_seeds": len(tables), "n_prompts": len(tables[0]),
                   "mean": point, "ci_low": low, "ci_high": high, "seed_std": spread}
            if chain == "base":
                row.update(diff=0.0, diff_lo=0.0, diff_hi=0.0)
            else:
                for t in tables:
                    if list(t["prompt_id"]) != list(base[0]["prompt_id"]):
                        raise ValueError(f"{chain}/{eval_set}: prompts differ from the base's")
                d, dlo, dhi, _ = paired_grouped_diff(base[0][metric].to_numpy(float), vals, n_boot=n_boot, ci=ci, seed=seed)
                row.update(diff=d, diff_lo=dlo, diff_hi=dhi)
            rows.append(row)
    return pd.DataFrame(rows)
