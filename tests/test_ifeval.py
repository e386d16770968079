"""Hand-made pass/fail cases for every IFEval instruction, strict vs loose,
reasoning mode and validation errors."""

import pytest

from rlvr_support.scoring.verifiers import ifeval
from rlvr_support.scoring.verifiers.ifeval import (
    INSTRUCTION_IDS,
    IFResult,
    InstructionError,
    check_instruction,
    score_if,
    strip_reasoning,
    validate_instructions,
)
from rlvr_support.scoring.verifiers.sentences import count_sentences, count_words, word_tokens

EN = "This is a simple English sentence about the weather and the city."

# (instruction id, kwargs, passing response, failing response)
CASES = [
    ("keywords:existence", {"keywords": ["apple", "pie"]}, "I like Apple PIE.", "I like apple tart."),
    ("keywords:existence", {"keywords": ["c++"]}, "I write C++ code.", "I write C code."),
    ("keywords:frequency", {"keyword": "cat", "frequency": 2, "relation": "at least"}, "cat and cat", "one cat"),
    ("keywords:frequency", {"keyword": "cat", "frequency": 2, "relation": "less than"}, "one cat", "cat cat"),
    ("keywords:forbidden_words", {"forbidden_words": ["bad"]}, "a badge is fine", "this is BAD."),
    ("keywords:letter_frequency", {"letter": "z", "let_frequency": 2, "let_relation": "at least"}, "Zig zag", "zig"),
    ("keywords:letter_frequency", {"letter": "z", "let_frequency": 2, "let_relation": "less than"}, "zig", "zaz"),
    ("language:response_language", {"language": "en"}, EN, "Ceci est une phrase simple en français sur le temps."),
    ("length_constraints:number_sentences", {"num_sentences": 3, "relation": "less than"}, "One. Two.", "One. Two. Three."),
    ("length_constraints:number_sentences", {"num_sentences": 2, "relation": "at least"}, "Dr. Who. Yes!", "Dr. Who is 3.5 m tall."),
    ("length_constraints:number_paragraphs", {"num_paragraphs": 2}, "a\n***\nb", "a\n***\n\n***\nb"),
    ("length_constraints:number_words", {"num_words": 3, "relation": "less than"}, "two words", "one two three"),
    ("length_constraints:number_words", {"num_words": 3, "relation": "at least"}, "it's a b", "x y"),
    (
        "length_constraints:nth_paragraph_first_word",
        {"num_paragraphs": 2, "nth_paragraph": 2, "first_word": "then"},
        "First part.\n\n\"Then, second.",
        "First part.\n\nAnd second.",
    ),
    ("detectable_content:number_placeholders", {"num_placeholders": 2}, "[name] at [address]", "[name] only ["),
    ("detectable_content:postscript", {"postscript_marker": "P.S."}, "Hi.\np.s. bye", "Hi. PS bye"),
    ("detectable_content:postscript", {"postscript_marker": "P.P.S"}, "Hi.\nP. P. S. more", "Hi. P.S. more"),
    ("detectable_format:number_bullet_lists", {"num_bullets": 2}, "* a\n- b\ntext", "* a\n** b\n"),
    ("detectable_format:constrained_response", {}, "My answer is yes.", "Yes."),
    ("detectable_format:number_highlighted_sections", {"num_highlights": 2}, "*a* and **b**", "*a* and * *"),
    ("detectable_format:multiple_sections", {"section_spliter": "Section", "num_sections": 2}, "Section 1\nx\nSection 2\ny", "Section 1 only"),
    ("detectable_format:json_format", {}, '```json\n{"a": 1}\n```', '{"a": 1'),
    ("detectable_format:title", {}, "<<My Title>>\ntext", "<< >> text"),
    ("combination:two_responses", {}, "one\n******\ntwo", "one\n******\none"),
    ("combination:repeat_prompt", {"prompt_to_repeat": "Say hi."}, "say hi. Hi!", "Hi! Say hi."),
    ("startend:end_checker", {"end_phrase": "Any other questions?"}, 'Done. any other questions?"', "Any other questions? No."),
    ("startend:quotation", {}, ' "quoted" ', '"unterminated'),
    ("change_case:capital_word_frequency", {"capital_frequency": 2, "capital_relation": "at least"}, "THE END", "The END"),
    ("change_case:capital_word_frequency", {"capital_frequency": 2, "capital_relation": "less than"}, "The END", "DON'T"),
    ("change_case:english_capital", {}, EN.upper(), EN),
    ("change_case:english_lowercase", {}, EN.lower(), EN),
    ("punctuation:no_comma", {}, "no commas here", "one, two"),
]


def test_all_ids_listed_and_covered():
    assert len(INSTRUCTION_IDS) == 25 == len(set(INSTRUCTION_IDS))
    assert {c[0] for c in CASES} == set(INSTRUCTION_IDS)


