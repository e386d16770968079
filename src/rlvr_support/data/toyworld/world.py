"""Build the toy world's prompt sets (train/eval per task) and the base pretraining corpus.

Everything is a pure function of the config and its seed. Eval sets are held out from both
the RL training prompts and the corpus: eval math problems never appear elsewhere, and eval
instruction prompts use (topic, constraint pair) combinations that training never shows,
so the base model's pass@k on them stays well below 1.
"""

from __future__ import annotations

import itertools
import random

from rlvr_support.data.toyworld.constraints import IF_INSTRUCTIONS, JOINT_INSTRUCTIONS, FAMILY_OF, Constraint, sample_constraint
from rlvr_support.data.toyworld.math_problems import LEVELS, MathProblem, problem_from_question, sample_problems
from rlvr_support.data.toyworld.responses import if_response, joint_response
from rlvr_support.data.toyworld.words import STYLES, TOPICS


def _levels(weights: list[float]) -> dict[int, float]:
    """Config lists the weights of levels 1, 2, 3 and (optionally) 4."""
    if len(weights) > len(LEVELS):
        raise ValueError(f"math level weights: {len(weights)} given, the toy world has levels {list(LEVELS)}")
    return {level: float(w) for level, w in enumerate(weights, 1) if w > 0}


def math_prompt(p: MathProblem) -> str:
    return f"Q : solve {p.question} . A :"


def if_prompt(topic: str, constraints: list[Constraint]) -> str:
    return "Q : write about " + topic + " . " + " . ".join(c.phrase() for c in constraints) + " . A :"


def joint_prompt(p: MathProblem, constraints: list[Constraint]) -> str:
    return f"Q : solve {p.question} . " + " . ".join(c.phrase() for c in constraints) + " . A :"


def _record(pid: str, task: str, prompt: str, split: str, answer: str | None = None,
            constraints: list[Constraint] = (), **meta) -> dict:
    return {
        "id": pid, "task": task, "prompt": prompt, "answer": answer,
        "instruction_id_list": [c.instruction_id for c in constraints],
        "kwargs": [dict(c.kwargs) for c in constraints],
        "split": split, **meta,
    }


def _compatible_pairs(ids: tuple[str, ...]) -> list[tuple[str, str]]:
    return [(a, b) for a, b in itertools.combinations(ids, 2) if FAMILY_OF[a] != FAMILY_OF[b]]


def build_prompt_sets(cfg: dict) -> dict[str, list[dict]]:
    """{'math': [...], 'if': [...], 'joint': [...]}, each list holding train and eval records."""
    rng = random.Random(cfg["seed"])
    mcfg, icfg, jcfg = cfg["math"], cfg["if"], cfg["joint"]
    out: dict[str, list[dict]] = {}

    math_eval = sample_problems(rng, mcfg["eval"], _levels(mcfg["eval_levels"]))
    math_train = sample_problems(rng, mcfg["train"], _levels(mcfg["train_levels"]), exclude=set(math_eval))
    out["math"] = [_record(f"math-{s}-{i:05d}", "math", math_prompt(p), s, str(p.answer), level=p.level)
                   for s, probs in (("train", math_train), ("eval", math_eval)) for i, p in enumerate(probs)]

    combos = [(t, pair) for t in sorted(TOPICS) for pair in _compatible_pairs(IF_INSTRUCTIONS)]
    rng.shuffle(combos)
    n_held = int(len(combos) * icfg["heldout_share"])
    held, seen = combos[:n_held], combos[n_held:]
    recs = []
    for split, pool, count in (("train", seen, icfg["train"]), ("eval", held, icfg["eval"])):
        for i in range(count):
            topic, pair = pool[i % len(pool)] if split == "eval" else rng.choice(pool)
            ids = list(pair) if split == "eval" or rng.random() < icfg["two_constraint_share"] else [rng.choice(pair)]
            cons = [sample_constraint(rng, iid, topic) for iid in ids]
            recs.append(_record(f"if-{split}-{i:05d}", "if", if_prompt(topic, cons), split, None, cons, topic=topic))
    out["if"] = recs

    # joint prompts may take their own eval levels: a constraint on top of the answer makes them harder
    joint_levels = _levels(jcfg.get("eval_levels", mcfg["eval_levels"]))
    joint_eval_probs = sample_problems(rng, jcfg["eval"], joint_levels, exclude=set(math_eval) | set(math_train))
    joint_train_probs = sample_problems(rng, jcfg["train"], _levels(mcfg["train_levels"]),
                                        exclude=set(math_eval) | set(joint_eval_probs))
    recs = []
    for split, probs in (("train", joint_train_probs), ("eval", joint_eval_probs)):
        for i, p in enumerate(probs):
            cons = [sample_constraint(rng, rng.choice(JOINT_INSTRUCTIONS), "sea", joint=True)]
            recs.append(_record(f"joint-{split}-{i:05d}", "joint", joint_prompt(p, cons), split, str(p.answer), cons,
                                level=p.level))
    out["joint"] = recs
    return out


