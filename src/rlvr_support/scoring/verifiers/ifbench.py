r"""IFBench's out-of-distribution instruction checkers (Pyatkin et al. 2025, "Generalizing
Verifiable Instruction Following"), re-implemented offline and deterministically.

Semantics follow AllenAI's reference code (github allenai/IFBench, `ifbench/instructions.py`):
the same 58 instruction ids and kwargs names. IFBench scores like IFEval (strict, and loose
over the same 8 response variants; an empty response follows nothing), so these checkers
are registered into `ifeval`'s registry and `score_if` scores an IFBench id like an IFEval
one. Each checker takes (response, kwargs-without-None, prompt) and returns bool.

Unavailable here: `words:start_verb` (UNAVAILABLE; it needs nltk's perceptron POS-tagger
data, which cannot be downloaded). `format:emoji` needs the `emoji` package and
`words:odd_even_syllables` the `syllapy` package (PACKAGES); without them those ids are
refused at load time, by name, like an unavailable one.

Deviations from upstream, all of them:

1. Sentences and words. Upstream: nltk punkt (`sent_tokenize`) and `nltk.word_tokenize`,
   both needing downloaded data. Ours: `sentences.split_sentences` (punkt-like) and
   `sentences.word_tokens` (Treebank-like) with punctuation stripped from each token's ends
   (`_words`), which is where Treebank splits it off; contraction suffixes ("'s", "n't")
   stay tokens, as in nltk.
2. Stop words (`ratio:stop_words`): nltk's English stopwords corpus (downloaded data) is
   replaced by the same list written out (`STOP_WORDS`).
3. Missing kwargs and out-of-range values. Upstream: a missing or negative count becomes a
   random value. Ours: a missing kwarg is a load-time error, and so are impossible values
   (negative counts, `N` = 0 for `count:words_japanese` (upstream divides by it), empty
   keywords, separators or options (they would match every response), a percentage
   outside 0..100, `max_words` < `min_words`, `n_end` < `n_start`).
4. `count:unique_word_count`: upstream counts a token made only of punctuation as the
   unique word "". Ours: such tokens are not words.
5. `count:conjunctions`: upstream counts distinct raw tokens, so "and", "And" and "and,"
   are three conjunctions. Ours: distinct conjunctions after lower-casing and stripping.
6. `words:words_position`: upstream compares nltk token 2 and the second-to-last token
   (the third-to-last if the last is punctuation), so a comma after the first word
   ("Hi, there ...") or two closing marks break it. Ours: the second and second-to-last
   words, punctuation tokens ignored.
7. `format:line_indent`: upstream removes blank lines while iterating over the list, so one
   of two consecutive blank lines survives (indent 0) and fails the response. Ours: every
   blank line is ignored.
8. `format:thesis`: upstream takes "<i>" or "<em>" then either closing tag, and cuts the
   thesis and the rest at the lengths of "<i>"/"</i>", so with "</em>" the rest always
   starts with ">" and is never empty. Ours: the closing tag that matches the opening one,
   cut at its own length.
9. `format:sub-bullets`: upstream passes a response with no "*" at all (its docstring asks
   for at least one). Ours: at least one "*", and every "*" followed by a "-" before the next.
10. `format:no_bullets_bullets`: upstream fails on a blank line before the bullets or after
    the last bullet (its line-kind state is a list that an empty line makes falsy). Ours:
    blank lines are skipped.
11. `repeat:repeat_change`: upstream only requires the response to differ from the request,
    so the request repeated with other spacing passes. Ours: the first word must differ.
12. `custom:csv_*`: upstream raises (and aborts the evaluation) on an empty field
    (`csv_quotes`) or a csv.Error (a field past the size limit). Ours: not followed.

Not deviations: `custom:mcq_count_length` and `custom:csv_special_character` use linear
scans giving upstream's regex results without their quadratic backtracking (see there);
`format:quote_unquote` keeps upstream's no-op quote normalisation (the curly quotes of its
`replace('"', '"')` were lost in its source), so curly quotes are not quotes.
"""

from __future__ import annotations

import csv
import functools
import importlib
import importlib.util
import io
import re
import string
import unicodedata
from collections import Counter

from rlvr_support.scoring.verifiers.sentences import count_words, split_sentences, whole_word, word_tokens

