"""The samples file: one Arrow schema and one row-group size, written the same way by the sample
job and by `sample-merge`.

The file is what `pyarrow.parquet.write_table(table, row_group_size=ROW_GROUP_ROWS)` writes for
the rows cast to the schema, whatever batches they arrive in: `write_samples` re-chunks a stream
of batches into groups of ROW_GROUP_ROWS rows, each one contiguous chunk per column (the Parquet
writer's page boundaries follow the chunks), so a merge that streams its shards writes the bytes
one job writing all the rows at once would. Memory is about two row groups plus one batch.

The schema carries no pandas metadata: it would record each writer's pandas dtypes (an empty
shard's `object` columns, a job whose samples all dropped their arrays: `list[empty]`), which
the rows alone do not fix; pandas reads these types back to the same frame without it.
"""

from __future__ import annotations

from collections.abc import Iterable

import pyarrow as pa
import pyarrow.parquet as pq

from rlvr_support.storage.atomic import atomic_path
# the schemas are the stages' contract, defined with the scores' (and re-exported here, where samples are written)
from rlvr_support.storage.schemas import ROUTED_SAMPLE_SCHEMA, SAMPLE_SCHEMA  # noqa: F401

SAMPLE_COLUMNS = SAMPLE_SCHEMA.names

# Rows per row group. Rows, not bytes, so that the layout is a function of the rows alone; a group
# is what a reader or the merge holds at once: 1,024 samples of 1,024 tokens keep 24 MiB of
# token arrays, of 16k tokens 384 MiB.
ROW_GROUP_ROWS = 1024


def conform(batch: pa.RecordBatch | pa.Table, schema: pa.Schema = SAMPLE_SCHEMA, source: str = "samples"):
    """`batch` with the schema's columns, in its order and types; a missing column or a value the
    type cannot hold is an error naming `source`."""
    missing = [f.name for f in schema if f.name not in batch.schema.names]
    if missing:
        raise ValueError(f"{source}: missing column(s) {', '.join(missing)}")
    try:
        arrays = [batch.column(f.name).cast(f.type) for f in schema]
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError) as e:
        raise ValueError(f"{source}: a column does not fit the samples schema: {e}") from None
    make = pa.Table.from_arrays if isinstance(batch, pa.Table) else pa.RecordBatch.from_arrays
    return make(arrays, schema=schema)


def write_samples(path, batches: Iterable[pa.RecordBatch], schema: pa.Schema = SAMPLE_SCHEMA) -> int:
    """Write the rows of `batches` (conformed to `schema`) to `path` atomically, in row groups of
    ROW_GROUP_ROWS rows; returns the number of rows."""
    rows = 0
    with atomic_path(path) as tmp, pq.ParquetWriter(tmp, schema) as writer:
        pending: list[pa.RecordBatch] = []
        held = 0
        for batch in batches:
            batch = conform(batch, schema, str(path))
            if batch.num_rows == 0:
                continue
            pending.append(batch)
            held += batch.num_rows
            while held >= ROW_GROUP_ROWS:
                table = pa.Table.from_batches(pending, schema)
                pending = table.slice(ROW_GROUP_ROWS).to_batches()
                writer.write_table(table.slice(0, ROW_GROUP_ROWS).combine_chunks(), row_group_size=ROW_GROUP_ROWS)
                del table
                held -= ROW_GROUP_ROWS
                rows += ROW_GROUP_ROWS
        if held or not rows:  # write_table writes one empty row group for no rows; so does this
            writer.write_table(pa.Table.from_batches(pending, schema).combine_chunks(), row_group_size=ROW_GROUP_ROWS)
            rows += held
    return rows


def write_sample_frame(path, df, schema: pa.Schema = SAMPLE_SCHEMA) -> int:
    """The sample job's write: a DataFrame of samples through the same writer as the merge."""
    table = pa.Table.from_pandas(df[schema.names], preserve_index=False)
    return write_samples(path, conform(table, schema, str(path)).to_batches(), schema)
