"""The toy tokenizer: exact round trips, digits one token each, loadable with AutoTokenizer."""

from __future__ import annotations

from transformers import AutoTokenizer

from rlvr_support.data.toyworld.tokenizer import build_tokenizer

TEXTS = [
    "Q : solve 98 + 35 * 6 . A :",
    "step : 5 * 6 = 30 ; 98 + 30 = 128 . answer : 128",
    '" STEP : TRAINS ; TITLE . << TRAINS >> I BRING ENGINES . P.S. WE LOVE TRAINS . THE END "',
    "answer : cats are soft , and milk are warm . p.s. we love math . that is all",
]


def test_round_trip_is_exact():
    tok = build_tokenizer()
    for text in TEXTS:
        ids = tok(text)["input_ids"]
        assert ids[0] == tok.bos_token_id and tok.unk_token_id not in ids
        assert tok.decode(ids, skip_special_tokens=True) == text


def test_numbers_are_digit_tokens_and_prompt_completion_split_is_consistent():
    tok = build_tokenizer()
    assert tok.convert_ids_to_tokens(tok("answer : 128", add_special_tokens=False)["input_ids"]) == \
        ["\u2581answer", "\u2581:", "\u2581", "1", "2", "8"]
    prompt, completion = "Q : solve 1 + 2 . A :", "answer : 3"
    joint = tok(prompt + " " + completion)["input_ids"]
    assert joint == tok(prompt)["input_ids"] + tok(completion, add_special_tokens=False)["input_ids"]


def test_unknown_words_map_to_unk_and_saved_tokenizer_loads(tmp_path):
    tok = build_tokenizer()
    assert tok.unk_token_id in tok("xylophone")["input_ids"]
    tok.save_pretrained(tmp_path)
    loaded = AutoTokenizer.from_pretrained(tmp_path)
    assert loaded(TEXTS[1])["input_ids"] == tok(TEXTS[1])["input_ids"]
    assert loaded.padding_side == "left" and loaded.pad_token == "<pad>"
