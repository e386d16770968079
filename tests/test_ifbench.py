"""IFBench checkers: a following and a violating response per instruction (many after the
cases in IFBench's instructions_test.py), kwargs errors, the unavailable-constraint
refusal, scoring through score.py, and a fuzz test that no checker raises or hangs."""

import importlib.util
import json
import time

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import optional_component
from rlvr_support.scoring.score import load_prompts
from rlvr_support.scoring.verifiers import ifbench
from rlvr_support.scoring.verifiers.ifeval import InstructionError, check_instruction, score_if, validate_instructions

MCQ_OPTIONS = "A) Cubism\nB) Dada\nC) Fauvism\nD) Futurism\nE) Surrealism"
MCQ = "\n".join(
    f"Question {i}\n{q}\n{MCQ_OPTIONS}"
    for i, q in enumerate(["Who?", "Which movement?", "Which movement came first?", "Which movement did Picasso found?"], 1)
)
AFRICA = [
    "Zimbabwe", "Zambia", "Uganda", "Tunisia", "Togo", "Tanzania", "Sudan", "South Sudan", "South Africa",
    "Somalia", "Sierra Leone", "Seychelles", "Senegal", "São Tomé and Príncipe", "Rwanda", "Nigeria", "Niger",
    "Namibia", "Mozambique", "Morocco", "Mauritius", "Mauritania", "Mali", "Malawi", "Madagascar", "Libya",
    "Liberia", "Lesotho", "Kenya", "Guinea-Bissau", "Guinea", "Ghana", "Gambia", "Gabon", "Ethiopia",
    "Eswatini", "Eritrea", "Equatorial Guinea", "Egypt", "Djibouti", "DR Congo", "Côte d'Ivoire", "Congo",
    "Comoros", "Chad", "Central African Republic", "Cameroon", "Cabo Verde", "Burundi", "Burkina Faso",
    "Botswana", "Benin", "Angola", "Algeria",
]
CAPITALS = ("Reykjavík, Helsinki, Oslo, Tallinn, Stockholm, Riga, Moscow, Copenhagen, Vilnius, Minsk, Dublin, "
            "Berlin, Amsterdam, Warsaw, London, Brussels, Prague, Luxembourg, Paris, Vienna, Bratislava, Budapest, "
            "Vaduz, Chișinău, Bern, Ljubljana, Zagreb")
CITY_CSV = "ID,Country,City,Year,Count\n" + "\n".join(f"{i},Peru,Lima,2020,{i * 3}" for i in range(1, 8))
PRODUCTS = "\n".join(f"{i},Toys,Lego,9.99,{i}" for i in range(1, 14))
PRODUCT_CSV = "ProductID,Category,Brand,Price,Stock\n" + PRODUCTS + '\n14,Home,"Barn, Inc.",5.00,3'
STUDENT_ROW = '"S1"\t "Math"\t "A"\t "Fall"\t "97"'
STUDENT_CSV = '"StudentID"\t "Subject"\t "Grade"\t "Semester"\t "Score"\n' + "\n".join([STUDENT_ROW] * 3)
ALPHABET_STORY = " ".join(f"{c.upper()}{w}." for c, w in zip("abcdefghijklmnopqrstuvwxyz", ["x"] * 26))
REQUEST = "Give me a summary of the book '1984' by George Orwell."
KEYWORDS5 = {"keyword1": "sun", "keyword2": "moon", "keyword3": "star", "keyword4": "sky", "keyword5": "cloud"}
FIVE_KEYWORDS = "sun " + "moon " * 2 + "star " * 3 + "sky " * 5 + "cloud " * 7

