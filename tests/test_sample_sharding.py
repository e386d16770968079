"""sampling.shards: contiguous prompt blocks, a merge that restores prompt order, and the DAG."""

from __future__ import annotations

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
    out = merge_shards([str(a), str(b)], str(tmp_path / "m.parquet"))
    assert list(out["prompt_id"]) == ["p0", "p1", "p2"]
    assert list(pd.read_parquet(tmp_path / "m.parquet").columns) == SAMPLE_COLUMNS
    _part(["p1"]).to_parquet(b)
    with pytest.raises(ValueError, match="p1"):
        merge_shards([str(a), str(b)], str(tmp_path / "m2.parquet"))


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
