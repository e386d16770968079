"""sentences.split_sentences is NLTK's Punkt with nltk_data's English model (sent_tokenize), built offline."""

import hashlib

import pytest
from nltk import redos
from nltk.tokenize.punkt import PunktLanguageVars
from punkt.data import english

from rlvr_support.scoring.verifiers import sentences
from rlvr_support.scoring.verifiers.sentences import count_sentences, split_sentences

# sha256 of each table of nltk_data's tokenizers/punkt_tab/english/ (punkt_tab.zip, sha256 e57f6418...0e0106),
# its non-empty lines sorted and joined by "\n": the files' own order is not the package's, their entries are.
# Measured by scripts/make_ifbench_fixtures.sh's archive; its punkt stage compares the two splitters on real text.
NLTK_DATA_TABLES = {
    "abbrev_types": (156, "0ab7d6b126eed733d9bc5733d3a51ea575e90ece1b908e77c9d5b74e2a54213a"),
    "collocations": (37, "73d7f183e9cf31ee6edf41df100a6f57c72404db66f599fe86b3fb2e6148f35f"),
    "sent_starters": (39, "8a66e19f1bf6a03061dbcda945e46839d09612f8235dbcb1b994f59184ecc989"),
    "ortho_context": (20366, "d762d271cb556bab69960781a49eb034588801983af80d39ac936362c812084f"),
}
# What nltk.sent_tokenize (nltk 3.10.4, nltk_data's punkt_tab) returns for these, measured with the real data.
REFERENCE = {
    "Hello world. This is Dr. Smith, e.g. a doctor. Pi is 3.14! Ok?":
        ["Hello world.", "This is Dr. Smith, e.g.", "a doctor.", "Pi is 3.14!", "Ok?"],
    'Wait... what? He said "Stop." Then left.': ["Wait... what?", 'He said "Stop."', "Then left."],
    "I live in the U.S. and like it.": ["I live in the U.S. and like it."],
    "The U.S. Army arrived. Then it left.": ["The U.S. Army arrived.", "Then it left."],
    "Mr. J. R. R. Tolkien wrote it in 1954. It sold well.": ["Mr. J. R. R. Tolkien wrote it in 1954.", "It sold well."],
    "1. First item. 2. Second item.": ["1.", "First item.", "2.", "Second item."],
    "(Sent1.) Sent2.": ["(Sent1.)", "Sent2."],
    "  Hello. World  ": ["  Hello.", "World"],
    "no terminator at all": ["no terminator at all"],
    "   ": [],
    "": [],
}


def _digest(lines) -> str:
    return hashlib.sha256("\n".join(sorted(lines)).encode()).hexdigest()


def test_the_package_tables_are_nltk_datas():
    tables = {
        "abbrev_types": english.ABBREV_TYPES,
        "collocations": [f"{a}\t{b}" for a, b in english.COLLOCATIONS],
        "sent_starters": english.SENT_STARTERS,
        "ortho_context": [f"{k}\t{v}" for k, v in english.ORTHO_CONTEXT.items()],
    }
    assert {name: (len(lines), _digest(lines)) for name, lines in tables.items()} == NLTK_DATA_TABLES
    params = sentences.punkt_tokenizer()._params
    assert params.abbrev_types == set(english.ABBREV_TYPES) and params.ortho_context["zurich"] == 4


@pytest.mark.parametrize("text", REFERENCE)
def test_splits_as_nltk_sent_tokenize(text):
    assert split_sentences(text) == REFERENCE[text]
    assert count_sentences(text) == len(REFERENCE[text])


def test_the_period_pattern_runs_without_nltks_wall_clock_limit(monkeypatch):
    # the override point this module relies on (nltk 3.10.4)
    assert "period_context_re" in vars(PunktLanguageVars)
    pattern = sentences.punkt_tokenizer()._lang_vars.period_context_re()
    assert isinstance(pattern, redos.TimedPattern) and pattern._timeout is None
    # with nltk's own limit at 1 ms, a long text (about 0.2 s of Punkt) is still split, not a TimeoutError
    monkeypatch.setattr(redos, "DEFAULT_TIMEOUT", 0.001)
    text = "It rained. " * 2_000 + "Dr. Who left."
    assert count_sentences(text) == 2_001
    with pytest.raises(TimeoutError):  # the unguarded nltk tokenizer, for contrast
        type(sentences.punkt_tokenizer())(sentences.punkt_tokenizer()._params).tokenize(text)


def test_unseen_words_are_not_stored():
    contexts = sentences.punkt_tokenizer()._params.ortho_context
    size = len(contexts)
    assert count_sentences("It is Zqxv. qwzz follows. Vvxq ends.") == 3
    assert len(contexts) == size and contexts["qwzz"] == 0 and "qwzz" not in contexts


def test_split_returns_a_fresh_list():
    first = split_sentences("One. Two.")
    first.append("x")
    assert split_sentences("One. Two.") == ["One.", "Two."]