_PUNCT = string.punctuation
_DROP_PUNCT = str.maketrans("", "", _PUNCT)

UNAVAILABLE = {
    "words:start_verb": "needs nltk's averaged_perceptron_tagger_eng POS-tagger data, which cannot be "
    "downloaded here (no rule-based replacement decides 'starts with a verb' as nltk's tagger does)",
}
# Instruction id -> the PyPI package its checker imports (pinned in requirements.txt).
PACKAGES = {"format:emoji": "emoji", "words:odd_even_syllables": "syllapy"}


def unavailable_reason(instruction_id: str) -> str | None:
    """Why this IFBench id cannot be scored here, or None when it can."""
    if instruction_id in UNAVAILABLE:
        return UNAVAILABLE[instruction_id]
    package = PACKAGES.get(instruction_id)
    if package and not _installed(package):
        return f"needs the Python package {package!r}, which is not installed (see requirements.txt)"
    return None


@functools.cache
def _installed(name: str) -> bool:
    return importlib.util.find_spec(name) is not None


@functools.cache
def _package(name: str):
    return importlib.import_module(name)


def _strip(word: str) -> str:
    return word.strip(_PUNCT + " ")


@functools.lru_cache(maxsize=4)
def _sentences(text: str) -> tuple[str, ...]:
    # A dozen checkers split the same response: split it once.
    return tuple(split_sentences(text))


_SUFFIXES = frozenset({"'s", "'m", "'d", "'ll", "'re", "'ve"})


def _words(text: str) -> list[str]:
    """nltk.word_tokenize's tokens, approximately (deviation 1): `word_tokens` splits off
    brackets, quotes, "?!;,:" and the like as Treebank does; Treebank also splits a
    sentence's final period and quotes "'" at a word's edges, so those are stripped here
    (a contraction suffix "'s" stays a token). Other symbols stay attached, as in nltk."""
    out = []
    for tok in word_tokens(text):
        core = tok if tok.lower() in _SUFFIXES else tok.strip(".'")
        if core:
            out.append(core)
    return out


# ---------------------------------------------------------------------------
# Counts and ratios.


def _word_count_range(v, kw, _):
    return kw["min_words"] <= count_words(v) <= kw["max_words"]


def _unique_word_count(v, kw, _):
    unique = {_strip(w) for w in v.lower().split()} - {""}  # deviation 4
    return len(unique) >= kw["N"]


# nltk's English stopwords corpus (179 words). Tokens are `\w+` runs, so the entries with
# an apostrophe ("don't") can never match; they are kept so the list reads as nltk's.
STOP_WORDS = frozenset(
    """
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
    """.split()
)
_WORD = re.compile(r"\w+")


def _stop_words(v, kw, _):
    words = _WORD.findall(v)
    if not words:
        return False
    stop = sum(1 for w in words if w.lower() in STOP_WORDS)
    return stop / len(words) * 100 <= kw["percentage"]


def _sentence_endings(v: str) -> Counter:
    return Counter(s[-1] for s in _sentences(v))


def _sentence_type(v, kw, _):
    ends = _sentence_endings(v)
    return ends["."] == 2 * ends["?"]


def _sentence_balance(v, kw, _):
    ends = _sentence_endings(v)
    return ends["."] == ends["?"] == ends["!"]


_CONJUNCTIONS = frozenset({"and", "but", "for", "nor", "or", "so", "yet"})


def _conjunctions(v, kw, _):
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


def _person_names(v, kw, _):
    return len(set(_NAMES.findall(v))) >= kw["N"]


def _char_trigrams(text: str) -> set[str]:
    return {text[i : i + 3] for i in range(len(text) - 2)}


def _overlap(v, kw, _):
    """Character trigrams (upstream: nltk.ngrams over the string), as a share of the response's."""
    grams = _char_trigrams(v)
    if not grams:
        return False
    share = len(grams & _char_trigrams(kw["reference_text"])) / len(grams) * 100
    return kw["percentage"] - 2 <= share <= kw["percentage"] + 2


_DIGITS = re.compile(r"\d+")


def _numbers(v, kw, _):
    # Punctuation is dropped first, so "3.14" and "100,000" are one number each.
    return len(_DIGITS.findall(v.translate(_DROP_PUNCT))) == kw["N"]


