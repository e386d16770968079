"""`score` reads only the columns it scores: its peak memory does not grow with the per-token
arrays of the samples file (the test measures memory, not time)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from rlvr_support.sampling.jobs import SAMPLE_COLUMNS

TOKENS = 1024


def _inputs(folder: Path, n: int) -> tuple[Path, Path]:
    rng = np.random.default_rng(n)
    folder.mkdir()
    prompts = folder / "prompts.jsonl"
    prompts.write_text("".join(json.dumps({"id": f"m{p}", "task": "math", "prompt": f"{p} + {p} ?", "answer": str(2 * p)}) + "\n"
                               for p in range(n // 8)))
    samples = folder / "samples.parquet"
    pd.DataFrame({
        "prompt_id": [f"m{i // 8}" for i in range(n)], "benchmark": "math", "sample_idx": [i % 8 for i in range(n)],
        "text": [f"step : 2 * 3 = 6 . answer : {2 * (i // 8) + i % 2}" for i in range(n)], "n_tokens": TOKENS,
        "finish_reason": "length", "has_token_arrays": True, "token_ids": list(rng.integers(0, 50_000, (n, TOKENS))),
        "token_logprobs": list(-rng.random((n, TOKENS))), "token_entropies": list(rng.random((n, TOKENS))), "entropy_topk": 0,
    })[SAMPLE_COLUMNS].to_parquet(samples, index=False)
    return samples, prompts


def _peak_mib_of_score(samples: Path, prompts: Path, out: Path) -> float:
    """The `score` verb's own peak RSS (VmHWM: the high-water mark of the child's memory since its
    exec, unlike getrusage's maxrss, which starts at this test process's size)."""
    code = ("import sys\nfrom rlvr_support.cli.main import main\n"
            "rc = main(sys.argv[1:])\n"
            "print([l for l in open('/proc/self/status') if l.startswith('VmHWM:')][0].split()[1])\n"
            "sys.exit(rc)\n")
    argv = ["score", "--samples", str(samples), "--prompts", str(prompts), "--out", str(out),
            "--cfg", '{"reasoning":"none","timeout_s":1.0,"workers":1}']
    done = subprocess.run([sys.executable, "-c", code, *argv], capture_output=True, text=True, cwd=out.parent,
                          env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)})
    assert done.returncode == 0, done.stderr[-2000:]
    return int(done.stdout.split()[-1]) / 1024


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="reads VmHWM from /proc")
def test_scoring_memory_does_not_grow_with_the_token_arrays(tmp_path):
    small, large = 400, 4000
    peaks = {n: _peak_mib_of_score(*_inputs(tmp_path / str(n), n), tmp_path / str(n) / "scores.parquet")
             for n in (small, large)}
    token_mib = (large - small) * TOKENS * 3 * 8 / 2**20  # what the larger file's arrays add, decoded: 84 MiB
    growth = peaks[large] - peaks[small]
    # Reading the whole file grows by about 2.5x token_mib (Arrow, then pandas); the three scored
    # columns (short texts, ids) by a few MiB.
    assert growth < 0.4 * token_mib, f"peak RSS {peaks}: +{growth:.0f} MiB for +{token_mib:.0f} MiB of token arrays"
    scores = pd.read_parquet(tmp_path / str(large) / "scores.parquet")
    assert len(scores) == large and scores["reward"].mean() == pytest.approx(0.5)
