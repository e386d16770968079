"""`python -m rlvr_support agreement-table`: where an imported source's own score and this
project's verifier disagree (both correct, ours only, theirs only, neither; a few prompt ids of
each), one row per label and benchmark (imports/agreement.py)."""

from __future__ import annotations

from rlvr_support.cli.tables import write_csv


def cmd_agreement_table(a):
    import pandas as pd

    from rlvr_support.imports.agreement import verifier_agreement
    from rlvr_support.storage.atomic import read_parquet, read_scores

    scores = read_scores(a.scores, columns=["prompt_id", "benchmark", "sample_idx", "reward"])
    source = read_parquet(a.source, columns=["prompt_id", "sample_idx", "source_score"])
    for col in ("prompt_id", "sample_idx", "source_score"):
        if col not in source.columns:
            raise ValueError(f"{a.source}: missing column {col!r} (is it an import-samples --out-source file?)")
    # one row per benchmark of the eval set (a datasets world's eval set may hold several)
    benchmarks = [a.benchmark] if a.benchmark else sorted(set(scores["benchmark"]))
    table = pd.concat([verifier_agreement(scores[scores["benchmark"] == b],
                                          source[source["prompt_id"].isin(scores.loc[scores["benchmark"] == b, "prompt_id"])],
                                          a.label, b, a.threshold) for b in benchmarks], ignore_index=True)
    write_csv(table, a.out, float_format=None)  # no Markdown twin: the rows are counts and prompt ids
    for r in table.itertuples():
        print(f"{a.label} {r.benchmark}: {r.compared} samples compared: both {r.both_correct}, ours only "
              f"{r.ours_only}, theirs only {r.theirs_only}, neither {r.neither}")


def register(verb) -> None:
    s = verb("agreement-table", cmd_agreement_table,
             "Compare an imported source's own scores with this project's verifier scores.")
    s.add_argument("--scores", required=True, help="the score job's file for the imported samples")
    s.add_argument("--source", required=True, help="import-samples' --out-source file")
    s.add_argument("--label", required=True, help="the import entry's label")
    s.add_argument("--benchmark", help="only this benchmark (default: one row per benchmark of the scores)")
    s.add_argument("--threshold", type=float, default=1.0,
                   help="a source score at or above it counts as correct (default 1.0: 0/1 metrics)")
    s.add_argument("--out", required=True, help="the table (.csv)")
