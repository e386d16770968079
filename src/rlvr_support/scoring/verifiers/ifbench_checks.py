"""IFBench's checker functions (see `ifbench` for the registry, the kwargs checks and the
one full list of deviations from AllenAI's reference code, numbered as cited here).

Each checker takes (response, kwargs-without-None, prompt) and returns bool; the response
is never executed or parsed as code, and every scan is linear in its length.
"""

from __future__ import annotations

import csv
import functools
import importlib
import io
import re
import string
import unicodedata
from collections import Counter

from rlvr_support.scoring.verifiers.sentences import count_words, split_sentences, treebank_words as _words, whole_word

_PUNCT = string.punctuation
_DROP_PUNCT = str.maketrans("", "", _PUNCT)


@functools.cache
def _package(name: str):
    return importlib.import_module(name)


def _strip(word: str) -> str:
    return word.strip(_PUNCT + " ")


@functools.lru_cache(maxsize=4)
def _sentences(text: str) -> tuple[str, ...]:
    # A dozen checkers split the same response: split it once.
    return tuple(split_sentences(text))


# ---------------------------------------------------------------------------
# Counts and ratios.


def word_count_range(v, kw, _):
    return kw["min_words"] <= count_words(v) <= kw["max_words"]


def unique_word_count(v, kw, _):
    unique = {_strip(w) for w in v.lower().split()} - {""}  # deviation 4
    return len(unique) >= kw["N"]


# nltk's English stopwords corpus (its long-standing 179 words; later releases add 19 more,
# all with an apostrophe). Tokens are `\w+` runs, so no entry with an apostrophe ("don't")
# can match: only the 153 without one matter, and those are the same in every release.
STOP_WORDS = frozenset("""
    i me my myself we our ours ourselves you you're you've you'll you'd your yours yourself
    yourselves he him his himself she she's her hers herself it it's its itself they them their
    theirs themselves what which who whom this that that'll these those am is are was were be
    been being have has had having do does did doing a an the and but if or because as until
    while of at by for with about against between into through during before after above below
    to from up down in out on off over under again further then once here there when where why
    how all any both each few more most other some such no nor not only own same so than too
    very s t can will just don don't should should've now d ll m o re ve y ain aren aren't
    couldn couldn't didn didn't doesn doesn't hadn hadn't hasn hasn't haven haven't isn isn't ma
    mightn mightn't mustn mustn't needn needn't shan shan't shouldn shouldn't wasn wasn't weren
    weren't won won't wouldn wouldn't
    """.split())
_WORD = re.compile(r"\w+")


def stop_words(v, kw, _):
    words = _WORD.findall(v)
    if not words:
        return False
    stop = sum(1 for w in words if w.lower() in STOP_WORDS)
    return stop / len(words) * 100 <= kw["percentage"]


def _sentence_endings(v: str) -> Counter:
    return Counter(s[-1] for s in _sentences(v))


def sentence_type(v, kw, _):
    ends = _sentence_endings(v)
    return ends["."] == 2 * ends["?"]


def sentence_balance(v, kw, _):
    ends = _sentence_endings(v)
    return ends["."] == ends["?"] == ends["!"]


_CONJUNCTIONS = frozenset({"and", "but", "for", "nor", "or", "so", "yet"})


def conjunctions(v, kw, _):
    found = {w for w in (_strip(t).lower() for t in v.split()) if w in _CONJUNCTIONS}  # deviation 5
    return len(found) >= kw["small_n"]


PERSON_NAMES = (
    "Emma Liam Sophia Jackson Olivia Noah Ava Lucas Isabella Mason Mia Ethan Charlotte Alexander "
    "Amelia Benjamin Harper Leo Zoe Daniel Chloe Samuel Lily Matthew Grace Owen Abigail Gabriel Ella "
    "Jacob Scarlett Nathan Victoria Elijah Layla Nicholas Audrey David Hannah Christopher Penelope "
    "Thomas Nora Andrew Aria Joseph Claire Ryan Stella Jonathan"
).split()
# Upstream: re.search(r"\bNAME\b") per name, case-sensitive. One pass finds the same set:
# a match is one whole word, so matches of different names never overlap.
_NAMES = re.compile(r"\b(?:" + "|".join(PERSON_NAMES) + r")\b")


