"""imports/tokenizers.py: an imported label's tokenizer declared by its manifest and loaded from it (or from a
checkpoint's), and the import job giving a model's tokens to responses that came as text."""

from __future__ import annotations

import json

import pytest

from rlvr_support.data.toyworld.tokenizer import build_tokenizer
from rlvr_support.imports.import_job import import_entry
from rlvr_support.imports.records import ImportFormatError
from rlvr_support.imports.tokenizers import declare_tokenizer, text_token_ids, tokenizer_of
from rlvr_support.storage.atomic import read_samples
from test_imports_formats import run_import, write_lm_eval, write_vllm

OUTPUTS = ("samples.parquet", "prompts.jsonl", "source.parquet")


def other_vocab_tokenizer():
    """A word-level tokenizer of ten words: another vocabulary than the toy world's."""
    from tokenizers import Tokenizer, models, pre_tokenizers
    from transformers import PreTrainedTokenizerFast

    words = ["<unk>", "answer", ":", "step", "so", "12", "13", "1", "2", "3"]
    tok = Tokenizer(models.WordLevel(vocab={w: i for i, w in enumerate(words)}, unk_token="<unk>"))
    tok.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    return PreTrainedTokenizerFast(tokenizer_object=tok, unk_token="<unk>")


def test_a_tokenizer_folder_is_declared_with_its_files_and_loads_back(tmp_path):
    folder = tmp_path / "tok"
    build_tokenizer().save_pretrained(folder)
    (folder / "model.safetensors").write_bytes(b"\0" * 64)  # weights beside it are not the tokenizer's files
    manifest = declare_tokenizer({"path": str(folder)})
    assert manifest["tokenizer_dir"] == str(folder.resolve()) and manifest["commit"] is None
    assert "tokenizer.json" in manifest["sha256"] and "model.safetensors" not in manifest["sha256"]
    assert manifest["vocab_size"] == len(build_tokenizer())
    (tmp_path / "tokenizer.json").write_text(json.dumps(manifest))
    text = "step : 4 + 5 = 9 . answer : 9"
    assert text_token_ids(tokenizer_of(tmp_path / "tokenizer.json"), [text]) == \
        [build_tokenizer()(text, add_special_tokens=False)["input_ids"]]


def test_a_checkpoint_manifest_gives_its_models_tokenizer(tmp_path):
    (tmp_path / "model").mkdir()
    (tmp_path / "model" / "config.json").write_text('{"model_type": "llama"}')
    other_vocab_tokenizer().save_pretrained(tmp_path / "model")
    (tmp_path / "manifest.json").write_text(json.dumps({"model_dir": "model"}))
    assert text_token_ids(tokenizer_of(tmp_path / "manifest.json"), ["answer : 12", None]) == [[1, 2, 5], []]


def test_a_folder_without_a_tokenizer_fails_when_declared(tmp_path):
    (tmp_path / "empty").mkdir()
    with pytest.raises(ValueError, match="cannot load the tokenizer"):
        declare_tokenizer({"path": str(tmp_path / "empty")})


def test_with_a_models_tokenizer_text_only_responses_get_its_tokens(tmp_path):
    files, extra = write_lm_eval(tmp_path)
    spec = {"format": "lm_eval", "benchmark": "toy", "task": "math", **extra}
    tok = other_vocab_tokenizer()
    out = tmp_path / "out"
    summary = import_entry(spec, files, *(out / name for name in OUTPUTS), tokenizer=tok)
    s = read_samples(out / "samples.parquet")
    assert s["has_token_arrays"].all() and summary["tokenized"] == summary["with_tokens"] == len(s) == 8
    for text, ids, n in zip(s["text"], s["token_ids"], s["n_tokens"]):
        assert list(ids) == tok(text, add_special_tokens=False)["input_ids"] and n == len(ids)
    assert s["token_logprobs"].isna().all()  # tokens of the text, not sampled ones: no log-probs
    (tmp_path / "plain").mkdir()
    _, plain = run_import(tmp_path / "plain", "lm_eval", files, extra)  # no tokenizer: text only, as the source
    assert not read_samples(plain / "samples.parquet")["has_token_arrays"].any()


def test_a_sources_token_ids_outside_the_models_vocabulary_are_refused(tmp_path):
    files, extra = write_vllm(tmp_path)  # token ids 10..13: beyond a ten-word vocabulary
    spec = {"format": "vllm_outputs", "benchmark": "toy", "task": "math", **extra}
    out = tmp_path / "out"
    with pytest.raises(ImportFormatError, match=r"outputs\.jsonl:1: field 'token ids': token id 1[0-3] is outside"):
        import_entry(spec, files, *(out / name for name in OUTPUTS), tokenizer=other_vocab_tokenizer())
    assert not out.exists() or not any(out.iterdir())  # a refused import leaves nothing
    kept = import_entry(spec, files, *(out / name for name in OUTPUTS), tokenizer=build_tokenizer())
    assert kept["tokenized"] == 0 and list(read_samples(out / "samples.parquet")["token_ids"].iloc[0]) == [10, 11, 12]