@pytest.mark.parametrize("iid,kwargs,good,bad", CASES, ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES)])
def test_instruction_pass_fail(iid, kwargs, good, bad):
    validate_instructions([iid], [kwargs], "p0")
    assert check_instruction(iid, good, kwargs, "prompt") is True
    assert check_instruction(iid, bad, kwargs, "prompt") is False


@pytest.mark.parametrize("iid,kwargs", [(c[0], c[1]) for c in CASES])
def test_empty_response_never_follows(iid, kwargs):
    assert check_instruction(iid, "", kwargs, "p") is False
    assert check_instruction(iid, "  \n\t ", kwargs, "p") is False


def test_repeat_prompt_falls_back_to_prompt():
    assert check_instruction("combination:repeat_prompt", "Write a poem. ok", {}, "write a poem.")


@pytest.mark.parametrize("empty", ["", "   ", "\n"])
def test_empty_prompt_to_repeat_is_an_error_not_a_pass(empty):
    # An empty prefix starts every response: it used to make any response pass.
    kw = {"prompt_to_repeat": empty}
    with pytest.raises(InstructionError, match=r"'combination:repeat_prompt'.*'prompt_to_repeat'"):
        validate_instructions(["combination:repeat_prompt"], [kw], "p7")
    with pytest.raises(InstructionError, match="prompt_to_repeat"):
        check_instruction("combination:repeat_prompt", "Anything at all.", kw, "Say hi.")


# Keywords that start or end with a symbol (upstream's `\bWORD\b` never catches
# "+" or "(note)"), each with a text that has it and one that does not.
SYMBOL_KEYWORDS = [
    ("C++", "I like C++ a lot.", "I like C a lot."),
    ("+", "One + one", "One and one"),
    ("(note)", "See (note) below.", "See note below."),
]


@pytest.mark.parametrize("word,has,lacks", SYMBOL_KEYWORDS)
def test_forbidden_words_with_symbol_edges(word, has, lacks):
    kw = {"forbidden_words": [word]}
    assert check_instruction("keywords:forbidden_words", has, kw, "") is False
    assert check_instruction("keywords:forbidden_words", has.upper(), kw, "") is False
    assert check_instruction("keywords:forbidden_words", lacks, kw, "") is True


@pytest.mark.parametrize("word,has,lacks", SYMBOL_KEYWORDS)
def test_existence_with_symbol_edges(word, has, lacks):
    kw = {"keywords": [word]}
    assert check_instruction("keywords:existence", has, kw, "") is True
    assert check_instruction("keywords:existence", has.lower(), kw, "") is True
    assert check_instruction("keywords:existence", lacks, kw, "") is False


@pytest.mark.parametrize(
    "word,text,followed",
    [
        ("cat", "Do not concatenate.", True),  # a word edge keeps its boundary
        ("cat", "The CAT sat.", False),
        ("cat", "cats and dogs", True),
        ("cat", "a cat_food bowl", True),  # "_" is a word character, as for \b
        ("C++", "ABC++ is a language.", True),  # "C" is a word edge: no match inside "ABC"
        ("C++", "C++17 is out.", False),  # "+" is a symbol edge: no boundary needed after it
        ("(note)", "x(note)y", False),
    ],
)
def test_forbidden_words_boundaries(word, text, followed):
    assert check_instruction("keywords:forbidden_words", text, {"forbidden_words": [word]}, "") is followed


def test_existence_stays_a_substring_match():
    # Upstream's keywords:existence is re.search(keyword, ...): no word boundaries.
    assert check_instruction("keywords:existence", "Do not concatenate.", {"keywords": ["cat"]}, "") is True
    assert check_instruction("keywords:existence", "A dog.", {"keywords": ["cat"]}, "") is False


LETTER_COUNTS = [("#", "#one #two #three #four", 4), ("!", "Hi! Yes!!", 3), ("Z", "Zig zag z", 3), ("z", "ZZZ", 3)]


@pytest.mark.parametrize("letter,text,count", LETTER_COUNTS + [(" a ", "Aha", 2)])
def test_letter_frequency_counts_any_single_character(letter, text, count):
    # Google's IFEval counts punctuation too ("#"); letters case-insensitively.
    cases = [("at least", count, True), ("at least", count + 1, False), ("less than", count + 1, True)]
    for relation, n, expected in cases + [("less than", count, False)]:
        kw = {"letter": letter, "let_frequency": n, "let_relation": relation}
        validate_instructions(["keywords:letter_frequency"], [kw], "p")
        assert check_instruction("keywords:letter_frequency", text, kw, "") is expected, (relation, n)


def test_postscript_marker_is_literal():
    kw = {"postscript_marker": "P.S"}
    assert check_instruction("detectable_content:postscript", "It is possible.", kw, "") is False  # upstream: True
    assert check_instruction("detectable_content:postscript", "Bye.\np.s more", kw, "") is True