def person_names(v, kw, _):
    return len(set(_NAMES.findall(v))) >= kw["N"]


def _char_trigrams(text: str) -> set[str]:
    return {text[i : i + 3] for i in range(len(text) - 2)}


def overlap(v, kw, _):
    """Character trigrams (upstream: nltk.ngrams over the string), as a share of the response's."""
    grams = _char_trigrams(v)
    if not grams:
        return False
    share = len(grams & _char_trigrams(kw["reference_text"])) / len(grams) * 100
    return kw["percentage"] - 2 <= share <= kw["percentage"] + 2


_DIGITS = re.compile(r"\d+")


def numbers(v, kw, _):
    # Punctuation is dropped first, so "3.14" and "100,000" are one number each.
    return len(_DIGITS.findall(v.translate(_DROP_PUNCT))) == kw["N"]


_PRONOUNS = frozenset("""
    i me we us you he him she her it they them my mine our ours your yours his hers its their
    theirs myself ourselves yourself yourselves himself herself itself themselves this that these
    those who whom whose which what whoever whomever whatever whichever anybody anyone anything
    everybody everyone everything nobody nothing somebody someone something each either neither
    both all some any none
    """.split())


def pronouns(v, kw, _):
    # "/" is a separator, so "she/her/hers" counts three (upstream).
    return sum(1 for w in _words(v.lower().replace("/", " ")) if w in _PRONOUNS) >= kw["N"]


def keywords_multiple(v, kw, _):
    low = v.lower()
    wanted = zip((kw[f"keyword{i}"].strip().lower() for i in range(1, 6)), (1, 2, 3, 5, 7))
    return all(low.count(word) == times for word, times in wanted)


def punctuation(v, kw, _):
    """Every one of . , ! ? ; : and an interrobang ("?!", "!?" or "‽"); the interrobang's own
    marks do not count for "!" and "?" (upstream removes the first one before looking)."""
    if "?!" in v:
        rest = v.replace("?!", "", 1)
    elif "!?" in v:
        rest = v.replace("!?", "", 1)
    elif "‽" in v:
        rest = v
    else:
        return False
    return set(".,!?;:") <= set(rest)


# ---------------------------------------------------------------------------
# Words.


def alphabet(v, kw, _):
    words = v.translate(_DROP_PUNCT).split()
    if not words or words[0][0].lower() not in string.ascii_lowercase:
        return False
    letter = string.ascii_lowercase.index(words[0][0].lower())
    for word in words[1:]:
        letter = (letter + 1) % 26
        if word.lower()[0] != string.ascii_lowercase[letter]:
            return False
    return True


def vowel(v, kw, _):
    # One paragraph (no newline inside) using at most three of a, e, i, o, u.
    lines = v.strip().split("\n")
    return len(lines) == 1 and len(set(lines[0].lower()) & set("aeiou")) <= 3


_CONSONANTS = frozenset("bcdfghjklmnpqrstvwxyz")


def _has_cluster(word: str) -> bool:
    return any(a in _CONSONANTS and b in _CONSONANTS for a, b in zip(word, word[1:]))


def consonants(v, kw, _):
    return all(_has_cluster(w) for w in v.lower().split())


def palindrome(v, kw, _):
    words = v.translate(_DROP_PUNCT).lower().split()
    return sum(1 for w in words if len(w) >= 5 and w == w[::-1]) >= 10


_PRIMES = frozenset({2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37, 41, 43, 47, 53, 59, 61, 67, 71, 73, 79, 83, 89, 97})