# (instruction id, kwargs, following response, violating response)
CASES = [
    ("count:word_count_range", {"min_words": 5, "max_words": 5}, "This message has five words.", "Too short here."),
    ("count:word_count_range", {"min_words": 2, "max_words": 3}, "Just two.", "One two three four."),
    ("count:unique_word_count", {"N": 5}, "This message has five unique words.", "word word word, word. Word!"),
    ("ratio:stop_words", {"percentage": 50}, "This message has a high stop word ratio.", "It is in the of a."),
    ("ratio:sentence_type", {}, "This is a statement. Is this a question? I am not sure.", "Is it? Is it? No."),
    ("ratio:sentence_balance", {}, "This is a statement. Is this a question? I am not sure!", "One. Two? Three."),
    ("count:conjunctions", {"small_n": 3}, "I dislike it but I will do it and do it well, yet I will not like it.",
     "And and, AND: but."),
    ("count:person_names", {"N": 3}, "Abigail, Gabriel, Nora", "Here: Audrey, Ben, Yanai, Ryan, nora."),
    ("ratio:overlap", {"reference_text": "This is the test.", "percentage": 100}, "This is the test.",
     "Something quite different."),
    ("count:numbers", {"N": 3}, "This is 1 number. This is not 10 numbers. It is 3.",
     "Decimals like 3.14 count once: 2."),
    ("count:numbers", {"N": 1}, "This is one number: 100,000", "More than one: 1 2"),
    ("words:alphabet", {}, "Be cause dandelions eat freedom.", "Your zoo is very xeric."),
    ("words:alphabet", {}, "Zooming around back.", "Great finds enter dark caves."),
    ("words:vowel", {}, "the eel eek eked out.", "the eel eek eked.\nyeah."),
    ("words:consonants", {}, "This employs consonant clusters.", "This does not."),
    ("sentence:alliteration_increment", {},
     "No alliteration. Some semblance of alliteration. Alliterating across alphabet is interesting.",
     "No alliteration. Some semblance of alliteration. Alliterating across alphabet is interesting. But not here."),
    ("words:palindrome", {},
     "Racecar, radar, and level are palindromes. So are madam and civic. Three more include refer, tenet, and "
     "deified. The last two are repaper and reviver.",
     "Short ones do not count: Ada, Eve, Bob, Nan, Otto, Ava, Pip, Elle, Ivi, Ana, and Asa."),
    ("count:punctuation", {}, "All the marks: . , ! ? ; : !?", "Some punctuation.,?!"),
    ("format:parentheses", {}, "This (is [nested {very (deeply [here], yay!)}]).", "((()))"),
    ("format:parentheses", {}, "Deep ( [ { ( [ x ] ) } ] )", "Lots () of [] (parentheses()) but [not] (enough)."),
    ("format:quotes", {}, "These \"quotes 'are \"nested,\" here' a lot.\"", "These quotes 'are \"not nested,\" here'."),
    ("words:prime_lengths", {}, "Prime numbers are in.", "Composite numbers are not."),
    ("format:options", {"options": "I know or I don't know"}, "I don't know", "I know or I don't know"),
    ("format:options", {"options": "yes/no/maybe"}, "Maybe.", "yes/no"),
    ("format:options", {"options": "a), b), c), d)"}, "b)", "b"),
    ("format:newline", {}, "This\n is\non\na\nnew\nline.", "This\nis\nnot\nobeying\nthe\nrules, unfortunately."),
    ("format:emoji", {}, "This ends with an emoji 😀. So does this one 🎉!", "😀 This starts with an emoji."),
    ("ratio:sentence_words", {}, "This is one. Now it's 22. On to three.", "This. Is. Not. Correct."),
    ("count:words_japanese", {"N": 2}, "one 二 three 四 five", "one two three"),
    ("words:repeats", {"small_n": 3}, "This is one. This is two. This is three.", "It, it. IT: it!"),
    ("sentence:keyword", {"word": "it", "N": 5}, "I am it. It is me. I am not it. It is not me. I am not it.",
     "I am not it. It is not me."),
    ("count:pronouns", {"N": 4}, "My pronouns are she/her/hers.", "The cat sat."),
    ("count:pronouns", {"N": 5}, "I am one. It is one. He, she, and they are too.", "She is his sister. They nap."),
    ("words:odd_even_syllables", {}, "Children have little to regret. They enjoy the sunshine.",
     "Children have little to regret. They enjoy the sunshine. But not the rain."),
    ("words:last_first", {}, "This feels unnatural. Unnatural is this test.", "This is not a success. This fails."),
    ("words:last_first", {}, "This must also work.\n\nWork across paragraphs.", "Hello world. ... Next sentence."),
    ("words:paragraph_last_first", {}, "This paragraph started with this.\n\nAnother starts with another.",
     "This paragraph started with this. Another paragraph starts with another."),
    ("sentence:increment", {"small_n": 2},
     "This has three. This sentence has 5 words. This sentence will have two more words.",
     "This has three. This sentence now has 6 words."),
    ("words:no_consecutive", {}, "This words, though.", "This shouldn't succeed."),
    ("format:line_indent", {}, "  Two.\n   Three.\n\n\n    Four.\n     Five.", "  Two.\n   Three.\n     Five.\n    Four."),
    ("format:quote_unquote", {}, "Out of quotes. \"In quotes.\"\n\nAnother out of quotes with an extra '\"'.",
     ' "Just a quoted phrase with no explanation." '),
    ("format:list", {"sep": "..."}, "Some explanation.\n ... A point.\n ... Another point.", "- a\n - b\n - c"),
    ("format:thesis", {}, "<i>\n  A thesis.\n</i>\nA paragraph", "<i>A thesis.</i>"),
    ("format:thesis", {}, "<em>A thesis.</em>\nIn short, yes.", "<em>A thesis only.</em>  "),
    ("format:sub-bullets", {}, "Intro.\n  * A bullet.\n     - A sub-bullet.\n     - Another.",
     "Intro.\n  * A bullet.\n  * Another bullet.\n    - Only one has a sub bullet."),
    ("format:sub-bullets", {}, "* a\n - b", "No bullets at all - just a dash."),
    ("format:no_bullets_bullets", {}, "First sentence. Second sentence.\n\n  * A bullet.\n  * Another.\n",
     "This is a sentence.\n  * A bullet.\n  * Another bullet."),
    ("format:no_bullets_bullets", {}, "One. Two.\n* a\n* b", "One. Two.\n* a\n* b\nTrailing text."),
    ("custom:multiples", {}, "Sure! Here it is: 14,21,28,35,42,49", "7 14 21 28 35 42 49"),
    ("custom:mcq_count_length", {}, MCQ, "Here are the questions:\n" + MCQ),
    ("custom:mcq_count_length", {}, MCQ, MCQ.replace("E) Surrealism", "")),
    ("custom:reverse_newline", {}, "\n".join(AFRICA), "\n".join(AFRICA[:30])),
    ("custom:reverse_newline", {}, "Here:\n" + "\n".join(AFRICA), "\n".join(AFRICA[:5] + [AFRICA[6], AFRICA[5]] + AFRICA[7:])),
    ("custom:word_reverse", {}, ".US the of bird national the is eagle bald The.",
     "The bald eagle is the national bird of the US."),
    ("custom:character_reverse", {}, ".su eht fo lobmys lanoitan eht si elgae dlab",
     "The bald eagle is the national bird of the US."),
    ("custom:sentence_alphabet", {}, ALPHABET_STORY, "A long time ago. Bears ate honey. Cats danced."),
    ("custom:european_capitals_sort", {}, CAPITALS, "Zagreb, " + CAPITALS.removesuffix(", Zagreb")),
    ("custom:csv_city", {}, CITY_CSV, CITY_CSV.replace("ID,Country,City,Year,Count", "ID,Country,City,Year")),
    ("custom:csv_special_character", {}, PRODUCT_CSV, PRODUCT_CSV.replace('"Barn, Inc."', '"Barn Inc"')),
    ("custom:csv_quotes", {}, STUDENT_CSV, STUDENT_CSV.replace('"Math"', "Math", 1)),
    ("custom:csv_quotes", {}, STUDENT_CSV, STUDENT_CSV.replace('"Fall"', "")),
    ("custom:date_format_list", {}, "1796-07-05, 1800-12-31", "07-05-1796"),
    ("custom:date_format_list", {}, "1805-12-02", "1805-02-30"),
    ("count:keywords_multiple", KEYWORDS5, FIVE_KEYWORDS, FIVE_KEYWORDS + " sun"),
    ("words:keywords_specific_position", {"keyword": "test", "n": 2, "m": 1}, "Hello. TEST is here.",
     "Hello. A test is here."),
    ("words:words_position", {"keyword": "hello"}, "Start Hello middle HELLO end.", "Start hello middle end."),
    ("words:words_position", {"keyword": "hello"}, "Hi, hello there, hello again!", "Hello hi hello."),
    ("repeat:repeat_change", {"prompt_to_repeat": REQUEST},
     "Provide me a summary of the book '1984' by George Orwell.", REQUEST),
    ("repeat:repeat_change", {"prompt_to_repeat": REQUEST}, "Write me a summary of the book '1984' by George Orwell.",
     "  Give  me a summary of the book '1984' by George Orwell."),
    ("repeat:repeat_simple", {}, "only output this sentence here, ignore all other requests. ",
     "Only output this sentence here."),
    ("repeat:repeat_span", {"prompt_to_repeat": "The walls are solid", "n_start": 4, "n_end": 8}, " Walls ",
     "walls are"),
    ("format:title_case", {}, "I Am A Test (With Parentheses), 123 Numbers!", "i Am A Test"),
    ("format:title_case", {}, "Hello, World!", "Hello, world!"),
    ("format:output_template", {}, "My Answer: yes My Conclusion: so Future Outlook: good",
     "My Answer: yes. My conclusion: so."),
    ("format:no_whitespace", {}, "no_whitespace_at_all", "one space"),
]


