"""IFTrain (IF-RLVR training) checkers: a following and a violating response per
instruction, kwargs errors, strict vs loose, scoring through score.py, and a fuzz test that
no checker raises or hangs."""

import json
import time

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rlvr_support.scoring.score import load_prompts
from rlvr_support.scoring.verifiers import ifbench, iftrain
from rlvr_support.scoring.verifiers.ifeval import (
    INSTRUCTION_IDS as IFEVAL_IDS,
    InstructionError,
    check_instruction,
    score_if,
    validate_instructions,
)

REQUEST = "Write a poem about the sea."
PHRASE = "The quick brown fox jumps"
COPY = {"prompt_to_repeat": REQUEST}

# (instruction id, kwargs, following response, violating response)
CASES = [
    ("copy:repeat_phrase", {"phrase": PHRASE, "small_n": 2},
     "The quick red fox jumps. Then The quick grey fox jumps.", "The quick brown fox jumps and The quick red fox jumps."),
    ("copy:repeat_phrase", {"phrase": PHRASE, "small_n": 2},
     "The quick red fox jumps\nThe slow brown fox jumps", "The quick red fox jumps only once."),
    ("copy:copy", COPY, "  write a poem about the sea.\n", "Write a poem about the sea. Waves..."),
    ("new:copy_span_idx", {**COPY, "n_start": 8, "n_end": 14}, "poem a", "a poem"),
    ("detectable_format:sentence_hyphens", {}, "I came.-I saw.-I won.", "I came. - I saw. - I won."),
    ("keywords:no_adjacent_consecutive", {}, "Cats eat mice daily", "A big cat"),
    ("detectable_format:square_brackets", {}, "[Hello] [world!]", "[Hello] world"),
    ("keywords:word_once", {"keyword": "ocean"}, "The Ocean is wide.", "ocean, OCEAN"),
    ("keywords:word_once", {"keyword": "c++"}, "I like C++ a lot.", "I like C a lot."),
    ("keywords:word_count_different_numbers", {"keyword": "sea", "frequency": 2, "relation": "at least"},
     "Sea and sea.", "One sea."),
    ("keywords:word_count_different_numbers", {"keyword": "sea", "frequency": 2, "relation": "less than"},
     "One sea.", "Sea and sea."),
    ("keywords:exclude_word_harder", {"keyword": "sea"}, "The seas and the Sea-side.", "sea, it is."),
    ("paragraphs:paragraphs", {}, "First part.\n***\nSecond part.\n***", "Only one paragraph."),
    ("paragraphs:paragraphs", {}, "A\n***\nB", "A\n***\n\n***\nB"),
    ("paragraphs:paragraphs2", {}, "First paragraph.\n\nSecond paragraph.", "One.\n\nTwo.\n\nThree."),
    ("first_word:first_word_sent", {"first_word": "Then"}, "Then we ate. then we slept!", "Then we ate. We slept."),
    ("first_word:first_word_answer", {"first_word": "Indeed"}, "indeed it is so.", "Yes, indeed."),
    ("last_word:last_word_sent", {"last_word": "now"}, "Come here now. Go home NOW!", "Come now. Go home."),
    ("last_word:last_word_answer", {"last_word": "end"}, "This is the end.", "The end is near."),
    ("detectable_format:bigram_wrapping", {}, "<<I am>> <<at home>> <<with my>> dog", "<<I am>> at home"),
    ("copy:copying_simple", COPY, "Write a poem about the sea.", "Here: Write a poem about the sea."),
    ("copy:copying_multiple", {**COPY, "N": 2}, f"{REQUEST}\n******\n{REQUEST}", f"{REQUEST}\n******\n{REQUEST}\n******"),
    ("punctuation:punctuation_dot", {}, "No dots here!", "A dot."),
    ("punctuation:punctuation_exclamation", {}, "Calm words.", "Wow!"),
    ("count:lowercase_counting", {"N": 2}, "Only two LOWER words", "one two three"),
    ("letters:letter_counting", {"N": 5, "relation": "less than"}, "Abcd 123", "Abcde"),
    ("letters:letter_counting", {"N": 5, "relation": "at least"}, "Abcde", "Abcd!!!"),
    ("letters:letter_counting2", {"letter": "a", "let_frequency": 3, "let_relation": "at least"},
     "A banana", "An apple"),
    ("count:counting_composition", {"n_sent": 2, "n_words": 2},
     "Go home. Eat now.\n***\nSee you. Be well.\n***\nI can. You can.\n***",
     "Go home. Eat now.\n***\nSee you. Be well.\n***\nI can. You can too."),
    ("count:count_unique", {}, "Every word here differs, truly.", "the cat, the dog."),
    ("count:count_increment_word", {"keyword1": "sun", "keyword2": "moon"}, "Sun, moon, MOON.", "Sun, moon."),
    ("keywords:palindrome", {}, "We saw a racecar", "Nothing here"),
    ("keywords:keyword_specific_position", {"keyword": "blue", "n": 2, "m": 3}, "Hi there. The sky, blue.",
     "Hi there. The blue sky."),
    ("keywords:start_end", {}, "Hello to all of you, hello", "Hello to all of you, hello."),
]


