"""Benchmark of importing samples (imports/import_job.py) against pandas reading the same file.

Run: ``python bench/bench_imports.py [--prompts 1000] [--samples 1000] [--chars 2000]`` (``--quick``:
20 x 50, to check that it runs). Prints a markdown table to stdout; its files live in a temp folder.

The file is an lm-evaluation-harness samples file (formats/lm_eval.py's layout: one line per
document, its `repeats` responses in `resps`), P prompts x n responses of about `--chars`
characters each (words drawn from a fixed vocabulary, so the text compresses like prose, not
like one repeated string). Two child processes, each timed on its own and with its own peak RSS
(wait4's max RSS; a parent's high-water mark is not carried into them, since this parent holds
no big data): `import_entry` writing the samples file, prompts and source scores, and
`pandas.read_json(path, lines=True)`, which only parses into memory. The ratio is samples/s of
the import over samples/s of pandas.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
VOCAB_SEED = 0


def write_source(path: Path, prompts: int, samples: int, chars: int) -> int:
    """The lm-eval file (module doc); returns its size in bytes."""
    rng = random.Random(VOCAB_SEED)
    vocab = ["".join(rng.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(rng.randint(2, 9))) for _ in range(5000)]
    pool = []
    for _ in range(4096):  # distinct response bodies, reused with a per-sample answer line
        words, size = [], 0
        while size < chars - 40:
            w = rng.choice(vocab)
            words.append(w)
            size += len(w) + 1
        pool.append(" ".join(words))
    with open(path, "w") as f:
        for d in range(prompts):
            resps = [f"{pool[(d * samples + j) % len(pool)]} so the answer is \\boxed{{{(d + j) % 7}}}"
                     for j in range(samples)]
            f.write(json.dumps({
                "doc_id": d, "doc": {"question": f"question {d}", "answer": str(d % 7)}, "target": str(d % 7),
                "arguments": {"gen_args_0": {"arg_0": f"Question {d}: what is it?\nAnswer:", "arg_1": {"until": []}}},
                "resps": [resps], "filtered_resps": [resps[0]], "filter": "none", "metrics": ["exact_match"],
                "doc_hash": "0", "prompt_hash": "0", "target_hash": "0", "exact_match": float(d % 2)}) + "\n")
    return path.stat().st_size


def child_import(path: str, out: str) -> None:
    from rlvr_support.imports.import_job import import_entry

    t0 = time.perf_counter()
    s = import_entry({"format": "lm_eval", "benchmark": "bench", "task": "math"}, [path],
                     f"{out}/samples.parquet", f"{out}/prompts.jsonl", f"{out}/source.parquet")
    print(json.dumps({"seconds": time.perf_counter() - t0, "samples": s["samples"]}))


def child_pandas(path: str) -> None:
    import pandas as pd

    t0 = time.perf_counter()
    df = pd.read_json(path, lines=True)
    samples = int(df["resps"].map(lambda r: len(r[0])).sum())
    print(json.dumps({"seconds": time.perf_counter() - t0, "samples": samples}))


def _run(args: list[str]) -> tuple[dict, float]:
    env = {**os.environ, "PYTHONPATH": str(REPO / "src")}
    proc = subprocess.Popen([sys.executable, __file__, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, env=env)
    out = proc.stdout.read()
    err = proc.stderr.read()
    _, status, usage = os.wait4(proc.pid, 0)
    if os.waitstatus_to_exitcode(status) != 0:
        raise RuntimeError(f"{' '.join(args[:2])} failed:\n{err[-3000:]}")
    return json.loads(out.strip().splitlines()[-1]), usage.ru_maxrss / 1024


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--prompts", type=int, default=1000)
    ap.add_argument("--samples", type=int, default=1000)
    ap.add_argument("--chars", type=int, default=2000)
    ap.add_argument("--quick", action="store_true", help="20 prompts x 50 samples: checks that it runs")
    ap.add_argument("--child", choices=["import", "pandas"], help=argparse.SUPPRESS)
    ap.add_argument("--file", help=argparse.SUPPRESS)
    ap.add_argument("--out", help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.child == "import":
        return child_import(a.file, a.out)
    if a.child == "pandas":
        return child_pandas(a.file)
    if a.quick:
        a.prompts, a.samples = 20, 50
    with tempfile.TemporaryDirectory(prefix="bench_imports_") as work:
        src = Path(work) / "samples_bench.jsonl"
        t0 = time.perf_counter()
        size = write_source(src, a.prompts, a.samples, a.chars)
        written = time.perf_counter() - t0
        imp, imp_rss = _run(["--child", "import", "--file", str(src), "--out", work])
        pds, pd_rss = _run(["--child", "pandas", "--file", str(src)])
        out_size = (Path(work) / "samples.parquet").stat().st_size
    assert imp["samples"] == pds["samples"] == a.prompts * a.samples, (imp, pds)
    n = imp["samples"]
    rate_imp, rate_pd = n / imp["seconds"], n / pds["seconds"]
    print(f"lm-eval samples file: {a.prompts:,} prompts x {a.samples:,} samples of ~{a.chars:,} chars, "
          f"{size / 2**20:,.0f} MiB (written in {written:.0f} s); samples file out: {out_size / 2**20:,.0f} MiB")
    print()
    print("| case | seconds | samples/s | peak RSS (MiB) | speed vs pandas |")
    print("|---|---:|---:|---:|---:|")
    print(f"| import_entry (samples + prompts + source scores written) | {imp['seconds']:.1f} | {rate_imp:,.0f} | "
          f"{imp_rss:,.0f} | {rate_imp / rate_pd:.2f}x |")
    print(f"| pandas.read_json(lines=True) (parse only) | {pds['seconds']:.1f} | {rate_pd:,.0f} | {pd_rss:,.0f} | 1.00x |")


if __name__ == "__main__":
    main()