_PRONOUNS = frozenset(
    """
    i me we us you he him she her it they them my mine our ours your yours his hers its their
    theirs myself ourselves yourself yourselves himself herself itself themselves this that these
    those who whom whose which what whoever whomever whatever whichever anybody anyone anything
    everybody everyone everything nobody nothing somebody someone something each either neither
    both all some any none
    """.split()
)


def _pronouns(v, kw, _):
    # "/" is a separator, so "she/her/hers" counts three (upstream).
    return sum(1 for w in _words(v.lower().replace("/", " ")) if w in _PRONOUNS) >= kw["N"]


def _keywords_multiple(v, kw, _):
    low = v.lower()
    wanted = zip((kw[f"keyword{i}"].strip().lower() for i in range(1, 6)), (1, 2, 3, 5, 7))
    return all(low.count(word) == times for word, times in wanted)


def _punctuation(v, kw, _):
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


def _alphabet(v, kw, _):
    words = v.translate(_DROP_PUNCT).split()
    if not words or words[0][0].lower() not in string.ascii_lowercase:
        return False
    letter = string.ascii_lowercase.index(words[0][0].lower())
    for word in words[1:]:
        letter = (letter + 1) % 26
        if word.lower()[0] != string.ascii_lowercase[letter]:
            return False
    return True


def _vowel(v, kw, _):
    # One paragraph (no newline inside) using at most three of a, e, i, o, u.
    lines = v.strip().split("\n")
    return len(lines) == 1 and len(set(lines[0].lower()) & set("aeiou")) <= 3


_CONSONANTS = frozenset("bcdfghjklmnpqrstvwxyz")


def _has_cluster(word: str) -> bool:
    return any(a in _CONSONANTS and b in _CONSONANTS for a, b in zip(word, word[1:]))


def _consonants(v, kw, _):
    return all(_has_cluster(w) for w in v.lower().split())


def _palindrome(v, kw, _):
    words = v.translate(_DROP_PUNCT).lower().split()
    return sum(1 for w in words if len(w) >= 5 and w == w[::-1]) >= 10


_PRIMES = frozenset({2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37, 41, 43, 47, 53, 59, 61, 67, 71, 73, 79, 83, 89, 97})


def _prime_lengths(v, kw, _):
    # Upstream's table of primes below 100: a longer word fails.
    return all(len(w) in _PRIMES for w in v.translate(_DROP_PUNCT).split())


_JAPANESE = re.compile(r"[\u3040-\u30ff\u4e00-\u9fff]")  # hiragana, katakana, CJK ideographs


def _words_japanese(v, kw, _):
    n = kw["N"]
    for i, word in enumerate(v.split(), 1):
        word = _strip(word)
        if i % n == 0 and word and not word.isdigit() and not _JAPANESE.search(word):
            return False
    return True


def _repeats(v, kw, _):
    counts = Counter(v.lower().translate(_DROP_PUNCT).split())
    return max(counts.values(), default=0) <= kw["small_n"]


def _odd_even_syllables(v, kw, _):
    syllapy = _package("syllapy")
    parity = [syllapy.count(w) % 2 for w in v.translate(_DROP_PUNCT).lower().split()]
    return all(a != b for a, b in zip(parity, parity[1:]))


def _no_consecutive(v, kw, _):
    words = v.lower().translate(_DROP_PUNCT).split()
    return all(a[0] != b[0] for a, b in zip(words, words[1:]))


def _last_first(v, kw, _):
    sentences = _sentences(v)
    for this, nxt in zip(sentences, sentences[1:]):
        last = this.rstrip(_PUNCT + " ").split()
        first = nxt.lstrip(_PUNCT + " ").split()
        if not last or not first or last[-1].lower() != first[0].lower():
            return False
    return True


def _paragraph_last_first(v, kw, _):
    for line in v.split("\n"):
        words = _strip(line.strip().lower()).split()
        if words and words[0] != words[-1]:
            return False
    return True


def _keywords_specific_position(v, kw, _):
    sentences = _sentences(v)
    if len(sentences) < kw["n"]:
        return False
    words = [w for w in _words(sentences[kw["n"] - 1]) if any(c.isalnum() for c in w)]
    return len(words) >= kw["m"] and words[kw["m"] - 1].lower() == kw["keyword"].strip().lower()


def _words_position(v, kw, _):
    words = [w.lower() for w in _words(v) if any(c.isalnum() for c in w)]  # deviation 6
    keyword = kw["keyword"].strip().lower()
    return len(words) >= 2 and words[1] == words[-2] == keyword