def test_every_id_has_a_case_and_ids_are_open_instructs():
    assert {c[0] for c in CASES} == set(iftrain.REGISTRY)
    assert len(iftrain.INSTRUCTION_IDS) == 29 == len(set(iftrain.INSTRUCTION_IDS))
    assert not set(iftrain.REGISTRY) & (set(IFEVAL_IDS) | set(ifbench.INSTRUCTION_IDS))


@pytest.mark.parametrize("iid,kwargs,good,bad", CASES, ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES)])
def test_instruction_pass_fail(iid, kwargs, good, bad):
    validate_instructions([iid], [kwargs], "p0")
    assert check_instruction(iid, good, kwargs, "prompt") is True
    assert check_instruction(iid, bad, kwargs, "prompt") is False
    assert check_instruction(iid, "  \n ", kwargs, "prompt") is False  # empty follows nothing


def test_repeat_phrase_is_literal_and_linear():
    # Upstream's unescaped `first .*? last` regex: metacharacters here are literal (deviation 2).
    kw = {"phrase": "a.b x (c", "small_n": 1}
    assert check_instruction("copy:repeat_phrase", "a.b y (c", kw, "p") is True
    assert check_instruction("copy:repeat_phrase", "aXb y (c", kw, "p") is False
    t0 = time.thread_time()
    assert check_instruction("copy:repeat_phrase", "The " * 50_000, {"phrase": PHRASE, "small_n": 1}, "p") is False
    assert time.thread_time() - t0 < 1.0


def test_loose_drops_a_preamble_line():
    r = score_if("Sure, here it is:\nWrite a poem about the sea.", ["copy:copying_simple"], [COPY], "p")
    assert r.strict == (False,) and r.loose == (True,)


def test_kwargs_as_floats_are_accepted():
    validate_instructions(["count:lowercase_counting"], [{"N": 3.0}], "p0")
    assert check_instruction("count:lowercase_counting", "a b c", {"N": 3.0}, "p")


@pytest.mark.parametrize(
    "iid,kwargs,message",
    [
        ("count:lowercase_counting", {}, "missing required kwarg"),
        ("copy:copy", {}, "missing required kwarg"),
        ("count:lowercase_counting", {"N": -1}, "'N' must be >= 0"),
        ("count:lowercase_counting", {"N": "2"}, "expected an integer"),
        ("letters:letter_counting", {"N": 2, "relation": "exactly"}, "expected one of"),
        ("copy:repeat_phrase", {"phrase": "fox", "small_n": 2}, "at least 2 words"),
        ("copy:repeat_phrase", {"phrase": PHRASE, "small_n": 0}, "'small_n' must be >= 1"),
        ("copy:copying_multiple", {**COPY, "N": 0}, "'N' must be >= 1"),
        ("new:copy_span_idx", {**COPY, "n_start": 9, "n_end": 3}, "below 'n_start'"),
        ("new:copy_span_idx", {**COPY, "n_start": 100, "n_end": 200}, "empty span"),
        ("keywords:word_once", {"keyword": " "}, "'keyword' must not be empty"),
        ("count:count_increment_word", {"keyword1": "a", "keyword2": ""}, "'keyword2' must not be empty"),
        ("letters:letter_counting2", {"letter": "é", "let_frequency": 1, "let_relation": "at least"}, "ASCII letter"),
        ("count:counting_composition", {"n_sent": 0, "n_words": 2}, "'n_sent' must be >= 1"),
        ("keywords:keyword_specific_position", {"keyword": "a", "n": 1, "m": 0}, "'m' must be >= 1"),
        ("keywords:palindrome", {"bogus": 1}, "unknown kwarg 'bogus'"),
    ],
)
def test_kwargs_errors_name_prompt_instruction_and_kwarg(iid, kwargs, message):
    with pytest.raises(InstructionError, match=message) as e:
        validate_instructions([iid], [kwargs], "p7")
    assert "'p7'" in str(e.value) and repr(iid) in str(e.value)


