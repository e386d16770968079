"""sampling.shards: contiguous prompt blocks, a merge that restores prompt order and writes the
samples file one job would, and the DAG."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
import yaml

from conftest import SMOKE_CONFIG, run_snakemake
from rlvr_support.sampling.jobs import SAMPLE_COLUMNS, merge_shards, shard_prompts
from rlvr_support.sampling.samples_file import (ROW_GROUP_ROWS, SAMPLE_SCHEMA, conform, write_sample_frame,
                                                write_samples)


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


def _job_file(path, df) -> None:
    """A shard as the sample job writes it now."""
    write_sample_frame(path, df)


def _pandas_file(path, df, row_group_size=None) -> None:
    """A shard as jobs wrote them before the samples schema (pandas metadata, any row groups)."""
    df.to_parquet(path, index=False, row_group_size=row_group_size)


@pytest.mark.parametrize("shape", ["job shards", "pandas shards, other row groups", "an empty shard"])
def test_merge_writes_the_bytes_one_job_writes(tmp_path, shape):
    """Reruns are byte-identical, and the merged file is what one job writing all these rows
    writes (the reference), whatever the shards' row groups and writers; the shard boundaries
    (1200, 1300) fall inside row groups of the output."""
    parts = [_samples(0, 1200), _samples(1200, 1300), _samples(1300, 3000)]
    if shape == "an empty shard":  # a shard of a benchmark with fewer prompts than shards: both writers' forms
        parts.insert(1, pd.DataFrame({c: pd.Series(dtype=object) for c in SAMPLE_COLUMNS}))
        parts.insert(3, SAMPLE_SCHEMA.empty_table().to_pandas())
    files = [str(tmp_path / f"{i}.parquet") for i in range(len(parts))]
    for i, (f, df) in enumerate(zip(files, parts)):
        if shape == "job shards" or (shape == "an empty shard" and i == 3):
            _job_file(f, df)
        else:
            _pandas_file(f, df, row_group_size=[700, 33, None, 5000, None][i] if shape.startswith("pandas") else None)
    write_sample_frame(tmp_path / "reference.parquet", pd.concat(parts, ignore_index=True))
    assert merge_shards(files, str(tmp_path / "m.parquet")) == 3000
    assert (tmp_path / "m.parquet").read_bytes() == (tmp_path / "reference.parquet").read_bytes()
    merge_shards(files, str(tmp_path / "again.parquet"))
    assert (tmp_path / "again.parquet").read_bytes() == (tmp_path / "m.parquet").read_bytes()
    meta = pq.ParquetFile(tmp_path / "m.parquet").metadata
    assert [meta.row_group(g).num_rows for g in range(meta.num_row_groups)] == [1024, 1024, 952]
    pd.testing.assert_frame_equal(pd.read_parquet(tmp_path / "m.parquet"),
                                  pd.concat([p for p in parts if len(p)], ignore_index=True)[SAMPLE_COLUMNS],
                                  check_dtype=False)


@pytest.mark.parametrize("n", [0, 5, ROW_GROUP_ROWS, 2 * ROW_GROUP_ROWS + 17])
def test_streamed_writer_writes_what_one_write_table_writes(tmp_path, n):
    """The sample job's file and the merge's are one format: streaming batches of any sizes gives
    the bytes of a single `write_table(rows, row_group_size=ROW_GROUP_ROWS)`, no pandas metadata."""
    df = _samples(0, n)
    # texts past the 1 MiB dictionary page: there the chunks a group is written from move the pages
    df["text"] = [f"{i} " + f"step {i} " * 300 for i in range(n)]
    table = conform(pa.Table.from_pandas(df, preserve_index=False)) if n else SAMPLE_SCHEMA.empty_table()
    pq.write_table(table.combine_chunks(), tmp_path / "one.parquet", row_group_size=ROW_GROUP_ROWS)
    rng = np.random.default_rng(n)
    cuts = np.sort(rng.integers(0, n + 1, 9))
    batches = [b for lo, hi in zip([0, *cuts], [*cuts, n]) for b in table.slice(lo, hi - lo).to_batches()]
    assert write_samples(tmp_path / "streamed.parquet", batches) == n
    assert (tmp_path / "streamed.parquet").read_bytes() == (tmp_path / "one.parquet").read_bytes()
    assert b"pandas" not in (pq.read_schema(tmp_path / "streamed.parquet").metadata or {})


def test_merge_names_a_shard_that_lacks_a_column(tmp_path):
    a, b = tmp_path / "0.parquet", tmp_path / "1.parquet"
    _job_file(a, _samples(0, 8))
    _samples(8, 16).drop(columns=["token_entropies"]).to_parquet(b, index=False)
    with pytest.raises(ValueError, match=r"1\.parquet: missing column\(s\) token_entropies"):
        merge_shards([str(a), str(b)], str(tmp_path / "m.parquet"))
    assert not (tmp_path / "m.parquet").exists()


def test_merge_names_a_cut_shard_and_leaves_no_output(tmp_path):
    a, b = tmp_path / "0.parquet", tmp_path / "1.parquet"
    _job_file(a, _samples(0, 8))
    _job_file(b, _samples(8, 16))
    b.write_bytes(b.read_bytes()[: b.stat().st_size // 2])  # a shard cut short, as by a full disk
    with pytest.raises(ValueError, match=r"1\.parquet: unreadable"):
        merge_shards([str(a), str(b)], str(tmp_path / "m.parquet"))
    assert sorted(p.name for p in tmp_path.iterdir()) == ["0.parquet", "1.parquet"]  # no output, no temp


@pytest.mark.snakemake
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