def _title_case(v, kw, _):
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


def _alliteration_increment(v, kw, _):
    runs = [_alliteration_run(s) for s in _sentences(v)]
    return all(a < b for a, b in zip([-1] + runs, runs))


def _sentence_word_count(sentence: str) -> int:
    return len(sentence.translate(_DROP_PUNCT).split())


def _increment(v, kw, _):
    counts = [_sentence_word_count(s) for s in _sentences(v)]
    return all(b == a + kw["small_n"] for a, b in zip(counts, counts[1:]))


def _sentence_keyword(v, kw, _):
    sentences = _sentences(v)
    n = kw["N"]
    return len(sentences) >= n and whole_word(kw["word"].strip()).search(sentences[n - 1]) is not None


def _sentence_words(v, kw, _):
    """Three sentences of equal length (upstream does not check that the words differ)."""
    sentences = _sentences(v)
    return len(sentences) == 3 and len({len(s) for s in sentences}) == 1


def _is_emoji(ch: str) -> bool:
    return _package("emoji").is_emoji(ch)


def _emoji(v, kw, _):
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


def _parentheses(v, kw, _):
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


def _quotes(v, kw, _):
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


def _option_list(options: str) -> tuple[bool, list[str]]:
    """(exact, options) as upstream parses the kwarg: "a), b), c)"-like lists must be
    answered exactly; others compare stripped and lower-cased."""
    exact = re.match(r"\W*[aA]\W*[bB]\W*[cC]\W*", options) is not None
    sep = "/" if "/" in options else "or" if "or" in options else ","
    return exact, [o.strip() for o in options.split(sep)]


def _options(v, kw, _):
    exact, options = _option_list(kw["options"])
    if exact:
        return v in options
    answer = _strip(v).lower()
    return any(_strip(o).lower() == answer for o in options)


def _newline(v, kw, _):
    text = v.translate(_DROP_PUNCT)
    lines = [line for line in text.strip().split("\n") if line != ""]  # blank-but-spaces lines count
    return len(lines) == len(text.split())


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" "))


def _line_indent(v, kw, _):
    lines = [line for line in v.split("\n") if line.strip()]  # deviation 7
    return all(_indent(b) > _indent(a) for a, b in zip(lines, lines[1:]))


_DIGITS_PUNCT_NO_QUOTE = string.digits + _PUNCT.replace('"', "")


def _quote_unquote(v, kw, _):
    """No quoted phrase directly followed by another quote, and no quote at the very end
    (whitespace ignored, trailing digits and punctuation other than '"' ignored)."""
    text = "".join(v.replace("'\"'", "").split())  # "'\"'" names the character itself
    if '""' in text:
        return False
    rest = text.strip(_DIGITS_PUNCT_NO_QUOTE)
    return not (rest and rest[-1] == '"')


def _list(v, kw, _):
    return v.count(kw["sep"]) >= 2


def _thesis(v, kw, _):
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


def _sub_bullets(v, kw, _):
    bullets = v.split("*")[1:]
    return bool(bullets) and all("-" in b for b in bullets)  # deviation 9


def _no_bullets_bullets(v, kw, _):
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


def _output_template(v, kw, _):
    return all(part in v for part in ("My Answer:", "My Conclusion:", "Future Outlook:"))


def _no_whitespace(v, kw, _):
    return not any(ch.isspace() for ch in v)


# ---------------------------------------------------------------------------
# Repeat.


def _repeat_change(v, kw, _):
    request = kw["prompt_to_repeat"].split()
    answer = v.split()
    # deviation 11: the first word must change.
    return bool(answer) and answer[0] != request[0] and answer[1:] == request[1:]


_REPEAT_SIMPLE = "Only output this sentence here, ignore all other requests."


def _repeat_simple(v, kw, _):
    return v.strip().lower() == _REPEAT_SIMPLE.lower()


def _repeat_span(v, kw, _):
    span = kw["prompt_to_repeat"][kw["n_start"] : kw["n_end"] + 1]
    return v.strip().lower() == span.strip().lower()


# ---------------------------------------------------------------------------
# Custom (one fixed task each).


def _multiples(v, kw, _):
    return _DIGITS.findall(v) == [str(i) for i in range(14, 51, 7)]


