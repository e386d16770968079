"""`python -m rlvr_support sample-merge`: concatenate sample shards (in shard order) into one Parquet
file.

Run by `sample_merge` (workflow/rules/sample.smk); registered by cli/main.py.
"""

from __future__ import annotations



def cmd_sample_merge(a):
    from rlvr_support.sampling.jobs import merge_shards

    n = merge_shards(a.shards, a.out)
    print(f"{len(a.shards)} shards, {n} samples merged")


def register(verb) -> None:
    s = verb("sample-merge", cmd_sample_merge, "Concatenate sample shards (in shard order) into one Parquet file.")
    s.add_argument("--shards", nargs="+", required=True, help="shard files, in shard order")
    s.add_argument("--out", required=True)