def prime_lengths(v, kw, _):
    # Upstream's table of primes below 100: a longer word fails.
    return all(len(w) in _PRIMES for w in v.translate(_DROP_PUNCT).split())


_JAPANESE = re.compile(r"[\u3040-\u30ff\u4e00-\u9fff]")  # hiragana, katakana, CJK ideographs


def words_japanese(v, kw, _):
    n = kw["N"]
    for i, word in enumerate(v.split(), 1):
        word = _strip(word)
        if i % n == 0 and word and not word.isdigit() and not _JAPANESE.search(word):
            return False
    return True


def repeats(v, kw, _):
    counts = Counter(v.lower().translate(_DROP_PUNCT).split())
    return max(counts.values(), default=0) <= kw["small_n"]


def odd_even_syllables(v, kw, _):
    syllapy = _package("syllapy")
    parity = [syllapy.count(w) % 2 for w in v.translate(_DROP_PUNCT).lower().split()]
    return all(a != b for a, b in zip(parity, parity[1:]))


def no_consecutive(v, kw, _):
    words = v.lower().translate(_DROP_PUNCT).split()
    return all(a[0] != b[0] for a, b in zip(words, words[1:]))


def last_first(v, kw, _):
    sentences = _sentences(v)
    for this, nxt in zip(sentences, sentences[1:]):
        last = this.rstrip(_PUNCT + " ").split()
        first = nxt.lstrip(_PUNCT + " ").split()
        if not last or not first or last[-1].lower() != first[0].lower():
            return False
    return True


def paragraph_last_first(v, kw, _):
    for line in v.split("\n"):
        words = _strip(line.strip().lower()).split()
        if words and words[0] != words[-1]:
            return False
    return True


def keywords_specific_position(v, kw, _):
    sentences = _sentences(v)
    if len(sentences) < kw["n"]:
        return False
    words = [w for w in _words(sentences[kw["n"] - 1]) if any(c.isalnum() for c in w)]
    return len(words) >= kw["m"] and words[kw["m"] - 1].lower() == kw["keyword"].strip().lower()


def words_position(v, kw, _):
    words = [w.lower() for w in _words(v) if any(c.isalnum() for c in w)]  # deviation 6
    keyword = kw["keyword"].strip().lower()
    return len(words) >= 2 and words[1] == words[-2] == keyword


def title_case(v, kw, _):
    for word in _words(v):
        if not word[0].isalpha():
            continue
        if len(word) == 1:
            if word.islower():
                return False
        elif word[0].islower() and (word[1:].isupper() or word[1:].islower()):
            return False
    return True


# ---------------------------------------------------------------------------
# Sentences.


def _alliteration_run(sentence: str) -> int:
    """Words in runs of consecutive words sharing a first letter (a run of k counts k)."""
    words = [w for w in (t.lstrip(_PUNCT + " ") for t in sentence.lower().split()) if w]
    total, in_run = 0, False
    for a, b in zip(words, words[1:]):
        if a[0] == b[0]:
            total += 1 if in_run else 2
            in_run = True
        else:
            in_run = False
    return total


def alliteration_increment(v, kw, _):
    runs = [_alliteration_run(s) for s in _sentences(v)]
    return all(a < b for a, b in zip([-1] + runs, runs))


def _sentence_word_count(sentence: str) -> int:
    return len(sentence.translate(_DROP_PUNCT).split())


def increment(v, kw, _):
    counts = [_sentence_word_count(s) for s in _sentences(v)]
    return all(b == a + kw["small_n"] for a, b in zip(counts, counts[1:]))


def sentence_keyword(v, kw, _):
    sentences = _sentences(v)
    n = kw["N"]
    return len(sentences) >= n and whole_word(kw["word"].strip()).search(sentences[n - 1]) is not None


def sentence_words(v, kw, _):
    """Three sentences of equal length (upstream does not check that the words differ)."""
    sentences = _sentences(v)
    return len(sentences) == 3 and len({len(s) for s in sentences}) == 1