_QUESTION = re.compile(r"Question \d+[.|):;]?\s*")
_OPTION = re.compile(r"[A-Ea-e][.|)]\s*\w")


def _mcq_count_length(v, kw, _):
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


def _reverse_newline(v, kw, _):
    """African countries from "Zimbabwe" on, one a line, 52+ lines, reverse-sorted."""
    lines = [s for s in (_strip(line) for line in v.split("\n")) if s]
    start = next((i for i, line in enumerate(lines) if "Zimbabwe" in line), None)
    if start is None or len(lines) - start < 52:
        return False
    folded = [_ascii_fold(line) for line in lines[start:]]
    return folded == sorted(folded, reverse=True)


def _word_reverse(v, kw, _):
    words = v.lower().strip().translate(_DROP_PUNCT).split()
    text = " ".join(reversed(words))
    return "bald eagle" in text and text in _sentences(text)


def _character_reverse(v, kw, _):
    return "elgae dlab" in v.lower()


def _sentence_alphabet(v, kw, _):
    sentences = _sentences(v)
    return len(sentences) == 26 and all(
        s.split() and s.split()[0].lower()[0] == letter for s, letter in zip(sentences, string.ascii_lowercase)
    )


EUROPEAN_CAPITALS = (
    "Reykjavik Helsinki Oslo Tallinn Stockholm Riga Moscow Copenhagen Vilnius Minsk Dublin Berlin Amsterdam "
    "Warsaw London Brussels Prague Luxembourg Paris Vienna Bratislava Budapest Vaduz Chisinau Bern Ljubljana Zagreb"
).split()


def _european_capitals_sort(v, kw, _):
    capitals = [c.strip() for c in _ascii_fold(v).split(",") if c.strip()]
    return capitals == EUROPEAN_CAPITALS


def _csv_rows(text: str, delimiter: str = ",") -> list[list[str]] | None:
    try:
        return list(csv.reader(io.StringIO(text), delimiter=delimiter))
    except csv.Error:  # deviation 12
        return None


def _csv_city(v, kw, _):
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


def _csv_special_character(v, kw, _):
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


def _csv_quotes(v, kw, _):
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


def _date_format_list(v, kw, _):
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


# ---------------------------------------------------------------------------
# Registry (the shape of ifeval's): id -> (checker, required kwargs, optional kwargs). Kinds
# are ifeval's ("str", "int").

_S, _I = "str", "int"

