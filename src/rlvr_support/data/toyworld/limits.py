"""What a study config may ask of the toy world, checked before any job (workflow/rules/common.smk).

config/validate.py checks what the config says on its own; these checks need the world itself
(how many distinct problems a level has, how long its prompts are in tokens), and the config
layer does not import the data layer. Each error names both keys, as validation does.
"""

from __future__ import annotations

from rlvr_support.config.benchmarks import max_new_tokens_keys
from rlvr_support.config.chains import stages
from rlvr_support.config.validate import ConfigError, base_models
from rlvr_support.data.toyworld.math_problems import problem_space_size
from rlvr_support.data.toyworld.tokenizer import build_word_tokenizer
from rlvr_support.data.toyworld.world import _levels, build_prompt_sets


def check_toy_world(config: dict) -> None:
    """Raise ConfigError where a toy study asks for more than its world can give (see module doc)."""
    if config["world"]["kind"] != "toy":
        return
    _check_eval_problems(config["world"])
    toy = {where: spec for where, spec in base_models(config).items() if spec["kind"] == "pretrain"}
    if toy:
        _check_prompt_lengths(config, toy)


def _check_eval_problems(world: dict) -> None:
    # math and joint eval problems are drawn distinct from each other (joint at its own levels,
    # world.joint.eval_levels, else the math ones): together they must fit the levels' union
    math, joint = world["math"], world.get("joint", {})
    math_space = sum(problem_space_size(level) for level in _levels(math["eval_levels"]))
    if math["eval"] > math_space:
        raise ConfigError(f"world.math.eval: {math['eval']} distinct eval problems, but world.math.eval_levels "
                          f"{math['eval_levels']} (levels {sorted(_levels(math['eval_levels']))}) have only {math_space}")
    joint_levels = joint.get("eval_levels", math["eval_levels"])
    asked = math["eval"] + joint.get("eval", 0)
    levels = sorted(set(_levels(math["eval_levels"])) | set(_levels(joint_levels)))
    space = sum(problem_space_size(level) for level in levels)
    key = "world.math.eval_levels" + (" and world.joint.eval_levels" if "eval_levels" in joint else "")
    if asked > space:
        raise ConfigError(f"world.math.eval + world.joint.eval: {asked} distinct eval problems, but "
                          f"{key} (levels {levels}) have only {space}")


def prompt_lengths(config: dict):
    """longest(split, tasks=None): the longest prompt of those tasks' split (None: every task of the world),
    in the toy tokenizer's tokens (BOS included). The world is built once, however often it is asked."""
    try:
        sets = build_prompt_sets(config["world"])
    except ValueError as e:  # counts within the space that the draws (train before joint eval) still exhaust
        raise ConfigError(f"world.math.eval / world.math.train / world.joint.eval / world.joint.train: {e}") from None
    tok = build_word_tokenizer()

    def longest(split: str, tasks=None) -> int:
        prompts = [r["prompt"] for t in (sets if tasks is None else tasks) for r in sets.get(t, [])
                   if r["split"] == split]
        return max((len(e.ids) for e in tok.encode_batch(prompts)), default=0)

    return longest


def longest_prompt(config: dict) -> int:
    """The toy world's longest prompt of any split and task, in the toy tokenizer's tokens."""
    longest = prompt_lengths(config)
    return max(longest(split) for split in ("train", "eval"))


def _check_prompt_lengths(config: dict, toy: dict[str, dict]) -> None:
    """The longest prompt (in the toy tokenizer's tokens, BOS included) plus the tokens generated
    after it must fit the model's positions; else a sample or training job fails or truncates."""
    longest = prompt_lengths(config)
    eval_prompt = longest("eval", config["eval_sets"])
    needs = [(key, n, "eval", eval_prompt) for key, n in max_new_tokens_keys(config["sampling"]).items()]
    for part in ("intervention", "single_token"):  # analyses that generate with their own budget
        if (config.get("analysis") or {}).get(part):
            needs.append((f"analysis.{part}.max_new_tokens", config["analysis"][part]["max_new_tokens"], "eval",
                          eval_prompt))
    if config["chains"] and "rl" in config:
        trained = sorted({t for c in config["chains"] for t in stages(c)})
        needs.append(("rl.max_completion_tokens", config["rl"]["max_completion_tokens"], "train",
                      longest("train", trained)))
    for where, spec in toy.items():
        positions = spec["arch"]["max_positions"]
        for key, new, split, prompt in needs:
            if prompt + new > positions:
                raise ConfigError(f"{key}: {new} new tokens after the longest {split} prompt ({prompt} tokens) "
                                  f"exceed {where}.arch.max_positions ({positions})")