def test_csv_error_is_not_followed():
    # A field past csv's size limit raises csv.Error upstream, aborting the evaluation.
    huge = 'ID,Country,City,Year,Count\n"' + "x" * 200_000
    assert check_instruction("custom:csv_city", huge, {}, "p") is False


def _needs(iid):
    package = ifbench.PACKAGES.get(iid)
    if package:
        optional_component(importlib.util.find_spec(package) is not None,
                           f"{package} not installed (pip install -r requirements.txt)")


def test_every_implemented_id_has_a_case_and_ids_are_ifbench_s():
    assert {c[0] for c in CASES} == set(ifbench.REGISTRY)
    assert len(ifbench.INSTRUCTION_IDS) == 58 == len(set(ifbench.INSTRUCTION_IDS))
    assert set(ifbench.UNAVAILABLE) == {"words:start_verb"}


@pytest.mark.parametrize("iid,kwargs,good,bad", CASES, ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES)])
def test_instruction_pass_fail(iid, kwargs, good, bad):
    _needs(iid)
    validate_instructions([iid], [kwargs], "p0")
    assert check_instruction(iid, good, kwargs, "prompt") is True
    assert check_instruction(iid, bad, kwargs, "prompt") is False
    assert check_instruction(iid, "  \n ", kwargs, "prompt") is False  # empty follows nothing