REGISTRY = {
    "count:word_count_range": (_word_count_range, {"min_words": _I, "max_words": _I}, {}),
    "count:unique_word_count": (_unique_word_count, {"N": _I}, {}),
    "ratio:stop_words": (_stop_words, {"percentage": _I}, {}),
    "ratio:sentence_type": (_sentence_type, {}, {}),
    "ratio:sentence_balance": (_sentence_balance, {}, {}),
    "count:conjunctions": (_conjunctions, {"small_n": _I}, {}),
    "count:person_names": (_person_names, {"N": _I}, {}),
    "ratio:overlap": (_overlap, {"reference_text": _S, "percentage": _I}, {}),
    "count:numbers": (_numbers, {"N": _I}, {}),
    "words:alphabet": (_alphabet, {}, {}),
    "words:vowel": (_vowel, {}, {}),
    "words:consonants": (_consonants, {}, {}),
    "sentence:alliteration_increment": (_alliteration_increment, {}, {}),
    "words:palindrome": (_palindrome, {}, {}),
    "count:punctuation": (_punctuation, {}, {}),
    "format:parentheses": (_parentheses, {}, {}),
    "format:quotes": (_quotes, {}, {}),
    "words:prime_lengths": (_prime_lengths, {}, {}),
    "format:options": (_options, {"options": _S}, {}),
    "format:newline": (_newline, {}, {}),
    "format:emoji": (_emoji, {}, {}),
    "ratio:sentence_words": (_sentence_words, {}, {}),
    "count:words_japanese": (_words_japanese, {"N": _I}, {}),
    "words:repeats": (_repeats, {"small_n": _I}, {}),
    "sentence:keyword": (_sentence_keyword, {"word": _S, "N": _I}, {}),
    "count:pronouns": (_pronouns, {"N": _I}, {}),
    "words:odd_even_syllables": (_odd_even_syllables, {}, {}),
    "words:last_first": (_last_first, {}, {}),
    "words:paragraph_last_first": (_paragraph_last_first, {}, {}),
    "sentence:increment": (_increment, {"small_n": _I}, {}),
    "words:no_consecutive": (_no_consecutive, {}, {}),
    "format:line_indent": (_line_indent, {}, {}),
    "format:quote_unquote": (_quote_unquote, {}, {}),
    "format:list": (_list, {"sep": _S}, {}),
    "format:thesis": (_thesis, {}, {}),
    "format:sub-bullets": (_sub_bullets, {}, {}),
    "format:no_bullets_bullets": (_no_bullets_bullets, {}, {}),
    "custom:multiples": (_multiples, {}, {}),
    "custom:mcq_count_length": (_mcq_count_length, {}, {}),
    "custom:reverse_newline": (_reverse_newline, {}, {}),
    "custom:word_reverse": (_word_reverse, {}, {}),
    "custom:character_reverse": (_character_reverse, {}, {}),
    "custom:sentence_alphabet": (_sentence_alphabet, {}, {}),
    "custom:european_capitals_sort": (_european_capitals_sort, {}, {}),
    "custom:csv_city": (_csv_city, {}, {}),
    "custom:csv_special_character": (_csv_special_character, {}, {}),
    "custom:csv_quotes": (_csv_quotes, {}, {}),
    "custom:date_format_list": (_date_format_list, {}, {}),
    "count:keywords_multiple": (
        _keywords_multiple,
        {f"keyword{i}": _S for i in range(1, 6)},
        {},
    ),
    "words:keywords_specific_position": (_keywords_specific_position, {"keyword": _S, "n": _I, "m": _I}, {}),
    "words:words_position": (_words_position, {"keyword": _S}, {}),
    "repeat:repeat_change": (_repeat_change, {"prompt_to_repeat": _S}, {}),
    "repeat:repeat_simple": (_repeat_simple, {}, {}),
    "repeat:repeat_span": (_repeat_span, {"prompt_to_repeat": _S, "n_start": _I, "n_end": _I}, {}),
    "format:title_case": (_title_case, {}, {}),
    "format:output_template": (_output_template, {}, {}),
    "format:no_whitespace": (_no_whitespace, {}, {}),
}

INSTRUCTION_IDS: tuple[str, ...] = tuple(REGISTRY) + tuple(UNAVAILABLE)

# kwargs that must be >= 1 (positions, cycle lengths); every other int kwarg must be >= 0.
_POSITIVE = {"count:words_japanese": ("N",), "sentence:keyword": ("N",),
             "words:keywords_specific_position": ("n", "m")}
# str kwargs that must not be empty after stripping (they would match every response).
_NON_EMPTY = ("options", "sep", "word", "keyword", "prompt_to_repeat") + tuple(f"keyword{i}" for i in range(1, 6))


def check_kwargs(instruction_id: str, kw: dict) -> None:
    """Raise ValueError naming the kwarg when a value is impossible (deviation 3). `kw` has
    passed ifeval's name and type checks."""
    _, required, _ = REGISTRY[instruction_id]
    positive = _POSITIVE.get(instruction_id, ())
    for name, kind in required.items():
        value = kw[name]
        if kind == _I and value < (1 if name in positive else 0):
            raise ValueError(f"kwarg {name!r} must be >= {1 if name in positive else 0}, got {value}")
        if kind == _S and name in _NON_EMPTY and not value.strip():
            raise ValueError(f"kwarg {name!r} must not be empty, got {value!r}")
    if instruction_id in ("ratio:stop_words", "ratio:overlap") and kw["percentage"] > 100:
        raise ValueError(f"kwarg 'percentage' must be in 0..100, got {kw['percentage']}")
    if instruction_id == "count:word_count_range" and kw["max_words"] < kw["min_words"]:
        raise ValueError(f"kwarg 'max_words' ({kw['max_words']}) is below 'min_words' ({kw['min_words']})")
    if instruction_id == "repeat:repeat_span" and kw["n_end"] < kw["n_start"]:
        raise ValueError(f"kwarg 'n_end' ({kw['n_end']}) is below 'n_start' ({kw['n_start']})")
    if instruction_id == "format:options" and not any(o for o in _option_list(kw["options"])[1]):
        raise ValueError(f"kwarg 'options' lists no option: {kw['options']!r}")