def test_deviations_are_listed_in_the_module_docstring():
    doc = ifeval.__doc__
    needles = ["keywords:forbidden_words", "keywords:letter_frequency", "combination:repeat_prompt", "possible"]
    needles += ["detectable_content:postscript", "multiple_sections", "RecursionError", "frequency=0", "word_tokenize"]
    for needle in needles:
        assert needle in doc, needle


def test_none_valued_kwargs_are_ignored():
    kw = {"keywords": None, "num_words": 5, "relation": "at least", "language": None}
    validate_instructions(["length_constraints:number_words"], [kw], "p")
    assert check_instruction("length_constraints:number_words", "a b c d e", kw, "")


def test_language_undetectable_counts_as_followed():
    # langdetect raises on text without letters; IFEval treats that as followed.
    assert check_instruction("language:response_language", "12345 !!!", {"language": "fr"}, "")
    assert check_instruction("change_case:english_lowercase", "123 ...", {}, "") is False  # not islower()


def test_strict_vs_loose():
    ids = ["startend:quotation", "punctuation:no_comma"]
    resp = 'Sure, here it is:\n"quoted text"'
    r = score_if(resp, ids, [{}, {}], "p")
    assert r.strict == (False, False)
    assert r.loose == (True, True)  # first line removed
    assert (r.prompt_strict, r.prompt_loose, r.frac_strict, r.frac_loose) == (False, True, 0.0, 1.0)
    # asterisks removed: "**Title**" bullets etc.
    r = score_if('**"quoted"**', ["startend:quotation"], [{}], "")
    assert r.strict == (False,) and r.loose == (True,)


def test_empty_instruction_list():
    r = score_if("anything", [], [], "")
    assert r == IFResult((), ())
    assert r.prompt_strict and r.frac_strict == 1.0 and r.frac_loose == 1.0


def test_reasoning_modes():
    text = "<think>let me think, with commas, yes</think> final answer without comma"
    ids, kw = ["punctuation:no_comma"], [{}]
    assert score_if(text, ids, kw, "").strict == (False,)
    assert score_if(text, ids, kw, "", reasoning="after_think").strict == (True,)
    text2 = "<think>a, b</think>pre, amble <answer>clean</answer>"
    assert strip_reasoning(text2, "after_think") == "clean"
    assert strip_reasoning("no think tags", "after_think") == "no think tags"
    with pytest.raises(ValueError):
        strip_reasoning("x", "sometimes")


@pytest.mark.parametrize(
    "ids,kwargs,needle",
    [
        (["keywords:nonsense"], [{}], "keywords:nonsense"),
        (["punctuation:no_comma"], [], "punctuation:no_comma"),
        (["length_constraints:number_words"], [{"relation": "at least"}], "num_words"),
        (["length_constraints:number_words"], [{"num_words": "5", "relation": "at least"}], "num_words"),
        (["length_constraints:number_words"], [{"num_words": 5, "relation": "at most"}], "relation"),
        (["punctuation:no_comma"], [{"colour": "red"}], "colour"),
        (["keywords:existence"], [{"keywords": "apple"}], "keywords"),
        (["keywords:letter_frequency"], [{"letter": "ab", "let_frequency": 1, "let_relation": "at least"}], "letter"),
        (["keywords:letter_frequency"], [{"letter": "", "let_frequency": 1, "let_relation": "at least"}], "letter"),
        (["keywords:letter_frequency"], [{"letter": "  ", "let_frequency": 1, "let_relation": "at least"}], "letter"),
        (["keywords:letter_frequency"], [{"letter": "##", "let_frequency": 1, "let_relation": "at least"}], "letter"),
        (["combination:repeat_prompt"], [{"prompt_to_repeat": ""}], "prompt_to_repeat"),
    ],
)
def test_validate_errors_name_prompt_and_instruction(ids, kwargs, needle):
    with pytest.raises(InstructionError) as e:
        validate_instructions(ids, kwargs, "prompt-42")
    assert "prompt-42" in str(e.value)
    assert needle in str(e.value)
    assert ids[0] in str(e.value) or len(kwargs) != len(ids)


def test_check_instruction_rejects_bad_id():
    with pytest.raises(InstructionError):
        check_instruction("nope:nope", "x", {}, "")


def test_sentence_splitter():
    assert count_sentences("") == 0
    # NLTK's English Punkt (WSJ-trained) does not know "e.g." as an abbreviation: it ends a sentence there
    # (tests/test_sentences.py has the sentences nltk.sent_tokenize returns)
    assert count_sentences("Hello world. This is Dr. Smith, e.g. a doctor. Pi is 3.14! Ok?") == 5
    assert count_sentences("Wait... what? He said \"Stop.\" Then left.") == 3
    assert count_sentences("I live in the U.S. and like it.") == 1
    assert count_sentences("no terminator at all") == 1


def test_word_helpers():
    assert count_words("it's a well-known fact, 3.5%") == 8  # it s a well known fact 3 5
    assert [w for w in word_tokens("DON'T stop, THE well-KNOWN end") if w.isupper()] == ["DO", "N'T", "THE"]
