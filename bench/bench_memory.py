"""Peak memory of `score` and `sample-merge` on sample files with long per-token arrays.

Each case runs in its own child process and reports its max RSS (from wait4); the inputs are
written by another child, because a child's max RSS starts at its parent's RSS when it is
spawned (Linux carries the high-water mark across fork and exec), so this parent stays small
(no numpy, no pandas). Inputs: S shard
files of toy math samples, each with `--tokens` token ids, log-probs and entropies (as
`sampling.token_arrays` keeps them), at two sizes. The baselines, measured in the same run, are
the code as it was before issue 18: `sample-merge` read every shard whole into pandas and wrote
their concatenation; `score` read the whole samples file, every column. Now merging streams the
shards batch by batch into the samples file's row groups (sampling/samples_file.py), and its
output is checked byte for byte against one job writing all the rows at once (`reference`, in
memory, outside the measured cases); scoring reads only its three columns, batch by batch.

    .venv/bin/python bench/bench_memory.py [--sizes 2000 20000] [--tokens 1024] [--shards 4] [--cases merge score]
"""

from __future__ import annotations

import argparse
import filecmp
import json
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from run import run_child  # noqa: E402  (bench/run.py: a child's stdout, wall time and peak RSS)

PROMPTS = 500
SAMPLES_PER_PROMPT = 8


