"""The toy world's lexicon: topics, shared function words and solution-style openers.

Every word the generator can emit lives here, so the tokenizer's vocabulary is fixed by
this file (plus digits), independent of which prompts a seed happens to draw.
"""

# Solution styles. The first response token is the style marker, and the same markers open
# math and instruction-following responses: that shared opening is what couples the tasks.
STYLES = ("step", "so", "answer")

TOPICS = {
    "cats": ("cats", "kittens", "fur", "milk", "mice", "naps"),
    "dogs": ("dogs", "puppies", "bones", "walks", "parks", "tails"),
    "rain": ("rain", "clouds", "drops", "puddles", "storms", "roofs"),
    "music": ("music", "songs", "drums", "notes", "bands", "tunes"),
    "trains": ("trains", "tracks", "stations", "tickets", "engines", "wagons"),
    "bread": ("bread", "flour", "ovens", "loaves", "crusts", "bakers"),
    "sea": ("sea", "waves", "boats", "fish", "shells", "tides"),
    "stars": ("stars", "planets", "moons", "comets", "skies", "orbits"),
    "gardens": ("gardens", "roses", "seeds", "trees", "leaves", "bees"),
    "winter": ("winter", "snow", "ice", "scarves", "sleds", "frost"),
    "chess": ("chess", "kings", "pawns", "boards", "moves", "games"),
    "coffee": ("coffee", "beans", "cups", "mornings", "cafes", "mugs"),
}

ADJECTIVES = ("soft", "quiet", "bright", "warm", "cold", "slow", "fast", "old", "new", "calm", "loud", "small")
VERBS = ("like", "need", "find", "love", "watch", "follow", "bring", "keep")
FUNCTION_WORDS = ("i", "we", "are", "and", "the", "many", "some", "all", "very", "often", "with", "near")

# Words that only appear in prompts and plans.
PROMPT_WORDS = (
    "Q", "A", "write", "about", "solve", "use", "only", "capital", "lowercase", "letters", "fewer",
    "than", "at", "least", "words", "end", "with", "phrase", "include", "do", "not", "word",
    "any", "commas", "wrap", "reply", "in", "double", "quotes", "add", "a", "title", "angular",
    "brackets", "postscript", "starting", "rule", "topic", "caps", "lower", "short", "long",
    "avoid", "nocomma", "quote", "ps", "that", "is", "thank", "you", "math",
)
END_PHRASES = ("that is all", "thank you", "the end")
SYMBOLS = (".", ",", ":", ";", "=", "+", "*", "?", '"', "<<", ">>", "P.S.", "p.s.")


def all_words() -> list[str]:
    """Every word, in lower, UPPER and Title case (case constraints need all three)."""
    base = set(STYLES) | set(ADJECTIVES) | set(VERBS) | set(FUNCTION_WORDS) | set(PROMPT_WORDS)
    for words in TOPICS.values():
        base |= set(words)
    for phrase in END_PHRASES:
        base |= set(phrase.split())
    cased = set()
    for w in base:
        cased |= {w.lower(), w.upper(), w.capitalize()}
    return sorted(cased) + list(SYMBOLS)
