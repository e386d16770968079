"""extract_answer formats, exact fast path, math-verify path, hard timeouts.

The timeout tests assert what the pool did (each item's timeout flag, which workers it killed, never a
deadline reported early), not how long a call took: the clock a loaded 2-core machine stretches is only a
hang guard, and workers are started and ready before any call under test."""

import os
import random
import signal
import threading
import time

import pytest

from rlvr_support.data.toyworld.constraints import JOINT_INSTRUCTIONS, sample_constraint
from rlvr_support.data.toyworld.math_problems import sample_problems
from rlvr_support.data.toyworld.responses import joint_response
from rlvr_support.data.toyworld.words import STYLES
from rlvr_support.scoring.verifiers import math as vm
from rlvr_support.scoring.verifiers.math import MathResult, as_fraction, extract_answer, score_math_batch

# Only a hang guard: a pool that never killed a worker would hang on PATHOLOGICAL for ever. The time a
# call takes is not asserted (a loaded machine slows it); the timeout flags and the workers killed are.
HANG_S = vm._Pool.STARTUP_LIMIT_S
ROOMY_S = 60.0  # a per-item limit no loaded machine reaches, for items that must finish


@pytest.mark.parametrize(
    "text,expected",
    [
        ("step : 48 * 2 = 96 ; 37 + 96 = 133 . answer : 133", "133"),
        ("ANSWER : 133 . that is all", "133"),
        ('" answer : 133 "', "133"),
        ("answer : -7", "-7"),
        ("answer: 3/4 done", "3/4"),
        ("answer : 2.5", "2.5"),
        ("The answer is 42.", "42"),
        ("the answer is: $\\frac{1}{2}$", "\\frac{1}{2}"),
        ("Final Answer: 12", "12"),
        ("final answer is x = 5", "x = 5"),
        ("so #### 1,234", "1,234"),
        ("we get \\boxed{\\frac{a}{b^{2}}} here", "\\frac{a}{b^{2}}"),
        ("\\boxed{1} then \\boxed{2}", "2"),
        ("answer: 7 and later \\boxed{8}", "8"),
        ("\\boxed{8} and later answer: 7", "7"),
        ("\\boxed{unbalanced", None),
        # The whole expression after a phrase, not its first number:
        ("The answer is 42^2", "42^2"),
        ("answer : 3\\sqrt{2}", "3\\sqrt{2}"),
        ("The answer is 42^{2}. So it is large.", "42^{2}"),
        ("answer : 13 + 5", "13 + 5"),
        ("answer: 2 \\cdot 3\nnext line", "2 \\cdot 3"),
        ("The answer is \\(3\\sqrt{2}\\).", "3\\sqrt{2}"),
        ("answer: 5!", "5!"),
        ("#### 4x", "4x"),
        # ... but a number followed by prose or markup stays that number:
        ("The answer is 42 - the rest is easy", "42"),
        ("**Answer: 42**", "42"),
        ("answer : 42, I think", "42"),
        ("ANSWER : 70 << SEA >> P.S. WE LOVE MATH . THAT IS ALL", "70"),
        ("no final answer here", None),
        ("I will answer soon. 5", None),
        ("", None),
    ],
)
def test_extract_answer(text, expected):
    assert extract_answer(text) == expected


def test_answer_phrase_scores_the_whole_expression():
    responses = [
        "The answer is 42^2",  # used to be cut to "42"
        "answer : 3\\sqrt{2}",  # used to be cut to "3"
        "The answer is 42.",
        "answer : 3",
        "The answer is $\\frac{1}{2}$.",
        "The answer is 42^2.",
        "answer : 3\\sqrt{2}",
    ]
    golds = ["42", "3", "42", "3", "1/2", "1764", "\\sqrt{18}"]
    res = score_math_batch(responses, golds, timeout_s=ROOMY_S)
    assert [r.extracted for r in res] == ["42^2", "3\\sqrt{2}", "42", "3", "\\frac{1}{2}", "42^2", "3\\sqrt{2}"]
    assert [r.correct for r in res] == [False, False, True, True, True, True, True]
    assert not any(r.timeout or r.error for r in res)


def test_toy_world_answers_stay_on_the_exact_path(monkeypatch):
    # Every solution style, alone and under every constraint a joint prompt can carry
    # (title, postscript, end phrase, quotes, capitals after "answer : N"), scores
    # correct as a plain number, without math-verify.
    monkeypatch.setattr(vm._POOL, "run", lambda *a, **k: pytest.fail("pool used for a toy-world answer"))
    rng = random.Random(3)
    problems = sample_problems(rng, 30, {1: 1, 2: 1, 3: 1, 4: 1})
    every = [sample_constraint(rng, iid, "sea", joint=True) for iid in JOINT_INSTRUCTIONS]
    texts, golds = [], []
    for p in problems:
        for style in STYLES:
            for cons in [[]] + [[c] for c in every] + [every]:
                texts.append(p.solution(style) if not cons else joint_response(rng, p.solution(style), cons, style, 1.0))
                golds.append(str(p.answer))
    res = score_math_batch(texts, golds)
    assert [r.extracted for r in res] == golds
    assert all(r.correct for r in res)
    wrong = score_math_batch([t.replace(f": {g}", f": {int(g) + 1}") for t, g in zip(texts, golds)], golds)
    assert not any(r.correct for r in wrong)