def write_inputs(work: Path, n: int, tokens: int, shards: int) -> None:
    """`shard<s>.parquet` files holding n samples (whole prompts per shard), and `prompts.jsonl`."""
    import numpy as np
    import pandas as pd

    from rlvr_support.sampling.samples_file import SAMPLE_COLUMNS, write_sample_frame

    rng = np.random.default_rng(0)
    prompts = work / "prompts.jsonl"
    n_prompts = n // SAMPLES_PER_PROMPT
    with prompts.open("w") as f:
        for p in range(n_prompts):
            f.write(json.dumps({"id": f"m{p}", "task": "math", "prompt": f"{p} + {p} ?", "answer": str(2 * p)}) + "\n")
    per = n_prompts // shards
    for s in range(shards):
        lo, hi = s * per * SAMPLES_PER_PROMPT, (n_prompts if s == shards - 1 else (s + 1) * per) * SAMPLES_PER_PROMPT
        m = hi - lo
        ids = [f"m{i // SAMPLES_PER_PROMPT}" for i in range(lo, hi)]
        # about `tokens` tokens of text per sample, like the arrays beside it
        text = [("step : 2 * 3 = 6 ; " * (tokens // 10)) + f"answer : {2 * (i // SAMPLES_PER_PROMPT) + int(rng.integers(0, 2))}"
                for i in range(lo, hi)]
        df = pd.DataFrame({"prompt_id": ids, "benchmark": "math", "sample_idx": [i % SAMPLES_PER_PROMPT for i in range(lo, hi)],
                           "text": text, "n_tokens": tokens, "finish_reason": "length", "has_token_arrays": True,
                           "token_ids": list(rng.integers(0, 50_000, (m, tokens))),
                           "token_logprobs": list(-rng.random((m, tokens)) * 5),
                           "token_entropies": list(rng.random((m, tokens)) * 3), "entropy_topk": 0})
        path = work / f"shard{s}.parquet"
        write_sample_frame(path, df[SAMPLE_COLUMNS])  # as a sample job writes its shard


def merge_whole_files(shard_files: list[str], out: str) -> None:
    """The baseline: sampling.jobs.merge_shards before issue 18 (every shard whole, in pandas)."""
    import pandas as pd

    from rlvr_support.sampling.samples_file import SAMPLE_COLUMNS, write_sample_frame
    from rlvr_support.storage.atomic import read_parquet, write_parquet

    write_parquet(out, pd.concat([read_parquet(f) for f in shard_files], ignore_index=True)[SAMPLE_COLUMNS])


def job_reference(shard_files: list[str], out: str) -> None:
    """What one (unsharded) sample job writes for the shards' rows: the file the merge must equal."""
    import pandas as pd

    from rlvr_support.sampling.samples_file import write_sample_frame
    from rlvr_support.storage.atomic import read_parquet

    write_sample_frame(out, pd.concat([read_parquet(f) for f in shard_files], ignore_index=True))


def score_whole_file(samples: str, prompts: str, out: str) -> None:
    """The baseline: the `score` verb before issue 18 (the whole samples file, every column)."""
    from rlvr_support.scoring.score import load_prompts, score_samples
    from rlvr_support.storage.atomic import read_parquet, write_parquet

    write_parquet(out, score_samples(read_parquet(samples), load_prompts(prompts)))


def child(a) -> None:
    if a.child == "inputs":
        write_inputs(Path(a.out), a.n, a.tokens, a.shards)
    elif a.child == "reference":
        job_reference(a.shards_in, a.out)
    elif a.child == "merge-old":
        merge_whole_files(a.shards_in, a.out)
    elif a.child == "score-old":
        score_whole_file(a.samples, a.prompts, a.out)
    else:
        from rlvr_support.cli.main import main

        cfg = '{"reasoning":"none","timeout_s":1.0,"workers":1}'
        argv = (["sample-merge", "--shards", *a.shards_in, "--out", a.out] if a.child == "merge-new" else
                ["score", "--samples", a.samples, "--prompts", a.prompts, "--cfg", cfg, "--out", a.out])
        if main(argv):
            raise SystemExit(1)
    print("ok")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", type=int, nargs=2, default=[2000, 20000])
    ap.add_argument("--tokens", type=int, default=1024)
    ap.add_argument("--shards", type=int, default=4)
    ap.add_argument("--cases", nargs="+", choices=["merge", "score"], default=["merge", "score"])
    ap.add_argument("--child", choices=["inputs", "reference", "merge-old", "merge-new", "score-old", "score-new"])
    ap.add_argument("--n", type=int)
    ap.add_argument("--shards-in", nargs="+")
    ap.add_argument("--samples")
    ap.add_argument("--prompts")
    ap.add_argument("--out")
    a = ap.parse_args()
    if a.child:
        return child(a)
    me = [sys.executable, __file__]
    rss: dict[tuple[str, int], float] = {}
    file_mib = {}
    for n in a.sizes:
        with tempfile.TemporaryDirectory(prefix="bench-memory-") as work:
            work = Path(work)
            run_child(me + ["--child", "inputs", "--n", str(n), "--tokens", str(a.tokens), "--shards", str(a.shards),
                            "--out", str(work)])
            shards, prompts = [str(work / f"shard{s}.parquet") for s in range(a.shards)], work / "prompts.jsonl"
            merged = {}
            for mode in ("old", "new"):
                merged[mode] = work / f"merged-{mode}.parquet"
                _, _, rss[(f"merge-{mode}", n)] = run_child(me + ["--child", f"merge-{mode}", "--shards-in", *shards,
                                                                   "--out", str(merged[mode])])
            if "merge" in a.cases:
                reference = work / "reference.parquet"
                run_child(me + ["--child", "reference", "--shards-in", *shards, "--out", str(reference)])
                # in chunks: this parent stays small
                if not filecmp.cmp(reference, merged["new"], shallow=False):
                    raise SystemExit(f"n={n}: the merged file differs from the one job's file of the same rows")
            file_mib[n] = merged["new"].stat().st_size / 2**20
            if "score" not in a.cases:
                continue
            scores = {}
            for mode in ("old", "new"):
                scores[mode] = work / f"scores-{mode}.parquet"
                _, _, rss[(f"score-{mode}", n)] = run_child(me + ["--child", f"score-{mode}", "--samples", str(merged["new"]),
                                                                   "--prompts", str(prompts), "--out", str(scores[mode])])
            if not filecmp.cmp(scores["old"], scores["new"], shallow=False):
                raise SystemExit(f"n={n}: the scores differ from the baseline's")
    small, large = a.sizes
    print(f"{a.shards} shards; samples of {a.tokens} tokens with token ids, log-probs and entropies; merged file "
          f"{file_mib[small]:,.0f} MiB at {small:,} samples, {file_mib[large]:,.0f} MiB at {large:,}. The merged file "
          "byte-identical to one job's at both sizes"
          + (", the scores to the baseline's." if "score" in a.cases else "."))
    print()
    print(f"| case | peak RSS at {small:,} (MiB) | peak RSS at {large:,} (MiB) | growth (MiB) | new / old at {large:,} |")
    print("|---|---:|---:|---:|---:|")
    for op, label in (("merge", "sample-merge"), ("score", "score")):
        if op not in a.cases:
            continue
        for mode, what in (("old", "before (whole files, pandas)"), ("new", "now")):
            lo, hi = rss[(f"{op}-{mode}", small)], rss[(f"{op}-{mode}", large)]
            ratio = hi / rss[(f"{op}-old", large)]
            print(f"| {label}, {what} | {lo:,.0f} | {hi:,.0f} | {hi - lo:,.0f} | {ratio:.2f} |")


if __name__ == "__main__":
    main()