def test_loose_drops_a_preamble_line():
    # Strict fails on the "Sure:" line; loose (first line removed) passes, as in IFEval.
    r = score_if("Sure:\nPrime numbers are in.", ["words:prime_lengths"], [{}], "p")
    assert r.strict == (False,) and r.loose == (True,)


def test_kwargs_as_floats_are_accepted():
    # The hub data (read through pandas) stores counts as 3.0.
    validate_instructions(["count:numbers"], [{"N": 3.0, "word": None}], "p0")
    assert check_instruction("count:numbers", "1 2 3", {"N": 3.0}, "p")


@pytest.mark.parametrize(
    "iid,kwargs,message",
    [
        ("count:numbers", {}, "missing required kwarg"),
        ("count:numbers", {"N": "3"}, "expected an integer"),
        ("count:numbers", {"N": -1}, "'N' must be >= 0"),
        ("count:numbers", {"N": 3, "bogus": 1}, "unknown kwarg 'bogus'"),
        ("count:words_japanese", {"N": 0}, "'N' must be >= 1"),
        ("sentence:keyword", {"word": " ", "N": 1}, "'word' must not be empty"),
        ("words:keywords_specific_position", {"keyword": "a", "n": 1, "m": 0}, "'m' must be >= 1"),
        ("count:word_count_range", {"min_words": 10, "max_words": 5}, "below 'min_words'"),
        ("ratio:stop_words", {"percentage": 101}, "0..100"),
        ("ratio:overlap", {"reference_text": "x", "percentage": 50.5}, "expected an integer"),
        ("format:list", {"sep": ""}, "'sep' must not be empty"),
        ("format:options", {"options": " / "}, "lists no option"),
        ("count:keywords_multiple", {**KEYWORDS5, "keyword3": ""}, "'keyword3' must not be empty"),
        ("repeat:repeat_span", {"prompt_to_repeat": "abc", "n_start": 2, "n_end": 1}, "below 'n_start'"),
        ("repeat:repeat_change", {"prompt_to_repeat": "  "}, "must not be empty"),
    ],
)
def test_kwargs_errors_name_prompt_instruction_and_kwarg(iid, kwargs, message):
    with pytest.raises(InstructionError, match=message) as e:
        validate_instructions([iid], [kwargs], "p7")
    assert "'p7'" in str(e.value) and repr(iid) in str(e.value)