def test_as_fraction():
    assert as_fraction("133") == 133
    assert as_fraction("-7") == -7
    assert as_fraction("3/4") == as_fraction("0.75")
    assert as_fraction("1,000") == 1000
    assert as_fraction("1/0") is None
    assert as_fraction("x") is None and as_fraction("1e5") is None
    assert as_fraction("9" * 5000) is None  # no giant int parsing


def test_fast_path_needs_no_worker(monkeypatch):
    def boom(*a, **k):
        raise AssertionError("pool used for plain numbers")

    monkeypatch.setattr(vm._POOL, "run", boom)
    res = score_math_batch(["answer : 133", "answer: 0.75", "nothing", "answer : 12"], ["133", "3/4", "1", "13"])
    assert [r.correct for r in res] == [True, True, False, False]
    assert res[2] == MathResult(False, None, False, None)


def test_math_verify_path():
    res = score_math_batch(
        ["\\boxed{\\frac{266}{2}}", "\\boxed{\\frac12}", "\\boxed{x^2+1}", "\\boxed{\\sqrt{2}}"],
        ["133", "0.5", "1+x^2", "2"], timeout_s=ROOMY_S,
    )
    assert [r.correct for r in res] == [True, True, True, False]
    assert not any(r.timeout for r in res)


PATHOLOGICAL = ["\\boxed{9^{9^{9^9}}}", "\\boxed{(10^{10^{10}})!}", "\\boxed{99^{99^{99^{99}}}}"]


def _ready_pool(workers: int) -> None:
    """`workers` workers and the warm spare started and done importing, so no clock below counts start-up."""
    with vm._POOL.lock:  # the pool itself (score_math_batch's cache would skip it)
        vm._POOL.run([("1+x", "x+1", False)], ROOMY_S, workers)
    for w in vm._POOL.workers[:workers] + [vm._POOL.spare]:
        assert w.ready or w.recv_conn.poll(HANG_S), "a math-verify worker never reported ready"


def _scored_in_thread(*args, **kwargs):
    """score_math_batch(*args, **kwargs) from another thread, failing (not hanging) if it never returns."""
    out = []
    th = threading.Thread(target=lambda: out.append(score_math_batch(*args, **kwargs)), daemon=True)
    th.start()
    th.join(HANG_S)
    assert not th.is_alive(), f"scoring did not return in {HANG_S:.0f} s: a timed-out worker was not killed"
    return out[0]


@pytest.fixture
def killed(monkeypatch):
    """The pids of the workers the pool kills, in order."""
    pids = []
    real = vm._Worker.kill

    def kill(w):
        pids.append(w.proc.pid)
        real(w)

    monkeypatch.setattr(vm._Worker, "kill", kill)
    return pids


def test_pathological_inputs_time_out_in_parallel(killed):
    _ready_pool(3)
    busy = [w.proc.pid for w in vm._POOL.workers[:3]]
    t0 = time.monotonic()
    res = _scored_in_thread(PATHOLOGICAL + ["\\boxed{y+2}"], ["1", "2", "3", "2+y"], timeout_s=1.0, workers=3)
    assert [r.timeout for r in res] == [True, True, True, False]
    assert [r.correct for r in res] == [False, False, False, True]
    # one pathological item on each of the three ready workers, each killed at its deadline
    assert sorted(killed) == sorted(busy)
    assert time.monotonic() - t0 >= 1.0  # a deadline is never reported early


def test_timeouts_work_from_a_thread(killed):
    _ready_pool(2)
    res = _scored_in_thread(PATHOLOGICAL[:2], ["1", "2"], workers=2)
    assert [r.timeout for r in res] == [True, True] and len(killed) == 2


def test_sequential_timeouts_with_one_worker(killed):
    _ready_pool(1)
    first, spare = vm._POOL.workers[0].proc.pid, vm._POOL.spare.proc.pid
    t0 = time.monotonic()
    res = _scored_in_thread(PATHOLOGICAL[:2], ["1", "2"], timeout_s=0.5, workers=1)
    assert all(r.timeout for r in res)
    # the second item ran on the warm spare that replaced the first, killed, worker (and it timed out in turn)
    assert killed == [first, spare]
    assert time.monotonic() - t0 >= 2 * 0.5


