"""Where the source's own score and this project's verifier disagree, per label and benchmark.

Each sample with a source score is one of: both correct, ours only (our verifier says correct,
the source does not), theirs only, neither. A sample is correct for us at reward >= 1.0 (the
success threshold of pass@k, metrics.passk.PassKAccumulator), and for the source at
`source_score >= threshold`, 1.0 by default: the right cut for the 0/1 metrics these tools log
(lm-eval's exact_match and IFEval's prompt_level_strict_acc, verl's and TRL's binary rewards).
A graded source score (verl's format-shaped 0.1 / 1.0, lighteval's fractions) is correct only at
its maximum unless the entry sets another threshold (`agreement_threshold`). Samples without a
source score are not counted (lm-eval and lighteval score one response per document).
"""

from __future__ import annotations

import pandas as pd

CATEGORIES = ("both_correct", "ours_only", "theirs_only", "neither")
EXAMPLES = 5  # prompt ids listed per category
OUR_THRESHOLD = 1.0


def verifier_agreement(scores: pd.DataFrame, source_scores: pd.DataFrame, label: str, benchmark: str,
                       threshold: float = 1.0) -> pd.DataFrame:
    """One row: label, benchmark, compared (samples with both scores), the four counts, and per
    category `<category>_prompts`: up to EXAMPLES distinct prompt ids, sorted, ';'-joined.

    `scores`: the score job's rows (prompt_id, sample_idx, reward); `source_scores`: the import
    job's (prompt_id, sample_idx, source_score). A sample with a source score but no score of
    ours is an error (the two files come from one import)."""
    src = source_scores.dropna(subset=["source_score"])
    merged = src.merge(scores[["prompt_id", "sample_idx", "reward"]], on=["prompt_id", "sample_idx"], how="left")
    unscored = merged[merged["reward"].isna()]
    if len(unscored):
        first = unscored.iloc[0]
        raise ValueError(f"{len(unscored)} sample(s) with a source score have no score of ours, e.g. prompt "
                         f"{first['prompt_id']!r} sample {int(first['sample_idx'])}: were the scores made from another import?")
    ours = merged["reward"].to_numpy(float) >= OUR_THRESHOLD
    theirs = merged["source_score"].to_numpy(float) >= threshold
    masks = {"both_correct": ours & theirs, "ours_only": ours & ~theirs, "theirs_only": ~ours & theirs,
             "neither": ~ours & ~theirs}
    row: dict = {"label": label, "benchmark": benchmark, "compared": len(merged), "source_threshold": threshold}
    for cat in CATEGORIES:
        row[cat] = int(masks[cat].sum())
    for cat in CATEGORIES:
        ids = sorted(set(merged.loc[masks[cat], "prompt_id"]))
        row[f"{cat}_prompts"] = ";".join(ids[:EXAMPLES])
    return pd.DataFrame([row])