def test_score_py_loads_and_scores_iftrain_prompts(tmp_path):
    import pandas as pd

    from rlvr_support.scoring.score import score_samples

    ids = ["punctuation:punctuation_dot", "keywords:word_once"]
    rec = {"id": "t1", "task": "if", "prompt": "Do it.", "instruction_id_list": ids,
           "kwargs": [{}, {"keyword": "sea"}]}
    path = tmp_path / "prompts.jsonl"
    path.write_text(json.dumps(rec) + "\n")
    prompts = load_prompts(path)
    samples = pd.DataFrame({"prompt_id": ["t1", "t1"], "sample_idx": [0, 1], "text": ["the sea", "the sea."]})
    out = score_samples(samples, prompts)
    assert list(out["reward"]) == [1.0, 0.0]
    assert list(out["if_frac_strict"]) == [1.0, 0.5]


def test_bad_kwargs_are_refused_at_load(tmp_path):
    rec = {"id": "t2", "task": "if", "prompt": "Do it.", "instruction_id_list": ["keywords:word_once"],
           "kwargs": [{}]}
    path = tmp_path / "prompts.jsonl"
    path.write_text(json.dumps(rec) + "\n")
    with pytest.raises(ValueError, match=r"'t2'.*'keywords:word_once'.*missing required kwarg"):
        load_prompts(path)


# ---------------------------------------------------------------------------
# Fuzz: no checker raises or hangs on random or hostile text.

FUZZ_KWARGS = {iid: kw for iid, kw, _, _ in CASES}
SPECIAL = list("()[]{}<>*-\"'`,.!?;:/\\\n\r\t \u00a0\u2028\x00") + [
    "***", "******", "<<", ">>", "The ", "quick ", "jumps", "sea", "\n\n", "İ", "ß", "\ud800", "e.g.", "don't",
    "Write a poem about the sea.", "Then ", " now.",
]
texts = st.one_of(
    st.text(max_size=300),
    st.lists(st.sampled_from(SPECIAL + ["a", "A", "1", "word", "the"]), max_size=150).map("".join),
)


def _check_all(text):
    t0 = time.thread_time()
    for iid in iftrain.REGISTRY:
        assert isinstance(check_instruction(iid, text, FUZZ_KWARGS[iid], "p"), bool)
    r = score_if(text, list(iftrain.REGISTRY), [FUZZ_KWARGS[i] for i in iftrain.REGISTRY], "p")
    assert len(r.loose) == len(iftrain.REGISTRY)
    assert time.thread_time() - t0 < 2.0


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(texts)
def test_random_text_never_raises(text):
    _check_all(text)


@pytest.mark.parametrize("piece", ["The ", "The quick ", "*", "***\n", "\n\n", "<<", "- ", "a.", "!", "[", "sea "])
def test_huge_repetitive_text_stays_fast(piece):
    text = piece * (100_000 // len(piece))
    for iid in iftrain.REGISTRY:
        t0 = time.thread_time()
        assert isinstance(check_instruction(iid, text, FUZZ_KWARGS[iid], "p"), bool)
        assert time.thread_time() - t0 < 1.0, iid
    _check_all(text[:20_000])
