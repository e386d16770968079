"""imports: every bad input is an error naming the file, line and field, raised before any output
exists; a failed import leaves no output file (and no temp file) behind."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from rlvr_support.imports.import_job import import_entry
from rlvr_support.imports.records import ImportFormatError
from test_imports_formats import lm_eval_row, write_jsonl, write_lighteval, write_trl, write_verl

OUTPUTS = ("samples.parquet", "prompts.jsonl", "source.parquet")


def fails(tmp: Path, fmt: str, files, match: str, **extra) -> ImportFormatError:
    out = tmp / "out"
    with pytest.raises(ImportFormatError, match=match) as e:
        import_entry({"format": fmt, "benchmark": "toy", "task": "math", **extra}, [str(f) for f in files],
                     *(out / name for name in OUTPUTS))
    left = sorted(p.name for p in out.iterdir()) if out.exists() else []
    assert left == [], f"a failed import left {left}"
    return e.value


def lm_lines(tmp: Path, rows, name="samples_toy.jsonl") -> Path:
    return write_jsonl(tmp / name, rows)


def test_empty_file(tmp_path):
    (tmp_path / "e.jsonl").write_text("")
    fails(tmp_path, "lm_eval", [tmp_path / "e.jsonl"], r"e\.jsonl: empty file")
    (tmp_path / "b.jsonl").write_text("\n\n")
    fails(tmp_path, "lm_eval", [tmp_path / "b.jsonl"], r"b\.jsonl: empty file \(only blank lines\)")


def test_empty_parquet(tmp_path):
    pd.DataFrame({"step": pd.Series([], dtype="int64"), "prompt": pd.Series([], dtype=object)}).to_parquet(
        tmp_path / "c.parquet")
    fails(tmp_path, "trl_completions", [tmp_path / "c.parquet"], r"c\.parquet: empty file \(a Parquet file with no rows\)")


def test_malformed_json_names_the_line(tmp_path):
    path = tmp_path / "s.jsonl"
    path.write_text(json.dumps(lm_eval_row(0, "A")) + "\n{\"doc_id\": 1,, }\n" + json.dumps(lm_eval_row(2, "B")) + "\n")
    e = fails(tmp_path, "lm_eval", [path], r"s\.jsonl:2: not valid JSON")
    assert e.where.endswith("s.jsonl:2")


def test_truncated_last_line(tmp_path):
    path = tmp_path / "s.jsonl"
    path.write_text(json.dumps(lm_eval_row(0, "A")) + "\n" + json.dumps(lm_eval_row(1, "B"))[:150])
    fails(tmp_path, "lm_eval", [path], r"s\.jsonl:2: truncated last line")


def test_missing_field(tmp_path):
    row = lm_eval_row(1, "B")
    del row["resps"]
    e = fails(tmp_path, "lm_eval", [lm_lines(tmp_path, [lm_eval_row(0, "A"), row])],
              r"samples_toy\.jsonl:2: field 'resps': missing")
    assert e.field == "resps"


def test_wrongly_typed_field(tmp_path):
    row = lm_eval_row(0, "A")
    row["resps"] = ["one response, not a list of them"]
    fails(tmp_path, "lm_eval", [lm_lines(tmp_path, [row])], r"samples_toy\.jsonl:1: field 'resps\[0\]': expected the list")
    row = lm_eval_row(0, "A")
    row["exact_match"] = "yes"
    fails(tmp_path, "lm_eval", [lm_lines(tmp_path, [row])], r":1: field 'exact_match': expected a number or boolean")


def test_missing_gold_answer_names_the_field(tmp_path):
    row = lm_eval_row(0, "A")
    row["target"] = None
    fails(tmp_path, "lm_eval", [lm_lines(tmp_path, [row])], r":1: field 'target': expected the gold answer")


def test_duplicate_document(tmp_path):
    e = fails(tmp_path, "lm_eval", [lm_lines(tmp_path, [lm_eval_row(0, "A"), lm_eval_row(1, "B"), lm_eval_row(0, "A")])],
              r"samples_toy\.jsonl:3: duplicate prompt '0': already read at .*samples_toy\.jsonl:1")
    assert e.where.endswith(":3")


def test_duplicate_prompt_sample_row(tmp_path):
    rows = [{"id": "a", "q": "What is 2 + 2?", "r": "4", "i": 0, "gold": "4"},
            {"id": "a", "q": "What is 2 + 2?", "r": "5", "i": 1, "gold": "4"},
            {"id": "a", "q": "What is 2 + 2?", "r": "4", "i": 1, "gold": "4"}]
    fields = {"prompt": "q", "response": "r", "id": "id", "sample": "i", "answer": "doc.gold"}
    fails(tmp_path, "plain_jsonl", [write_jsonl(tmp_path / "p.jsonl", rows)],
          r"p\.jsonl:3: field 'sample index': duplicate \(prompt, sample\) row: prompt 'a' sample 1", fields=fields)


def test_missing_sample_index(tmp_path):
    rows = [{"id": "a", "q": "What is 2 + 2?", "r": "4", "i": j, "gold": "4"} for j in (0, 1, 3)]
    fields = {"prompt": "q", "response": "r", "id": "id", "sample": "i", "answer": "doc.gold"}
    fails(tmp_path, "plain_jsonl", [write_jsonl(tmp_path / "p.jsonl", rows)], r"sample indices 2 are missing",
          fields=fields)


def test_wrong_format_says_which_it_looks_like(tmp_path):
    files, _ = write_verl(tmp_path)
    fails(tmp_path, "lm_eval", files, r"100\.jsonl:1: field 'doc_id': missing; this looks like a verl file")
    lm = lm_lines(tmp_path, [lm_eval_row(0, "A")])
    fails(tmp_path, "verl", [lm], r"samples_toy\.jsonl:1: field 'input': missing; this looks like a lm_eval file")
    files, _ = write_trl(tmp_path)
    fails(tmp_path, "lighteval", files, r"completions_00010\.parquet:row 0: field 'doc': missing; this looks like a "
                                        r"trl_completions file")


def test_json_given_for_a_parquet_format(tmp_path):
    fails(tmp_path, "lighteval", [lm_lines(tmp_path, [lm_eval_row(0, "A")])], r"not a readable Parquet file")


def test_a_bad_second_file_leaves_nothing(tmp_path):
    good, _ = write_lighteval(tmp_path)
    (tmp_path / "empty.parquet").write_text("")
    fails(tmp_path, "lighteval", [*good, tmp_path / "empty.parquet"], r"empty\.parquet: empty file")


def test_a_bad_row_after_many_leaves_nothing(tmp_path):
    # past the first row group (1,024 samples): the samples writer has started its temp file
    rows = [lm_eval_row(i, "A") for i in range(300)] + ["not json"]
    path = tmp_path / "s.jsonl"
    path.write_text("".join((json.dumps(r) if isinstance(r, dict) else r) + "\n" for r in rows))
    fails(tmp_path, "lm_eval", [path], r"s\.jsonl:301: not valid JSON")


def test_failed_request_in_a_batch(tmp_path):
    row = {"id": "b", "custom_id": "q1", "response": None, "error": {"code": "rate_limit", "message": "slow down"}}
    fails(tmp_path, "openai_batch", [write_jsonl(tmp_path / "o.jsonl", [row])], r"o\.jsonl:1: field 'error': the "
                                                                                  r"request failed")


def test_spec_errors_name_the_key(tmp_path):
    files, _ = write_verl(tmp_path)
    with pytest.raises(ValueError, match="format 'csv' is not one of"):
        import_entry({"format": "csv", "benchmark": "t", "task": "math"}, files, *(tmp_path / n for n in OUTPUTS))
    with pytest.raises(ValueError, match="unknown key"):
        import_entry({"format": "verl", "benchmark": "t", "task": "math", "feilds": {}}, files,
                     *(tmp_path / n for n in OUTPUTS))
    with pytest.raises(ImportFormatError, match="fields.prompt"):
        import_entry({"format": "plain_jsonl", "benchmark": "t", "task": "math"}, files, *(tmp_path / n for n in OUTPUTS))