def _is_emoji(ch: str) -> bool:
    return _package("emoji").is_emoji(ch)


def emoji_endings(v, kw, _):
    """An emoji among the last two characters of each sentence (punctuation ignored), or, when
    the splitter put it after the break, as the first character of the next sentence."""
    sentences = [s.translate(_DROP_PUNCT).strip() for s in _sentences(v)]
    for i, s in enumerate(sentences):
        if not s:
            return False
        if _is_emoji(s[-1]) or _is_emoji(s[-2:-1] or s[-1]):
            continue
        if i == len(sentences) - 1 or not sentences[i + 1] or not _is_emoji(sentences[i + 1][0]):
            return False
    return True


# ---------------------------------------------------------------------------
# Format.


def parentheses(v, kw, _):
    """A matched closing bracket inside a group at least 5 deep; a mismatched one resets."""
    pairs = {")": "(", "]": "[", "}": "{"}
    stack: list[str] = []
    deepest = 0
    for ch in v:
        if ch in "([{":
            stack.append(ch)
            deepest = max(deepest, len(stack))
        elif ch in pairs:
            if stack and stack[-1] == pairs[ch]:
                stack.pop()
                if deepest >= 5 and len(stack) < deepest:
                    return True
            else:
                stack, deepest = [], 0
    return False


def quotes(v, kw, _):
    """Quotes 3 deep: a quote char closes the innermost open quote if it is the same char,
    else opens a new level; True once 3 levels have closed below the deepest reached."""
    stack: list[str] = []
    reached = 0
    for ch in v:
        if stack and ch == stack[-1]:
            stack.pop()
            if reached - len(stack) >= 3:
                return True
        elif ch in "\"'":
            stack.append(ch)
            reached = max(reached, len(stack))
    return False


def option_list(options: str) -> tuple[bool, list[str]]:
    """(exact, options) as upstream parses the kwarg: "a), b), c)"-like lists must be
    answered exactly; others compare stripped and lower-cased."""
    exact = re.match(r"\W*[aA]\W*[bB]\W*[cC]\W*", options) is not None
    sep = "/" if "/" in options else "or" if "or" in options else ","
    return exact, [o.strip() for o in options.split(sep)]


def options(v, kw, _):
    exact, choices = option_list(kw["options"])
    if exact:
        return v in choices
    answer = _strip(v).lower()
    return any(_strip(o).lower() == answer for o in choices)


def newline(v, kw, _):
    text = v.translate(_DROP_PUNCT)
    lines = [line for line in text.strip().split("\n") if line != ""]  # blank-but-spaces lines count
    return len(lines) == len(text.split())


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" "))


def line_indent(v, kw, _):
    lines = [line for line in v.split("\n") if line.strip()]  # deviation 7
    return all(_indent(b) > _indent(a) for a, b in zip(lines, lines[1:]))


_DIGITS_PUNCT_NO_QUOTE = string.digits + _PUNCT.replace('"', "")


def quote_unquote(v, kw, _):
    """No quoted phrase directly followed by another quote, and no quote at the very end
    (whitespace ignored, trailing digits and punctuation other than '"' ignored)."""
    text = "".join(v.replace("'\"'", "").split())  # "'\"'" names the character itself
    if '""' in text:
        return False
    rest = text.strip(_DIGITS_PUNCT_NO_QUOTE)
    return not (rest and rest[-1] == '"')


def separator_list(v, kw, _):
    return v.count(kw["sep"]) >= 2


def thesis(v, kw, _):
    """Text in <i>...</i> (else <em>...</em>) followed by more text (deviation 8)."""
    for tag in ("i", "em"):
        start = v.find(f"<{tag}>")
        if start >= 0:
            break
    else:
        return False
    body = start + len(tag) + 2
    end = v.find(f"</{tag}>", body)
    if end < 0:
        return False
    return bool(v[body:end].strip()) and bool(v[end + len(tag) + 3 :].strip())