def build_corpus(cfg: dict, prompt_sets: dict[str, list[dict]]) -> list[dict]:
    """Pretraining examples {prompt, response, task, style}: fresh math problems, train IF and joint prompts."""
    rng = random.Random(cfg["seed"] + 1)
    ccfg = cfg["corpus"]
    styles, weights = zip(*[(s, ccfg["style_weights"][s]) for s in STYLES])
    comply, slip = ccfg["comply"], ccfg["slip"]
    held_out = {r["prompt"] for recs in prompt_sets.values() for r in recs if r["split"] == "eval"}
    eval_problems = {problem_from_question(_question(r["prompt"]))
                     for task in ("math", "joint") for r in prompt_sets[task] if r["split"] == "eval"}

    examples = []
    for p in sample_problems(rng, ccfg["math"], _levels(cfg["math"]["train_levels"]), exclude=eval_problems,
                             distinct=False):
        style = rng.choices(styles, weights)[0]
        examples.append({"prompt": math_prompt(p), "response": p.attempt(style, rng, slip), "task": "math",
                         "style": style})

    train_if = [r for r in prompt_sets["if"] if r["split"] == "train"]
    for _ in range(ccfg["if"]):
        r = rng.choice(train_if)
        cons = [Constraint(i, k) for i, k in zip(r["instruction_id_list"], r["kwargs"])]
        style = rng.choices(styles, weights)[0]
        examples.append({"prompt": r["prompt"], "response": if_response(rng, r["topic"], cons, style, comply),
                         "task": "if", "style": style})

    train_joint = [r for r in prompt_sets["joint"] if r["split"] == "train"]
    for _ in range(ccfg["joint"]):
        r = rng.choice(train_joint)
        p = problem_from_question(_question(r["prompt"]))
        cons = [Constraint(i, k) for i, k in zip(r["instruction_id_list"], r["kwargs"])]
        style = rng.choices(styles, weights)[0]
        solution = p.attempt(style, rng, slip)
        examples.append({"prompt": r["prompt"], "response": joint_response(rng, solution, cons, style, comply),
                         "task": "joint", "style": style})
    assert not any(e["prompt"] in held_out for e in examples), "an eval prompt leaked into the corpus"
    rng.shuffle(examples)
    return examples


def _question(prompt: str) -> str:
    return prompt.removeprefix("Q : solve ").split(" . ")[0]


def reference_solutions(record: dict) -> dict[str, str]:
    """The generator's canonical solution in every style (for perplexity of reference solutions)."""
    if record["task"] != "math":
        raise ValueError(f"reference solutions exist for math prompts only, not {record['task']!r}")
    p = problem_from_question(_question(record["prompt"]))
    return {s: p.solution(s) for s in STYLES}
