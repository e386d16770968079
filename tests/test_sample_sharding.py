"""sampling.shards: contiguous prompt blocks, a merge that restores prompt order, and the DAG."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import yaml

from conftest import SMOKE_CONFIG, run_snakemake
from rlvr_support.sampling.jobs import SAMPLE_COLUMNS, merge_shards, shard_prompts


def test_shards_are_a_partition_in_order():
    items = list(range(10))
    blocks = [shard_prompts(items, i, 3) for i in range(3)]
    assert [b for _, b in blocks] == [[0, 1, 2], [3, 4, 5], [6, 7, 8, 9]]
    assert [o for o, _ in blocks] == [0, 3, 6]
    assert sum((b for _, b in (shard_prompts(items, i, 12) for i in range(12))), []) == items
    with pytest.raises(ValueError, match="shard 3"):
        shard_prompts(items, 3, 3)


def _part(ids):
    return pd.DataFrame([{c: None for c in SAMPLE_COLUMNS} | {"prompt_id": p, "sample_idx": 0} for p in ids])


def test_merge_keeps_shard_order_and_rejects_overlap(tmp_path):
    a, b = tmp_path / "0.parquet", tmp_path / "1.parquet"
    _part(["p0", "p1"]).to_parquet(a)
    _part(["p2"]).to_parquet(b)
    assert merge_shards([str(a), str(b)], str(tmp_path / "m.parquet")) == 3
    out = pd.read_parquet(tmp_path / "m.parquet")
    assert list(out["prompt_id"]) == ["p0", "p1", "p2"]
    assert list(out.columns) == SAMPLE_COLUMNS
    _part(["p1"]).to_parquet(b)
    with pytest.raises(ValueError, match="p1"):
        merge_shards([str(a), str(b)], str(tmp_path / "m2.parquet"))


def _samples(lo, hi, tokens=300):
    rng = np.random.default_rng(lo)
    return pd.DataFrame({
        "prompt_id": [f"p{i // 4}" for i in range(lo, hi)], "benchmark": "math", "sample_idx": [i % 4 for i in range(lo, hi)],
        "text": ["step " * int(rng.integers(1, 200)) for _ in range(lo, hi)], "n_tokens": tokens, "finish_reason": "length",
        "has_token_arrays": [i % 4 < 2 for i in range(lo, hi)],
        "token_ids": [rng.integers(0, 50_000, tokens) if i % 4 < 2 else np.array([], dtype=np.int64) for i in range(lo, hi)],
        "token_logprobs": [-rng.random(tokens) if i % 4 < 2 else np.array([]) for i in range(lo, hi)],
        "token_entropies": [rng.random(tokens) if i % 4 < 2 else np.array([]) for i in range(lo, hi)], "entropy_topk": 0})


@pytest.mark.parametrize("shape", ["shards", "row groups", "an empty shard"])
def test_merge_writes_the_bytes_the_pandas_concatenation_writes(tmp_path, shape):
    """Reruns are byte-identical: the Arrow merge writes what concatenating the shards in pandas
    wrote before it (the reference below), whatever the shards' row groups."""
    parts = [_samples(0, 1200), _samples(1200, 1300), _samples(1300, 3000)]
    if shape == "an empty shard":  # a shard of a benchmark with fewer prompts than shards
        parts.insert(1, pd.DataFrame({c: pd.Series(dtype=object) for c in SAMPLE_COLUMNS}))
    files = [str(tmp_path / f"{i}.parquet") for i in range(len(parts))]
    for f, df in zip(files, parts):
        df.to_parquet(f, index=False, row_group_size=700 if shape == "row groups" else None)
    pd.concat([pd.read_parquet(f) for f in files], ignore_index=True)[SAMPLE_COLUMNS].to_parquet(
        tmp_path / "reference.parquet", index=False)
    assert merge_shards(files, str(tmp_path / "m.parquet")) == 3000
    assert (tmp_path / "m.parquet").read_bytes() == (tmp_path / "reference.parquet").read_bytes()


def test_dag_with_three_shards_merges_into_the_same_path(tmp_path):
    cfg = yaml.safe_load(SMOKE_CONFIG.read_text())
    cfg["sampling"]["shards"] = 3
    path = tmp_path / "sharded.yaml"
    path.write_text(yaml.safe_dump(cfg))
    proc = run_snakemake(tmp_path, "results/samples/base/math.parquet", "-n", "--quiet", "rules", config=path)
    out = proc.stdout + proc.stderr
    assert "sample_merge" in out
    plan = run_snakemake(tmp_path, "results/samples/base/math.parquet", "-n", "--printshellcmds", config=path)
    text = plan.stdout
    assert all(f"results/samples/base/math.shards/{i}.parquet" in text for i in range(3))
    assert "--shard 2" in text and "--out results/samples/base/math.parquet" in text