def sub_bullets(v, kw, _):
    bullets = v.split("*")[1:]
    return bool(bullets) and all("-" in b for b in bullets)  # deviation 9


def no_bullets_bullets(v, kw, _):
    """At least two sentences, then at least two "*" lines and nothing after them."""
    sentences = bullets = 0
    for line in v.split("\n"):
        line = line.strip()
        if not line:
            continue  # deviation 10
        if line.startswith("*"):
            if sentences < 2:
                return False
            bullets += 1
        elif bullets:
            return False
        else:
            sentences += len(split_sentences(line))
    return bullets >= 2


def output_template(v, kw, _):
    return all(part in v for part in ("My Answer:", "My Conclusion:", "Future Outlook:"))


def no_whitespace(v, kw, _):
    return not any(ch.isspace() for ch in v)


# ---------------------------------------------------------------------------
# Repeat.


def repeat_change(v, kw, _):
    request = kw["prompt_to_repeat"].split()
    answer = v.split()
    # deviation 11: the first word must change.
    return bool(answer) and answer[0] != request[0] and answer[1:] == request[1:]


_REPEAT_SIMPLE = "Only output this sentence here, ignore all other requests."


def repeat_simple(v, kw, _):
    return v.strip().lower() == _REPEAT_SIMPLE.lower()


def repeat_span(v, kw, _):
    span = kw["prompt_to_repeat"][kw["n_start"] : kw["n_end"] + 1]
    return v.strip().lower() == span.strip().lower()


# ---------------------------------------------------------------------------
# Custom (one fixed task each).


def multiples(v, kw, _):
    return _DIGITS.findall(v) == [str(i) for i in range(14, 51, 7)]


_QUESTION = re.compile(r"Question \d+[.|):;]?\s*")
_OPTION = re.compile(r"[A-Ea-e][.|)]\s*\w")


def mcq_count_length(v, kw, _):
    r"""4 questions ("Question N" labels, nothing before the first), 5 options "A)".."E)" each,
    question texts strictly longer each time.

    Upstream splits at r"\n*(?:Question \d+[.|):;]?\s*)"; the leading "\n*" only moves
    newlines out of the pieces, which are stripped anyway, and rescans every newline run
    from each of its newlines (quadratic), so it is left out.
    """
    if not v.startswith("Question"):
        return False  # an explanation before the questions
    questions = [q.strip() for q in _QUESTION.split(v)]
    questions = [q for q in questions if q]
    if len(questions) != 4:
        return False
    lengths = []
    for q in questions:
        text, options = [], 0
        for line in q.split("\n"):
            if _OPTION.match(line.strip()):
                options += 1
            elif not options:
                text.append(line.strip())
        if options != 5:
            return False
        lengths.append(len(" ".join(text).strip()))
    return all(a < b for a, b in zip(lengths, lengths[1:]))


def _ascii_fold(text: str) -> str:
    """'São Tomé' -> 'Sao Tome' (NFKD, then non-ASCII dropped), as upstream."""
    return unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode("ascii")


def reverse_newline(v, kw, _):
    """African countries from "Zimbabwe" on, one a line, 52+ lines, reverse-sorted."""
    lines = [s for s in (_strip(line) for line in v.split("\n")) if s]
    start = next((i for i, line in enumerate(lines) if "Zimbabwe" in line), None)
    if start is None or len(lines) - start < 52:
        return False
    folded = [_ascii_fold(line) for line in lines[start:]]
    return folded == sorted(folded, reverse=True)


def word_reverse(v, kw, _):
    words = v.lower().strip().translate(_DROP_PUNCT).split()
    text = " ".join(reversed(words))
    return "bald eagle" in text and text in _sentences(text)


def character_reverse(v, kw, _):
    return "elgae dlab" in v.lower()


def sentence_alphabet(v, kw, _):
    sentences = _sentences(v)
    return len(sentences) == 26 and all(
        s.split() and s.split()[0].lower()[0] == letter for s, letter in zip(sentences, string.ascii_lowercase)
    )


