"""Property-based fuzzing: no checker or extractor raises or hangs on any string."""

import gc
import time

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rlvr_support.scoring.verifiers.ifeval import INSTRUCTION_IDS, check_instruction, score_if
from rlvr_support.scoring.verifiers.math import as_fraction, extract_answer
from rlvr_support.scoring.verifiers.sentences import count_sentences, word_tokens

KWARGS = {
    "keywords:existence": {"keywords": ["a", "(b"]},
    "keywords:frequency": {"keyword": "a*", "frequency": 2, "relation": "at least"},
    "keywords:forbidden_words": {"forbidden_words": ["x", "[y"]},
    "keywords:letter_frequency": {"letter": "a", "let_frequency": 3, "let_relation": "less than"},
    "language:response_language": {"language": "en"},
    "length_constraints:number_sentences": {"num_sentences": 3, "relation": "at least"},
    "length_constraints:number_paragraphs": {"num_paragraphs": 2},
    "length_constraints:number_words": {"num_words": 10, "relation": "less than"},
    "length_constraints:nth_paragraph_first_word": {"num_paragraphs": 2, "nth_paragraph": 2, "first_word": "a"},
    "detectable_content:number_placeholders": {"num_placeholders": 2},
    "detectable_content:postscript": {"postscript_marker": "P.S."},
    "detectable_format:number_bullet_lists": {"num_bullets": 2},
    "detectable_format:number_highlighted_sections": {"num_highlights": 2},
    "detectable_format:multiple_sections": {"section_spliter": "Section", "num_sections": 2},
    "combination:repeat_prompt": {"prompt_to_repeat": "repeat"},
    "startend:end_checker": {"end_phrase": "end"},
    "change_case:capital_word_frequency": {"capital_frequency": 2, "capital_relation": "at least"},
}
KW = [KWARGS.get(i, {}) for i in INSTRUCTION_IDS]

# Characters that stress the parsers: structure markers, braces, whitespace kinds,
# control characters and lone surrogates.
SPECIAL = list("{}[]<>*-#\\$\"',.!?:;\n\r\t\x00\x0b\x0c\u2028\u00a0 ") + ["\ud800", "\udfff", "**", "***", "******", "<<", ">>", "\\boxed{", "answer :", "####", "</think>", "<answer>"]
texts = st.one_of(
    st.text(max_size=400),
    st.lists(st.sampled_from(SPECIAL + ["a", "A", "1", "word", "P.S."]), max_size=200).map("".join),
)
# Per call, in CPU seconds of this thread (the checkers run in it): a runaway regex or parser
# burns CPU, while a machine shared with other jobs only stretches wall-clock time. Not the
# process's CPU time: threads left by earlier tests of the session (torch, samplers) and the
# collection of their garbage would count against the checkers.
# NLTK's Punkt (sentences.py) is linear but costs up to about 10 us a character on text that is all periods
# ("A. " * 40,000: about 1.2 s of the 1.7 s all checks take here), hence 3 s rather than the 2 s of the
# hand-written splitter.
BUDGET_S = 3.0


def _all_checks(text):
    t0 = time.thread_time()
    for iid, kw in zip(INSTRUCTION_IDS, KW):
        assert isinstance(check_instruction(iid, text, kw, "repeat"), bool)
    r = score_if(text, list(INSTRUCTION_IDS), KW, "repeat", reasoning="after_think")
    assert len(r.strict) == len(r.loose) == 25
    extract_answer(text)
    as_fraction(text)
    count_sentences(text)
    word_tokens(text)
    assert time.thread_time() - t0 < BUDGET_S


@settings(max_examples=1000, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(texts)
def test_random_strings(text):
    _all_checks(text)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(st.sampled_from(SPECIAL + ["a ", "A. ", "[a", "<<a", "* a\n", "9^{"]), st.integers(20_000, 120_000))
def test_huge_repetitive_strings(piece, n):
    # 100k+ chars of one adversarial piece: catches quadratic regexes and recursion.
    text = (piece * (n // len(piece) + 1))[:n]
    _all_checks(text)


def test_deep_nesting_and_megabyte_inputs():
    cases = [
        "\\boxed{" * 50_000 + "1" + "}" * 50_000,
        "\\boxed{" * 100_000,
        "[" * 1_000_000,
        "\n" * 1_000_000,
        "{" * 200_000 + '"a"' + "}" * 200_000,  # json_format: RecursionError path
        "<<" * 300_000,
        " " * 1_000_000 + "*",
        "answer : " * 100_000,
    ]
    for text in cases:
        gc.collect()  # the session's garbage is not the checkers' cost
        _all_checks(text)
    assert extract_answer("\\boxed{" * 50_000 + "1" + "}" * 50_000) == "1"  # innermost is last
