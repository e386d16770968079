"""IFEval-style instruction prompts in plain English, built from templates (works offline).

A prompt is a writing task about a topic plus one or more constraints phrased as in Google's
IFEval; each constraint carries its IFEval instruction id and kwargs, so the project's IFEval
verifiers check it unchanged. With `math` (a Reasoning Gym numeric task) the writing task is
replaced by a math question: a joint (MathIF-style) prompt whose answer is the task's answer.
"""

from __future__ import annotations

import random

TOPICS = {
    "the ocean": ["waves", "salt"], "a city park": ["trees", "bench"], "winter mornings": ["frost", "coffee"],
    "learning to cook": ["recipe", "kitchen"], "a train journey": ["window", "station"],
    "the night sky": ["stars", "moon"], "a small bakery": ["bread", "oven"], "mountain hiking": ["trail", "summit"],
    "a public library": ["books", "quiet"], "rainy weekends": ["umbrella", "puddles"],
    "honey bees": ["flowers", "hive"], "an old bicycle": ["wheels", "rust"],
}
TASKS = ["Write a short paragraph about {topic}.", "Describe {topic} in a few sentences.",
         "Write a short story about {topic}.", "Explain to a child what is special about {topic}."]
END_PHRASES = ["Is there anything else I can help with?", "Any other questions?", "That is all."]


def _constraint(rng: random.Random, iid: str, keywords: list[str]) -> tuple[str, dict]:
    """(IFEval-style phrase, kwargs) for one instruction id."""
    if iid == "change_case:english_lowercase":
        return ("Your entire response should be in English, and in all lowercase letters. "
                "No capital letters are allowed.", {})
    if iid == "change_case:english_capital":
        return "Your entire response should be in English, and in all capital letters.", {}
    if iid == "punctuation:no_comma":
        return "In your entire response, refrain from the use of any commas.", {}
    if iid == "startend:end_checker":
        end = rng.choice(END_PHRASES)
        return (f"Finish your response with this exact phrase {end} No other words should follow this phrase.",
                {"end_phrase": end})
    if iid == "detectable_content:postscript":
        return ("At the end of your response, please explicitly add a postscript starting with P.S.",
                {"postscript_marker": "P.S."})
    if iid == "length_constraints:number_words":
        rel, n = rng.choice([("less than", rng.choice([40, 60, 80])), ("at least", rng.choice([20, 30, 50]))])
        return f"Answer with {rel} {n} words.", {"num_words": n, "relation": rel}
    if iid == "keywords:existence":
        return f"Include the keywords {', '.join(keywords)} in the response.", {"keywords": list(keywords)}
    if iid == "detectable_format:title":
        return ("Your answer must contain a title, wrapped in double angular brackets, such as <<poem of joy>>.", {})
    if iid == "startend:quotation":
        return "Wrap your entire response with double quotation marks.", {}
    if iid == "detectable_format:number_bullet_lists":
        n = rng.choice([2, 3, 4])
        return (f"Your answer must contain exactly {n} bullet points. Use the markdown bullet points such as:\n"
                "* This is point 1.", {"num_bullets": n})
    raise KeyError(iid)


IF_IDS = ("change_case:english_lowercase", "change_case:english_capital", "punctuation:no_comma",
          "startend:end_checker", "detectable_content:postscript", "length_constraints:number_words",
          "keywords:existence", "detectable_format:title", "startend:quotation",
          "detectable_format:number_bullet_lists")
# Constraints that a short answer to a math question can meet alongside the answer itself.
JOINT_IDS = ("change_case:english_lowercase", "punctuation:no_comma", "startend:end_checker",
             "detectable_content:postscript", "detectable_format:title", "length_constraints:number_words")
# Pairs that cannot hold together (both fix the case; quotation fixes the last character).
CONFLICTS = {frozenset(p) for p in [
    ("change_case:english_lowercase", "change_case:english_capital"),
    ("startend:quotation", "startend:end_checker"), ("startend:quotation", "detectable_content:postscript"),
    ("startend:end_checker", "detectable_content:postscript"),
    ("change_case:english_lowercase", "detectable_content:postscript"),  # "P.S." is not lowercase
    ("change_case:english_lowercase", "startend:end_checker"),  # end phrases start with a capital
    ("change_case:english_capital", "startend:end_checker"),
]}


def _pick_ids(rng: random.Random, pool: tuple[str, ...], k: int) -> list[str]:
    while True:
        ids = rng.sample(pool, k)
        if all(frozenset((a, b)) not in CONFLICTS for i, a in enumerate(ids) for b in ids[i + 1:]):
            return ids


def template_records(size: int, seed: int, max_constraints: int = 2, math: dict | None = None) -> list[dict]:
    """`size` prompts; with `math` = {task, config} each wraps a Reasoning Gym question (joint)."""
    rng = random.Random(seed)
    questions = None
    if math is not None:
        from rlvr_support.data.sources.reasoning_gym import rg_records

        questions = rg_records(math["task"], size, seed, math.get("config"))
    out = []
    for i in range(size):
        topic = rng.choice(sorted(TOPICS))
        pool = JOINT_IDS if questions else IF_IDS
        ids = _pick_ids(rng, pool, rng.randint(1, max_constraints))
        phrases, kwargs = zip(*[_constraint(rng, iid, TOPICS[topic]) for iid in ids])
        if questions:
            q = questions[i]
            prompt = f"{q['question'].rstrip()}\nEnd with the final answer as a number. " + " ".join(phrases)
            out.append({"key": str(i), "prompt": prompt, "answer": q["answer"], "instruction_id_list": ids,
                        "kwargs": list(kwargs), "meta": {"rg_task": math["task"]}})
        else:
            prompt = rng.choice(TASKS).format(topic=topic) + " " + " ".join(phrases)
            out.append({"key": str(i), "prompt": prompt, "answer": None, "instruction_id_list": ids,
                        "kwargs": list(kwargs), "meta": {"topic": topic}})
    return out