def test_worker_crash_loses_only_its_sample():
    _ready_pool(1)
    # the warm spare that replaces the crashed worker has waited longer than a start-up may take (hours, in a long
    # scoring job): it is ready, not late (CI, 2026-12-07: "did not start in time" when the pool was old)
    vm._POOL.spare.started -= vm._POOL.STARTUP_LIMIT_S + 1
    victim = {}

    def killer():
        # Kill whichever worker is busy with the slow sample.
        deadline = time.monotonic() + HANG_S
        while time.monotonic() < deadline:
            for w in list(vm._POOL.workers):
                if w.task is not None:
                    time.sleep(0.2)
                    victim["pid"] = w.proc.pid
                    os.kill(w.proc.pid, signal.SIGKILL)
                    return
            time.sleep(0.01)

    th = threading.Thread(target=killer)
    th.start()
    # a per-item limit far beyond the kill: the slow sample ends by the crash, never by its deadline
    res = score_math_batch([PATHOLOGICAL[0], "\\boxed{z+3}", "answer : 4"], ["1", "3+z", "4"], timeout_s=HANG_S,
                           workers=1)
    th.join()
    assert "pid" in victim
    assert res[0].error == "worker crashed" and not res[0].correct and not res[0].timeout
    assert res[1].correct and res[2].correct
    # the pool recovered
    assert score_math_batch(["\\boxed{w+1}"], ["1+w"], timeout_s=ROOMY_S)[0].correct


def test_identical_pairs_verified_once(monkeypatch):
    calls = []
    real = vm._POOL.run

    def spy(pairs, timeout_s, workers):
        calls.append(list(pairs))
        return real(pairs, timeout_s, workers)

    monkeypatch.setattr(vm._POOL, "run", spy)
    vm._CACHE.clear()
    res = score_math_batch(["\\boxed{q+1}"] * 5 + ["\\boxed{1+q}"], ["1+q"] * 6, timeout_s=ROOMY_S)
    assert all(r.correct for r in res)
    assert calls == [[("1+q", "q+1", False), ("1+q", "1+q", False)]]
    score_math_batch(["\\boxed{q+1}"], ["1+q"])  # served from the cache
    assert len(calls) == 1


def test_length_mismatch():
    with pytest.raises(ValueError):
        score_math_batch(["a"], [])


def test_a_long_boxed_answer_is_verified_whole():
    # Answers past 2,000 characters used to be cut before math-verify saw them, so a correct
    # long answer scored false with no sign of why (issue 17, item 5).
    number = "7" * 2100
    ones = "+".join(["1"] * 1100)  # 2,199 characters whose value is 1100
    res = score_math_batch([f"so \\boxed{{{number}}}", f"\\boxed{{{ones}}} done"], [number, "1100"], timeout_s=ROOMY_S)
    assert [r.extracted for r in res] == [number, ones]
    assert [(r.correct, r.timeout) for r in res] == [(True, False), (True, False)]


def test_a_long_boxed_answer_too_slow_to_verify_is_marked_a_timeout():
    # The cost of a long answer is bounded by the worker's time limit, and a sample that hits
    # it says so (timeout=True) rather than reading as a plain wrong answer.
    ones = "+".join(["1"] * 3000)
    vm._CACHE.clear()
    res = score_math_batch([f"\\boxed{{{ones}}}"], ["3000"], timeout_s=0.05)
    assert res[0].extracted == ones and res[0].timeout and not res[0].correct


# (response, gold, strict verdict, lenient verdict, lenient's extracted answer)
EXTRACTION_CASES = [
    # markers: both modes read them alike
    ("we get \\boxed{5}", "5", True, True, "5"),
    ("answer : 133 . that is all", "133", True, True, "133"),  # the toy world's shape
    # no marker, a real final answer: lenient finds it, strict scores it false (its false negatives)
    ("So x = 5", "5", False, True, "5"),
    ("Adding the two gives 12", "12", False, True, "12"),
    ("The result is 5.", "5", False, True, "5"),
    ("Therefore $\\frac{1}{2}$.", "1/2", False, True, "\\frac{1}{2}"),
    ("Thus we get \\(3\\sqrt{2}\\)", "\\sqrt{18}", False, True, "3\\sqrt{2}"),
    # no answer given, only a number in prose: lenient reads it as one (its false positives)
    ("I am not sure, maybe 5, I cannot solve this.", "5", False, True, "5"),
    ("The problem asks for the sum of 3 and 4.", "4", False, True, "4"),
    # math-verify's order puts the last `= ...` after "answer" first: lenient's false negative
    ("The answer is 7. Check: 7 + 3 = 10", "7", True, False, "10"),
    # wrong and empty answers stay wrong in both modes
    ("So x = 6", "5", False, False, "6"),
    ("no number here", "5", False, False, None),
    ("", "5", False, False, None),
]


def test_strict_and_lenient_extraction_differ_where_expected():
    texts, golds = [c[0] for c in EXTRACTION_CASES], [c[1] for c in EXTRACTION_CASES]
    strict = score_math_batch(texts, golds, timeout_s=ROOMY_S)
    lenient = score_math_batch(texts, golds, timeout_s=ROOMY_S, extraction="lenient")
    assert [r.correct for r in strict] == [c[2] for c in EXTRACTION_CASES]
    assert [r.correct for r in lenient] == [c[3] for c in EXTRACTION_CASES]
    assert [r.extracted for r in lenient] == [c[4] for c in EXTRACTION_CASES]
    assert not any(r.timeout or r.error for r in strict + lenient)


def test_an_unknown_extraction_mode_is_an_error():
    with pytest.raises(ValueError, match="loose"):
        score_math_batch(["\\boxed{1}"], ["1"], extraction="loose")
