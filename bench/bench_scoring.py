"""Benchmark the verifiers on typical toy-world outputs.

Compares `scoring.score_samples` (fast exact path, dedup, caches, worker pool,
batched bit-identical langdetect) with a naive baseline measured in the same run:
one process, no caches, every math sample through math-verify, every IF
instruction checked on all 8 loose variants with uncached langdetect. Also times
the IF scorer as it was before `verifiers.langdetect_fast` (langdetect itself, one
text per call, cached). Prints samples/s and the speed-up ratios; the language
cache is cleared before each IF timing, so repeated texts from earlier runs do
not count.

    .venv/bin/python bench/bench_scoring.py [--n 20000] [--workers 2]
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import random
import time

import pandas as pd

from rlvr_support.scoring.score import score_samples
from rlvr_support.scoring.verifiers import ifeval
from rlvr_support.scoring.verifiers.langdetect_fast import reference_detect
from rlvr_support.scoring.verifiers.math import extract_answer

IF_SPECS = [
    (["punctuation:no_comma"], [{}]),
    (["change_case:english_lowercase", "startend:end_checker"], [{}, {"end_phrase": "that is all."}]),
    (["length_constraints:number_words", "keywords:existence"], [{"num_words": 8, "relation": "at least"}, {"keywords": ["river"]}]),
    (["startend:quotation", "change_case:english_capital"], [{}, {}]),
]
WORDS = "the river cat garden music light story data model answer".split()


def toy_world(n: int, rng: random.Random):
    prompts, rows = {}, []
    for p in range(50):
        a, b = rng.randint(2, 99), rng.randint(2, 99)
        prompts[f"m{p}"] = {"id": f"m{p}", "task": "math", "prompt": f"{a} + 2 * {b} ?", "answer": str(a + 2 * b)}
        ids, kw = IF_SPECS[p % len(IF_SPECS)]
        prompts[f"i{p}"] = {"id": f"i{p}", "task": "if", "prompt": "write", "instruction_id_list": ids, "kwargs": kw}
    for i in range(n):
        p = rng.randrange(50)
        a, b = (int(x) for x in prompts[f"m{p}"]["prompt"].replace("?", "").replace("+", "").replace("*", "").split()[::2])
        ans = a + 2 * b + rng.choice([0, 0, 0, 1, -1])
        text = rng.choice(
            [
                f"step : {b} * 2 = {2 * b} ; {a} + {2 * b} = {ans} . answer : {ans}",
                f"ANSWER : {ans} . that is all",
                f'" answer : {ans} "',
                "i do not know",
            ]
        )
        rows.append((f"m{p}", i, text))
        words = " ".join(rng.choice(WORDS) for _ in range(rng.randint(3, 12)))
        text = rng.choice([words, words.upper(), f'"{words}"', words + ", " + words, words + " that is all."])
        rows.append((f"i{p}", i, text))
    df = pd.DataFrame(rows, columns=["prompt_id", "sample_idx", "text"])
    return prompts, df[df.prompt_id.str.startswith("m")], df[df.prompt_id.str.startswith("i")]


def naive_math(texts, golds):
    from math_verify import parse, verify

    out = []
    for t, g in zip(texts, golds):
        pred = extract_answer(t)
        ok = pred is not None and verify(
            parse("\\boxed{" + g + "}", parsing_timeout=None),
            parse("\\boxed{" + pred + "}", parsing_timeout=None),
            timeout_seconds=None,
        )
        out.append(ok)
    return out


def naive_if(texts, specs):
    out = []
    with _per_text_langdetect():
        for t, (ids, kws) in zip(texts, specs):
            for iid, kw in zip(ids, kws):
                for v in ifeval.loose_variants(t):
                    ifeval.check_instruction(iid, v, kw, "")
            out.append(True)
    return out


@contextlib.contextmanager
def _per_text_langdetect(cache: bool = False):
    """Route IF language checks to langdetect itself, one text per call.

    cache=False: no cache at all (the naive baseline); cache=True: an unbounded
    per-text cache, i.e. the scorer as it was before langdetect_fast.
    """
    # detect_languages is what scoring calls (detect_language goes through it too)
    original = ifeval.detect_languages
    detect = functools.lru_cache(maxsize=None)(reference_detect) if cache else reference_detect
    ifeval.detect_languages = lambda texts: [detect(t) for t in texts]
    ifeval.clear_language_cache()
    try:
        yield
    finally:
        ifeval.detect_languages = original


def rate(n, seconds):
    return n / seconds if seconds > 0 else float("inf")


def timed(fn, *args, **kwargs):
    """(wall seconds, CPU seconds of this process) for one call."""
    wall, cpu = time.perf_counter(), time.process_time()
    fn(*args, **kwargs)
    return time.perf_counter() - wall, time.process_time() - cpu


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=20000)
    ap.add_argument("--naive-n", type=int, default=300)
    ap.add_argument("--before-n", type=int, default=2000, help="IF rows for the pre-langdetect_fast scorer")
    ap.add_argument("--workers", type=int, default=2)
    args = ap.parse_args()
    prompts, math_df, if_df = toy_world(args.n, random.Random(0))
    import logging

    logging.disable(logging.WARNING)

    score_samples(math_df.head(10), prompts)  # warm up: worker pool, langdetect profiles
    score_samples(if_df.head(10), prompts)

    wall, _ = timed(score_samples, math_df, prompts, workers=args.workers)
    ours_math = rate(len(math_df), wall)
    ifeval.clear_language_cache()  # no head start from the warm-up or earlier calls
    wall, cpu = timed(score_samples, if_df, prompts, workers=args.workers)
    ours_if, ours_if_cpu = rate(len(if_df), wall), rate(len(if_df), cpu)
    wall, _ = timed(score_samples, if_df.head(2000), prompts)  # all texts cached now
    ours_if_cached = rate(min(2000, len(if_df)), wall)

    sub = if_df.head(args.before_n)
    with _per_text_langdetect(cache=True):
        wall, cpu = timed(score_samples, sub, prompts, workers=args.workers)
    before_if, before_if_cpu = rate(len(sub), wall), rate(len(sub), cpu)

    sub = math_df.head(args.naive_n)
    wall, _ = timed(naive_math, list(sub.text), [prompts[p]["answer"] for p in sub.prompt_id])
    naive_m = rate(len(sub), wall)
    sub = if_df.head(args.naive_n)
    specs = [(prompts[p]["instruction_id_list"], prompts[p]["kwargs"]) for p in sub.prompt_id]
    wall, cpu = timed(naive_if, list(sub.text), specs)
    naive_i, naive_i_cpu = rate(len(sub), wall), rate(len(sub), cpu)
    ifeval.clear_language_cache()

    print(f"math: ours {ours_math:10.0f} samples/s   naive {naive_m:8.0f} samples/s   ratio {ours_math / naive_m:7.1f}x   (target >= 2000/s)")
    print(f"IF:   ours {ours_if:10.0f} samples/s   naive {naive_i:8.0f} samples/s   ratio {ours_if / naive_i:7.1f}x   (target >= 5000/s)")
    print(f"IF:   before langdetect_fast {before_if:7.0f} samples/s  (same scorer, langdetect per text with a cache)")
    print(f"IF:   ours, all texts already in the language cache {ours_if_cached:7.0f} samples/s")
    print(
        f"IF per CPU-second of this process (robust to a shared machine): ours {ours_if_cpu:.0f}, "
        f"before {before_if_cpu:.0f}, naive {naive_i_cpu:.0f}"
    )


if __name__ == "__main__":
    main()