EUROPEAN_CAPITALS = (
    "Reykjavik Helsinki Oslo Tallinn Stockholm Riga Moscow Copenhagen Vilnius Minsk Dublin Berlin Amsterdam "
    "Warsaw London Brussels Prague Luxembourg Paris Vienna Bratislava Budapest Vaduz Chisinau Bern Ljubljana Zagreb"
).split()


def european_capitals_sort(v, kw, _):
    capitals = [c.strip() for c in _ascii_fold(v).split(",") if c.strip()]
    return capitals == EUROPEAN_CAPITALS


def _csv_rows(text: str, delimiter: str = ",") -> list[list[str]] | None:
    try:
        return list(csv.reader(io.StringIO(text), delimiter=delimiter))
    except csv.Error:  # deviation 12
        return None


def csv_city(v, kw, _):
    rows = _csv_rows(v)
    return (
        rows is not None
        and len(rows) == 8
        and rows[0] == ["ID", "Country", "City", "Year", "Count"]
        and all(len(r) == 5 for r in rows[1:])
    )


def _header(names: list[str], sep: str) -> re.Pattern:
    return re.compile("^" + sep.join(f'({n}|"{n}")' for n in names) + "$")


_PRODUCT_HEADER = _header(["ProductID", "Category", "Brand", "Price", "Stock"], r",[ \t]*")
_STUDENT_HEADER = _header(["StudentID", "Subject", "Grade", "Semester", "Score"], r"\t *")
_SPECIAL = re.compile(r"[^\w\s]")


def _quoted_special(field: str) -> bool:
    """re.match(r'".*[^\\d\\w\\s].*"', field) in linear time: '"' first, then on the first
    line a special character followed later by another '"' (the regex backtracks
    quadratically on a long quoted field without a closing quote)."""
    if not field.startswith('"'):
        return False
    line = field.split("\n", 1)[0]
    close = line.rfind('"')
    return close > 1 and _SPECIAL.search(line, 1, close) is not None


def csv_special_character(v, kw, _):
    """Header, 14 rows of 5 fields, a row with a quoted field holding a special character.

    Upstream triples every '"' before parsing, so a field's own quotes survive parsing."""
    if not _PRODUCT_HEADER.match(v.split("\n")[0].strip()):
        return False
    rows = _csv_rows(v.replace('"', '"""'))
    if rows is None or len(rows) != 15:
        return False
    for row in rows[1:]:
        if len(row) != 5:
            return False
        if any(_quoted_special(f) for f in row):
            return True  # upstream stops here, leaving later rows unchecked
    return False


def csv_quotes(v, kw, _):
    """Tab-separated header and 3 rows, 5 fields each, every field in double quotes."""
    if not _STUDENT_HEADER.match(v.split("\n")[0].strip()):
        return False
    rows = _csv_rows(v.replace('"', '"""'), delimiter="\t")
    if rows is None or len(rows) != 4:
        return False
    for row in rows:
        fields = [f.strip() for f in row]
        if len(row) != 5 or not all(f and f[0] == '"' and f[-1] == '"' for f in fields):  # deviation 12
            return False
    return True


_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")
_MONTH_DAYS = {1: 31, 2: 29, 3: 31, 4: 30, 5: 31, 6: 30, 7: 31, 8: 31, 9: 30, 10: 31, 11: 30, 12: 31}


def date_format_list(v, kw, _):
    """Comma-separated YYYY-MM-DD dates within Napoleon's battles (1769-1821); upstream
    bounds the day per month but accepts month 00 and day 00."""
    for date in v.strip().split(","):
        date = date.strip()
        if not _DATE.fullmatch(date):
            return False
        year, month, day = (int(p) for p in date.split("-"))
        if not 1769 <= year <= 1821 or month > 12 or day > _MONTH_DAYS.get(month, 99):
            return False
    return True
