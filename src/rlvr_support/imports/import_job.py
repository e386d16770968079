"""One import job: stream an entry's files through its format's reader into three outputs.

1. the samples file, in the samples schema (`sampling.samples_file.write_samples`, row groups of
   ROW_GROUP_ROWS): prompt_id `<benchmark>-<prompt key>`, the prompt's samples numbered 0..n-1
   in the order they arrive (or by the source's own index), the text, n_tokens and the token
   arrays when the source has token ids (else None and has_token_arrays false), finish_reason;
2. the prompts JSONL the scorer reads (`task_fields.prompt_record`), one line per prompt, in
   order of first appearance;
3. the source's own scores: prompt_id, sample_idx, source_score (null where the source has no
   score for that sample), for the verifier-agreement table.

All three are written through temp files and renamed only when every file has been read to its
end without an error (`storage.atomic.atomic_path`): a failed import leaves no output. Memory
is one record and one row group of samples, plus a few numbers per prompt (its sample count, a
hash of its text, the indices seen when the source numbers samples itself).

Checks, each an `ImportFormatError` naming file, line and field: what the readers check (empty
file, malformed JSON, a truncated last line, a missing or mistyped field, a file of another
format), and here: the same prompt twice in a format with one record per prompt, the same
(prompt, sample index) twice, two prompt texts under one key, gaps in a source's own sample
indices, an entry that yields no samples. Prompts may have different n.

With `tokenizer` (an imported label with a `model:`, config/import_models.py), the responses of a source
without token ids get the tokenizer's split of their text (imports/tokenizers.py `text_token_ids`: token
arrays without log-probs), so the analyses that run the model can teacher-force them and read their
openings; a source's own token ids must lie in the tokenizer's vocabulary (else they are another model's).
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from rlvr_support.imports.formats import FORMATS
from rlvr_support.imports.formats.source_files import check_not_empty
from rlvr_support.imports.prompt_keys import normalise_prompt
from rlvr_support.imports.records import ImportedPrompt, ImportFormatError
from rlvr_support.imports.study_prompts import StudyPrompts
from rlvr_support.imports.task_fields import dumps, load_docs, prompt_id, prompt_record
from rlvr_support.imports.tokenizers import text_token_ids
from rlvr_support.sampling.samples_file import ROW_GROUP_ROWS, SAMPLE_SCHEMA, write_samples
from rlvr_support.storage.atomic import atomic_path

SOURCE_SCHEMA = pa.schema([("prompt_id", pa.string()), ("sample_idx", pa.int64()), ("source_score", pa.float64())])
SPEC_KEYS = ("format", "benchmark", "task", "fields", "prompt_key", "source_score", "filter", "step", "docs",
             "custom_id_sample_sep")


def check_spec(spec: dict[str, Any]) -> None:
    """The keys this job reads (the lead's config schema validates the entry; this guards the CLI)."""
    for key in ("format", "benchmark", "task"):
        if not isinstance(spec.get(key), str) or not spec[key]:
            raise ValueError(f"import spec: key {key!r} is required (a string)")
    if spec["format"] not in FORMATS:
        raise ValueError(f"import spec: format {spec['format']!r} is not one of {', '.join(FORMATS)}")
    unknown = sorted(set(spec) - set(SPEC_KEYS))
    if unknown:
        raise ValueError(f"import spec: unknown key(s) {', '.join(unknown)} (known: {', '.join(SPEC_KEYS)})")


class _Prompt:
    """What the job keeps per prompt (module doc)."""

    __slots__ = ("n", "text_sha", "indices", "where")

    def __init__(self, text_sha: bytes, where: str):
        self.n, self.text_sha, self.indices, self.where = 0, text_sha, None, where


class _Columns:
    """Samples rows being gathered into one batch."""

    def __init__(self):
        self.cols: dict[str, list] = {name: [] for name in SAMPLE_SCHEMA.names}

    def __len__(self) -> int:
        return len(self.cols["prompt_id"])

    def add(self, **row) -> None:
        for name, col in self.cols.items():
            col.append(row.get(name))

    def batch(self) -> pa.RecordBatch:
        out = pa.RecordBatch.from_arrays([pa.array(self.cols[f.name], f.type) for f in SAMPLE_SCHEMA],
                                         schema=SAMPLE_SCHEMA)
        self.__init__()
        return out


def _text_sha(text: str) -> bytes:
    return hashlib.sha256(normalise_prompt(text).encode("utf-8")).digest()


def _records(spec: dict[str, Any], files: Iterable[str | Path]) -> Iterator[ImportedPrompt]:
    read = FORMATS[spec["format"]]
    for path in files:
        yield from read(Path(path), spec)


def import_entry(spec: dict[str, Any], files: list[str | Path], out_samples, out_prompts, out_source,
                 study: StudyPrompts | None = None, tokenizer=None) -> dict[str, Any]:
    """Import the entry `spec` from `files` (module doc); returns counts: prompts, samples, scored
    (samples with a source score), with_tokens, tokenized (of those, tokenized here), n_min, n_max. With
    `study` (a mixed study), samples carry the study's prompt ids and benchmarks, the prompts file links
    each source key to its study id, and a prompt set that is not the study's is an error
    (imports/study_prompts.py). With `tokenizer`, text-only responses are tokenized (module doc)."""
    check_spec(spec)
    if not files:
        raise ValueError("import: no files given")
    for path in files:  # before any output: a missing or empty file is the commonest mistake
        check_not_empty(Path(path))
    docs = load_docs(spec)
    prompts: dict[str, _Prompt] = {}
    summary = {"prompts": 0, "samples": 0, "scored": 0, "with_tokens": 0, "tokenized": 0}

    try:
        _write(spec, files, docs, prompts, summary, out_samples, out_prompts, out_source, study, tokenizer)
    except BaseException:
        # the samples file is renamed into place first: if finishing the others failed, it goes too
        Path(out_samples).unlink(missing_ok=True)
        raise
    ns = [s.n for s in prompts.values()]
    summary.update(prompts=len(prompts), n_min=min(ns), n_max=max(ns))
    return summary


def _token_ids(rec: ImportedPrompt, tokenizer, summary) -> list[list[int]] | None:
    """The record's token ids: without `tokenizer` the source's (or None); with it the source's, checked against
    its vocabulary, and for each response the source kept none of, its text as the tokenizer splits it."""
    if tokenizer is None:
        return rec.token_ids
    own = list(rec.token_ids) if rec.token_ids is not None else [None] * len(rec.responses)
    size = len(tokenizer)
    for ids in own:
        bad = next((int(t) for t in ids if not 0 <= int(t) < size), None) if ids is not None else None
        if bad is not None:
            raise ImportFormatError(rec.where, "token ids", f"token id {bad} is outside the label's tokenizer "
                                    f"(vocabulary of {size}): the source's tokens are another model's")
    missing = [j for j, ids in enumerate(own) if ids is None]
    for j, ids in zip(missing, text_token_ids(tokenizer, [rec.responses[j] for j in missing])):
        own[j] = ids
    summary["tokenized"] += len(missing)
    return own


def _write(spec, files, docs, prompts: dict[str, _Prompt], summary, out_samples, out_prompts, out_source,
           study: StudyPrompts | None, tokenizer=None) -> None:
    benchmark = spec["benchmark"]
    study_ids: dict[str, str | None] = {}  # source key -> study prompt id (None: the study lacks it)
    with atomic_path(out_prompts) as tmp_prompts, atomic_path(out_source) as tmp_source, \
            open(tmp_prompts, "w", encoding="utf-8") as prompts_f, pq.ParquetWriter(tmp_source, SOURCE_SCHEMA) as source_w:

        def batches() -> Iterator[pa.RecordBatch]:
            rows = _Columns()
            src: dict[str, list] = {"prompt_id": [], "sample_idx": [], "source_score": []}
            for rec in _records(spec, files):
                state = prompts.get(rec.prompt_key)
                if state is None:
                    state = prompts[rec.prompt_key] = _Prompt(_text_sha(rec.prompt), rec.where)
                    if study is None:
                        prompts_f.write(dumps(prompt_record(rec, spec, docs)) + "\n")
                    else:  # the study's record holds the gold: this file only links the source's key to it
                        study_ids[rec.prompt_key] = sid = study.id_of(rec.prompt_key, rec.prompt)
                        if sid is not None:
                            prompts_f.write(dumps({"id": sid, "import_key": rec.prompt_key, "prompt": rec.prompt}) + "\n")
                elif not rec.appends:
                    raise ImportFormatError(rec.where, None, f"duplicate prompt {rec.prompt_key!r}: already read at "
                                                             f"{state.where} (each document once per file set)")
                elif state.text_sha != _text_sha(rec.prompt):
                    raise ImportFormatError(rec.where, None, f"prompt key {rec.prompt_key!r} names two different "
                                                             f"prompt texts (first at {state.where})")
                if study is None:
                    pid, bench = prompt_id(benchmark, rec.prompt_key), benchmark
                elif study_ids[rec.prompt_key] is None:
                    continue  # reported with the others by check_same_set, once the whole source is read
                else:
                    pid = study_ids[rec.prompt_key]
                    bench = study.benchmark[pid]
                token_ids = _token_ids(rec, tokenizer, summary)
                for j, text in enumerate(rec.responses):
                    if rec.sample_indices is not None:
                        idx = rec.sample_indices[j]
                        state.indices = state.indices if state.indices is not None else set()
                        if idx in state.indices or idx < 0:
                            raise ImportFormatError(rec.where, "sample index", f"duplicate (prompt, sample) row: "
                                                    f"prompt {rec.prompt_key!r} sample {idx} was already read")
                        state.indices.add(idx)
                    else:
                        idx = state.n
                    state.n += 1
                    ids = token_ids[j] if token_ids is not None else None
                    rows.add(prompt_id=pid, benchmark=bench, sample_idx=idx, text=text,
                             n_tokens=len(ids) if ids is not None else None,
                             finish_reason=rec.finish_reasons[j] if rec.finish_reasons is not None else None,
                             has_token_arrays=ids is not None, token_ids=ids,
                             token_logprobs=rec.token_logprobs[j] if rec.token_logprobs is not None else None)
                    score = rec.source_scores[j] if rec.source_scores is not None else None
                    src["prompt_id"].append(pid)
                    src["sample_idx"].append(idx)
                    src["source_score"].append(score)
                    summary["scored"] += score is not None
                    summary["with_tokens"] += ids is not None
                    if len(rows) >= ROW_GROUP_ROWS:
                        summary["samples"] += len(rows)
                        source_w.write_batch(pa.RecordBatch.from_pydict(src, schema=SOURCE_SCHEMA))
                        src = {k: [] for k in src}
                        yield rows.batch()
            if len(rows):
                summary["samples"] += len(rows)
                source_w.write_batch(pa.RecordBatch.from_pydict(src, schema=SOURCE_SCHEMA))
                yield rows.batch()
            if not summary["samples"]:
                where = ", ".join(str(f) for f in files)
                field = "filter" if spec.get("filter") else "step" if spec.get("step") is not None else None
                raise ImportFormatError(where, field, "no samples: every row was filtered out (filter / step)")
            if study is not None:
                study.check_same_set(", ".join(str(f) for f in files))
            for key, state in prompts.items():
                if state.indices is not None and max(state.indices) != state.n - 1:
                    missing = sorted(set(range(max(state.indices) + 1)) - state.indices)
                    raise ImportFormatError(state.where, "sample index", f"prompt {key!r}: sample indices "
                                            f"{', '.join(map(str, missing[:5]))} are missing (a failed request?)")

        write_samples(out_samples, batches())