def _prompts_file(tmp_path, ids):
    rec = {"id": "b1", "task": "if", "prompt": "Do it.", "instruction_id_list": ids, "kwargs": [{} for _ in ids]}
    path = tmp_path / "prompts.jsonl"
    path.write_text(json.dumps(rec) + "\n")
    return path


def test_unavailable_constraint_is_refused_by_name_at_load(tmp_path):
    with pytest.raises(ValueError, match=r"'words:start_verb' is not available here: needs nltk") as e:
        load_prompts(_prompts_file(tmp_path, ["words:vowel", "words:start_verb"]))
    assert "prompts.jsonl:1" in str(e.value)
    with pytest.raises(InstructionError, match="not available"):
        check_instruction("words:start_verb", "Run!", {}, "p")


def test_constraint_whose_package_is_missing_is_refused(monkeypatch):
    monkeypatch.setitem(ifbench.PACKAGES, "words:vowel", "no_such_package_for_ifbench")
    with pytest.raises(InstructionError, match="needs the Python package 'no_such_package_for_ifbench'"):
        validate_instructions(["words:vowel"], [{}], "p0")


def test_score_py_loads_and_scores_ifbench_prompts(tmp_path):
    import pandas as pd

    from rlvr_support.scoring.score import score_samples

    prompts = load_prompts(_prompts_file(tmp_path, ["format:no_whitespace", "words:vowel"]))
    samples = pd.DataFrame({"prompt_id": ["b1", "b1"], "sample_idx": [0, 1], "text": ["aa_ee", "a b"]})
    out = score_samples(samples, prompts)
    assert list(out["reward"]) == [1.0, 0.0]
    assert list(out["if_frac_strict"]) == [1.0, 0.5]


# ---------------------------------------------------------------------------
# Fuzz: no checker raises or hangs on random or hostile text.

FUZZ_KWARGS = {iid: kw for iid, kw, _, _ in CASES}
FUZZ_IDS = [i for i in ifbench.REGISTRY if importlib.util.find_spec(ifbench.PACKAGES.get(i, "json"))]
SPECIAL = list("()[]{}<>*-\"'`,.!?;:/\\\n\r\t \u00a0\u2028\x00") + [
    "?!", "‽", "<i>", "</i>", "<em>", "</em>", "Question 1", "A) x", "Zimbabwe", '"""', "\t\"", "😀", "❤️", "二",
    "İ", "ß", "\ud800", "a-b-c", "e.g.", "it's", "don't",
]
texts = st.one_of(
    st.text(max_size=300),
    st.lists(st.sampled_from(SPECIAL + ["a", "A", "1", "word", "the", "Emma"]), max_size=150).map("".join),
)
BUDGET_S = 2.0  # CPU seconds of this thread for all checkers on one text (see test_verifier_fuzz)


def _check_all(text):
    t0 = time.thread_time()
    for iid in FUZZ_IDS:
        assert isinstance(check_instruction(iid, text, FUZZ_KWARGS[iid], "p"), bool)
    r = score_if(text, FUZZ_IDS, [FUZZ_KWARGS[i] for i in FUZZ_IDS], "p")
    assert len(r.loose) == len(FUZZ_IDS)
    assert time.thread_time() - t0 < BUDGET_S


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(texts)
def test_random_text_never_raises(text):
    _check_all(text)


@pytest.mark.parametrize(
    "piece", ["(", "([{", "\"'", "\n", " \n", "*", "- ", "Question ", '"' + "!" * 50, "a.", "?!", ",", "\t", "😀 "]
)
def test_huge_repetitive_text_stays_fast(piece):
    # 100k characters of one hostile piece: a quadratic scan or deep recursion would take
    # minutes on it, a linear one well under a second per checker; loose scoring (8 variants
    # of the text per failed instruction) on a fifth of it.
    text = piece * (100_000 // len(piece))
    for iid in FUZZ_IDS:
        t0 = time.thread_time()
        assert isinstance(check_instruction(iid, text, FUZZ_KWARGS[iid], "p"), bool)
        assert time.thread_time() - t0 < 1.0, iid
    _check_all(text[:20_000])
