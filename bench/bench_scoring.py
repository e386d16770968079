"""Benchmark the verifiers on typical toy-world outputs.

Compares `scoring.score_samples` (fast exact path, dedup, caches, worker pool)
with a naive baseline measured in the same run: one process, no caches, every
math sample through math-verify, every IF instruction checked on all 8 loose
variants with uncached langdetect. Prints samples/s and the speed-up ratios.

    .venv/bin/python bench/bench_scoring.py [--n 20000] [--workers 2]
"""

from __future__ import annotations

import argparse
import random
import time

import pandas as pd

from rlvr_support.scoring import score_samples
from rlvr_support.verifiers import ifeval
from rlvr_support.verifiers.math import extract_answer

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
    for t, (ids, kws) in zip(texts, specs):
        for iid, kw in zip(ids, kws):
            for v in ifeval.loose_variants(t):
                ifeval._detect_cached.cache_clear()
                ifeval.check_instruction(iid, v, kw, "")
        out.append(True)
    return out


def rate(n, seconds):
    return n / seconds if seconds > 0 else float("inf")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=20000)
    ap.add_argument("--naive-n", type=int, default=300)
    ap.add_argument("--workers", type=int, default=2)
    args = ap.parse_args()
    prompts, math_df, if_df = toy_world(args.n, random.Random(0))
    import logging

    logging.disable(logging.WARNING)

    score_samples(math_df.head(10), prompts)  # warm up: worker pool, langdetect profiles
    score_samples(if_df.head(10), prompts)

    t = time.perf_counter()
    score_samples(math_df, prompts, workers=args.workers)
    ours_math = rate(len(math_df), time.perf_counter() - t)
    t = time.perf_counter()
    score_samples(if_df, prompts, workers=args.workers)
    ours_if = rate(len(if_df), time.perf_counter() - t)

    sub = math_df.head(args.naive_n)
    t = time.perf_counter()
    naive_math(list(sub.text), [prompts[p]["answer"] for p in sub.prompt_id])
    naive_m = rate(len(sub), time.perf_counter() - t)
    sub = if_df.head(args.naive_n)
    t = time.perf_counter()
    naive_if(list(sub.text), [(prompts[p]["instruction_id_list"], prompts[p]["kwargs"]) for p in sub.prompt_id])
    naive_i = rate(len(sub), time.perf_counter() - t)

    print(f"math: ours {ours_math:10.0f} samples/s   naive {naive_m:8.0f} samples/s   ratio {ours_math / naive_m:7.1f}x   (target >= 2000/s)")
    print(f"IF:   ours {ours_if:10.0f} samples/s   naive {naive_i:8.0f} samples/s   ratio {ours_if / naive_i:7.1f}x   (target >= 5000/s)")


if __name__ == "__main__":
    main()
