"""Answer-level entropy, token-level entropy and response length per checkpoint and eval set.

Source: The Invisible Leash, sec. 3.3: RLVR lowers answer-level entropy (fewer
distinct final answers per prompt) while token-level entropy may rise.  Per prompt:

* answer entropy (metrics.entropy.answer_entropy) over the n samples' answers: the scorer's
  ``extracted_answer`` for math and joint prompts (no answer = "NA"), and for IF prompts,
  which have no single answer, the whole response text normalised (lower case, single
  spaces) so that only textually identical responses count as the same answer;
* token entropy: mean over samples of the per-sample mean next-token entropy (the
  sampler's ``token_entropies``, eos position included), over the samples that kept their
  token arrays (``sampling.token_arrays``); how the sampler computed them (``entropy_topk``:
  exact, or vLLM's lower bound from the top-K log-probs) is the ``token_entropy_method``
  column and a note under the Markdown table;
* length: mean response length in tokens (``n_tokens``, eos included), every sample.

Samples imported from another tool without token ids (imports/) get answer entropy only: their
token entropy and length rows are left out, not reported as zero.

Table rows: chain x eval set x benchmark x metric with the mean over seeds of the prompt
mean, its CI over prompts and seeds, and the paired difference checkpoint - base with its CI.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from rlvr_support.storage.atomic import read_samples, read_scores
from rlvr_support.analysis.benchmarks import split_benchmarks, with_token_arrays
from rlvr_support.analysis.markdown import df_to_markdown
from rlvr_support.metrics.bootstrap import bootstrap_ci_grouped
from rlvr_support.metrics.entropy import mean_per_prompt, per_prompt_answer_entropy, sample_token_entropy
from rlvr_support.analysis.resample import paired_grouped_diff
from rlvr_support.analysis.runs import by_chain, relation
from rlvr_support.analysis.scores import ScoreFile

METRICS = ("answer_entropy", "token_entropy", "length")


def normalise_text(text) -> str:
    return " ".join(str(text or "").lower().split())


def token_entropy_method(entropy_topk) -> str:
    """How the sampler computed `token_entropies`, from its `entropy_topk` values: 0 (HF and fast
    backends) and -1 (vLLM over the whole vocabulary) are exact; K > 0 is vLLM's -sum p log p over
    the K most likely tokens only, a lower bound. Several values are joined with ` + `."""
    ks = sorted({int(k) for k in entropy_topk})
    return " + ".join(dict.fromkeys("exact" if k <= 0 else f"top-{k} lower bound (vLLM)" for k in ks))


def sample_answers(df: pd.DataFrame) -> list:
    """The answer of each sample (columns task, text, extracted_answer): the extracted answer of a
    math or joint sample (None: no answer), the normalised text of an IF response."""
    if df["task"].iloc[0] == "if":
        return [normalise_text(t) for t in df["text"]]
    return [None if pd.isna(a) else a for a in df["extracted_answer"]]


def per_prompt_entropies(samples_path, scores_path) -> pd.DataFrame:
    """One row per prompt (benchmarks in the prompts' order, ids sorted within each): benchmark,
    prompt_id, answer_entropy, token_entropy, length, entropy_topk.

    Answer entropy and length read every sample; token entropy only the samples with token arrays.
    """
    samples = read_samples(samples_path)
    scores = read_scores(scores_path)
    df = samples.merge(scores[["prompt_id", "sample_idx", "task", "extracted_answer"]],
                       on=["prompt_id", "sample_idx"], how="inner", validate="one_to_one")
    if len(df) != len(samples):
        raise ValueError(f"{scores_path} does not score every sample of {samples_path}")
    df["answer"] = sample_answers(df)
    if "entropy_topk" not in df.columns:
        df["entropy_topk"] = 0  # files from before the column: hf / fast backends, exact
    out = []
    for bench, part in split_benchmarks(df, Path(samples_path).stem).items():
        # samples imported from another tool (imports/) may come without token ids, or with ids but no
        # entropies (vLLM's logprobs): answer entropy only, their token entropy NaN (no row in the table)
        arrays = with_token_arrays(part)
        arrays = arrays[[h is not None for h in arrays["token_entropies"]]] if len(arrays) else arrays
        ids, h_ans = per_prompt_answer_entropy(part["prompt_id"].to_numpy(str), list(part["answer"]))
        ids2, length = mean_per_prompt(part["prompt_id"].to_numpy(str), part["n_tokens"].to_numpy(float))
        tok_ids, h_tok = mean_per_prompt(arrays["prompt_id"].to_numpy(str),
                                         sample_token_entropy(list(arrays["token_entropies"])))
        assert (ids == ids2).all()
        topk = arrays.groupby("prompt_id")["entropy_topk"].first() if len(arrays) else pd.Series([0])
        out.append(pd.DataFrame({
            "benchmark": bench, "prompt_id": ids, "answer_entropy": h_ans,
            "token_entropy": pd.Series(h_tok, index=tok_ids).reindex(ids).to_numpy(float), "length": length,
            "entropy_topk": topk.reindex(ids).fillna(int(topk.iloc[0])).to_numpy(int)}))
    return pd.concat(out, ignore_index=True)


def entropy_table(samples: list[ScoreFile], scores: list[ScoreFile], *, n_boot: int, ci: float, seed: int
                  ) -> pd.DataFrame:
    """``samples``/``scores``: parsed paths of the same checkpoints and eval sets; rows per benchmark."""
    score_of = {(f.checkpoint, f.eval_set): f for f in scores}
    per: dict[tuple[str, str, str], list[pd.DataFrame]] = {}
    for (chain, eval_set), group in by_chain(samples).items():
        for f in group:
            s = score_of.get((f.checkpoint, f.eval_set))
            if s is None:
                raise ValueError(f"no scores for samples {f.path}")
            for bench, t in per_prompt_entropies(f.path, s.path).groupby("benchmark", sort=False):
                per.setdefault((chain, eval_set, bench), []).append(t.reset_index(drop=True))
    rows = []
    for (chain, eval_set, bench), tables in per.items():
        base = per.get(("base", eval_set, bench))
        if base is None:
            raise ValueError(f"no base samples for eval set {eval_set!r}, benchmark {bench!r}")
        topk = pd.concat([t.loc[t["token_entropy"].notna(), "entropy_topk"] for t in tables])
        for metric in METRICS:
            vals = [t[metric].to_numpy(float) for t in tables]
            if all(np.isnan(v).all() for v in vals):
                continue  # an imported label without token counts or arrays: answer entropy only
            ok = [v[~np.isnan(v)] for v in vals]
            point, low, high, spread = bootstrap_ci_grouped(ok, n_boot=n_boot, ci=ci, seed=seed)
            row = {"chain": chain, "eval_set": eval_set, "benchmark": bench,
                   "relation": relation(chain, eval_set) if chain != "base" else "",
                   "metric": metric, "n_seeds": len(tables), "n_prompts": len(tables[0]),
                   "mean": point, "ci_low": low, "ci_high": high, "seed_std": spread}
            if chain == "base":
                row.update(diff=0.0, diff_lo=0.0, diff_hi=0.0)
            else:
                for t in tables:
                    if list(t["prompt_id"]) != list(base[0]["prompt_id"]):
                        raise ValueError(f"{chain}/{eval_set} [{bench}]: prompts differ from the base's")
                d, dlo, dhi, _ = paired_grouped_diff(base[0][metric].to_numpy(float), vals, n_boot=n_boot, ci=ci, seed=seed)
                row.update(diff=d, diff_lo=dlo, diff_hi=dhi)
            row["token_entropy_method"] = token_entropy_method(topk)
            rows.append(row)
    return pd.DataFrame(rows)


def entropy_markdown(table: pd.DataFrame, digits: int = 4) -> str:
    """The table as Markdown with a note under it saying how its token entropies were computed,
    so that a lower bound is stated where it is used."""
    groups = table.drop_duplicates(["chain", "eval_set", "benchmark"])
    methods = list(dict.fromkeys(groups["token_entropy_method"]))
    if len(methods) == 1:
        note = f"Note: token_entropy is {methods[0]} in every row."
    else:
        note = "Note: token_entropy is " + "; ".join(
            f"{m} for " + ", ".join(f"{r.chain}/{r.eval_set}/{r.benchmark}"
                                    for r in groups[groups["token_entropy_method"] == m].itertuples())
            for m in methods) + "."
    if any("lower bound" in m for m in methods):
        note += (" A top-K lower bound sums -p log p over the K most likely tokens only (vLLM returns no"
                 " more), so it understates the entropy, and a difference to an exact base mixes both.")
    return df_to_markdown(table, digits) + "\n" + note + "\n"
