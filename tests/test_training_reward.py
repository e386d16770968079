"""The GRPO reward scores as the study's score jobs do: the config's `scoring` section reaches it."""

from __future__ import annotations

from rlvr_support.training.rewards import make_reward

SCORING = {"timeout_s": 2.0, "workers": 1, "reasoning": "none"}


def _call(reward, texts, answer="3"):
    n = len(texts)
    return reward(prompts=["Calculate 2 - -1."] * n, completions=texts, prompt_id=["p"] * n, answer=[answer] * n,
                  instruction_id_list=[[]] * n, kwargs_json=["[]"] * n)


def test_lenient_extraction_reaches_the_math_reward():
    """A model that answers in prose ("2 - -1 equals 3") earns nothing under the strict extraction and the
    reward under the lenient one, as its score job would grade it; a wrong number earns nothing in both."""
    texts = ["2 - -1 equals 3", "so it is 4", "The answer is 3"]
    assert _call(make_reward("math"), texts) == [0.0, 0.0, 1.0]
    assert _call(make_reward("math", {**SCORING, "math_extraction": "strict"}), texts) == [0.0, 0.0, 1.0]
    assert _call(make_reward("math", {**SCORING, "math_extraction": "lenient"}), texts) == [1.0, 0.0, 1.0]


def test_the_reasoning_setting_reaches_the_reward():
    """`reasoning: after_think` scores what follows the reasoning block, as the score jobs do."""
    texts = ["<think>The answer is 4? no</think>The answer is 3", "<think>The answer is 3</think>no idea"]
    assert _call(make_reward("math"), texts) == [1.0, 1.0]  # the answer inside the reasoning counted
    assert _call(make_reward("math", {**SCORING, "reasoning": "after_think"}), texts) == [1.0, 0.0]


def test_each_training_process_scores_with_its_share_of_the_cores():
    """paper.yaml's 16 math-verify workers, for each of 8 training processes of a 64-core job: 8 each, not 128
    in all; a single CPU process keeps what it asked for up to its cores; no section stays none."""
    from rlvr_support.training.stage import reward_scoring

    paper = {**SCORING, "workers": 16, "math_extraction": "lenient"}
    assert reward_scoring(paper, 64, {"LOCAL_WORLD_SIZE": "8"}) == {**paper, "workers": 8}
    assert reward_scoring(paper, 4, {"LOCAL_WORLD_SIZE": "8"})["workers"] == 1
    assert reward_scoring({**SCORING, "workers": 1}, 2, {}) == {**SCORING, "workers": 1}
    assert reward_scoring(None, 64, {}) is None
