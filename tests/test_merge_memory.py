"""`sample-merge` streams its shards: its peak memory does not grow with the number of samples
(the test measures memory, not time)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow.parquet as pq
import pytest

from rlvr_support.sampling.samples_file import ROW_GROUP_ROWS, SAMPLE_COLUMNS, write_sample_frame

TOKENS = 512


def _shards(folder: Path, shards: int, per_shard: int) -> list[Path]:
    """`shards` sample files of `per_shard` samples (whole prompts of 8) with TOKENS-long token arrays."""
    rng = np.random.default_rng(shards)
    folder.mkdir()
    files = []
    for s in range(shards):
        rows = range(s * per_shard, (s + 1) * per_shard)
        df = pd.DataFrame({
            "prompt_id": [f"m{i // 8}" for i in rows], "benchmark": "math", "sample_idx": [i % 8 for i in rows],
            "text": [f"step : 2 * 3 = 6 . answer : {i}" for i in rows], "n_tokens": TOKENS, "finish_reason": "length",
            "has_token_arrays": True, "token_ids": list(rng.integers(0, 50_000, (per_shard, TOKENS))),
            "token_logprobs": list(-rng.random((per_shard, TOKENS))),
            "token_entropies": list(rng.random((per_shard, TOKENS))),
            "entropy_topk": 0})[SAMPLE_COLUMNS]
        files.append(folder / f"{s}.parquet")
        write_sample_frame(files[-1], df)
    return files


def _peak_mib_of_merge(shards: list[Path], out: Path) -> float:
    """The `sample-merge` verb's own peak RSS (VmHWM: the high-water mark of the child's memory
    since its exec, unlike getrusage's maxrss, which starts at this test process's size)."""
    code = ("import sys\nfrom rlvr_support.cli.main import main\n"
            "rc = main(sys.argv[1:])\n"
            "print([l for l in open('/proc/self/status') if l.startswith('VmHWM:')][0].split()[1])\n"
            "sys.exit(rc)\n")
    argv = ["sample-merge", "--shards", *map(str, shards), "--out", str(out)]
    done = subprocess.run([sys.executable, "-c", code, *argv], capture_output=True, text=True, cwd=out.parent,
                          env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)})
    assert done.returncode == 0, done.stderr[-2000:]
    return int(done.stdout.split()[-1]) / 1024


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="reads VmHWM from /proc")
def test_merge_memory_does_not_grow_with_the_samples(tmp_path):
    # both sizes past a row group per shard and in the output, where the streaming merge's memory is flat
    per_shard = 8 * -(-ROW_GROUP_ROWS * 17 // 16 // 8)  # 1,088 samples
    small, large = (2, per_shard), (6, 2 * per_shard)
    peaks = {}
    for size in (small, large):
        folder = tmp_path / str(size[0])
        peaks[size] = _peak_mib_of_merge(_shards(folder, *size), folder / "merged.parquet")
    added = large[0] * large[1] - small[0] * small[1]
    token_mib = added * TOKENS * 3 * 8 / 2**20  # what the larger merge's arrays add, decoded: 128 MiB
    growth = peaks[large] - peaks[small]
    # Concatenating whole shards grows by about 3x token_mib (the shards, then the merged table);
    # streaming holds a few row groups of ROW_GROUP_ROWS samples at either size (measured: within
    # 15 MiB, either way, alone; +34 MiB once in a clean-clone CI run with both cores busy, where
    # pyarrow's read-ahead threads fall behind and hold a row group more): half of token_mib still
    # fails a merge that holds the decoded arrays once, let alone three times.
    assert growth < 0.5 * token_mib, f"peak RSS {peaks}: +{growth:.0f} MiB for +{token_mib:.0f} MiB of token arrays"
    meta = pq.ParquetFile(tmp_path / str(large[0]) / "merged.parquet").metadata
    n = large[0] * large[1]
    assert meta.num_rows == n and meta.num_row_groups == -(-n // ROW_GROUP_ROWS)
