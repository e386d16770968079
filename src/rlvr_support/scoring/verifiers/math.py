"""Math answer extraction and verification.

* `extract_answer` finds the final answer in a response: the last of `\\boxed{...}`,
  `#### N` (GSM8K) and answer phrases ("answer : X", "The answer is X", "final
  answer: X"). After `####` or a phrase, the answer is the whole expression up to the
  sentence end ("The answer is 42^2." -> "42^2"), or a leading number alone when
  nothing mathematical continues it ("answer : 133 . that is all" -> "133").
  That is the strict extraction; `extraction="lenient"` instead lets math-verify's own
  default extraction read the whole response (see EXTRACTIONS), which also finds answers
  without a marker ("x = 5", a bare final number) and reads a number in prose as one.
* `score_math_batch` compares extracted answers with gold answers. Plain numbers
  are compared exactly as `fractions.Fraction` in-process (the toy world's path);
  everything else goes to Hugging Face math-verify (`parse` + `verify`) in worker
  processes (`_math_worker.py`) with a hard per-sample time limit: a worker that
  exceeds it is killed and replaced, so `\\boxed{9^{9^{9^9}}}` costs about
  `timeout_s`, from any thread. math-verify's own signal-based timeouts are off.
  The same limit bounds a long `\\boxed{...}`, which is passed whole: a cut would score a
  correct long answer false, a timeout is reported as one.
  Workers die with the scoring process, even when it is killed (SIGKILL, SIGTERM).

Model output is never passed to eval/sympify here; only math-verify's parser sees
it, inside a memory-limited, killable process.
"""

from __future__ import annotations

import atexit
import os
import re
import subprocess
import sys
import threading
import time
from collections import deque
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from fractions import Fraction
from multiprocessing.connection import Connection, wait

# ---------------------------------------------------------------------------
# Extraction

# A number-like token: integer with optional thousands commas, decimal, or fraction.
_NUMBER = r"-?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?(?:\s*/\s*\d+)?|-?\.\d+"
_NUMBER_RE = re.compile(_NUMBER)
_PHRASE = re.compile(
    r"(?i)(?:\bfinal\s+answer\s*(?:is\b\s*[:=]?|[:=])|\bthe\s+answer\s+is\b\s*[:=]?|\banswer\s*[:=])[ \t]*"
)
# Where the answer after a phrase ends: a sentence end (a period before a space or the
# end, or the toy world's " ."), or a closing math delimiter. Newlines are cut before.
_ANSWER_END = re.compile(r"\s\.|\.\s|\.$|\$|\\\)|\\\]")
# What makes a leading number part of a larger expression, so that the answer is the
# whole expression. Prose or markup after a space ("3/4 done", the toy world's
# "133 << sea >> P.S"), quotes, commas and a dash before a word leave the number alone.
_OPERAND = r"[ \t]*(?:\d|[({\\.]|[A-Za-z](?![A-Za-z]))"
_GLUED = r"[A-Za-z({\\!]"  # 3x, 42cm, 3\sqrt{2}, 3(2+1), 5!
_OPERATION = r"[ \t]*(?:\*\*|[-+*/^_=×÷·])" + _OPERAND  # 42^2, 13 + 5, 2 ** 3
_COMMAND = r"[ \t]+\\[A-Za-z]"  # 2 \cdot 3
_CONTINUES = re.compile(f"{_GLUED}|{_OPERATION}|{_COMMAND}")
_HASHES = re.compile(r"####[ \t]*")
_BOXED = re.compile(r"\\(?:boxed|fbox)\s*\{")
_MAX_ANSWER = 500  # longer answers after a phrase are cut: nobody's final answer is a page


def _brace_partners(text: str) -> dict[int, int]:
    """Map each '{' position to its matching '}' in one linear pass."""
    partners, stack = {}, []
    for m in re.finditer(r"[{}]", text):
        if m.group() == "{":
            stack.append(m.start())
        elif stack:
            partners[stack.pop()] = m.start()
    return partners


def _after_phrase(text: str, start: int) -> str | None:
    """The answer that follows an answer phrase ending at `start`.

    The whole expression up to the sentence end, without math delimiters, as
    math-verify reads it ("The answer is 42^2." -> "42^2", not "42"); when it starts
    with a number that nothing continues, that number alone ("answer : 133 . that
    is all" -> "133", the toy world's shape; "answer: 3/4 done" -> "3/4").
    """
    rest = text[start : start + _MAX_ANSWER]  # bounded: keeps many phrases linear
    rest = rest.split("\n", 1)[0].strip().lstrip("$").lstrip()
    if rest.startswith("\\(") or rest.startswith("\\["):
        rest = rest[2:].lstrip()
    rest = _ANSWER_END.split(rest, maxsplit=1)[0].strip()
    if not rest:
        return None
    m = _NUMBER_RE.match(rest)
    if m and not _CONTINUES.match(rest, m.end()):
        return re.sub(r"\s+", "", m.group())
    return rest


def _last(matches, answer_of) -> tuple[int, str] | None:
    """The last match (by position) that yields an answer; scans from the end."""
    for m in reversed(list(matches)):
        ans = answer_of(m)
        if ans:
            return m.start(), ans
    return None


def extract_answer(text: str) -> str | None:
    """Return the last final answer in `text`, or None (see module docstring)."""
    candidates = []
    if "\\boxed" in text or "\\fbox" in text:
        partners = _brace_partners(text)

        def boxed(m):
            close = partners.get(m.end() - 1)
            # Not cut: the braces delimit it, and math-verify's cost on a long one is bounded
            # by the worker's timeout_s and memory limit (a timeout is reported as such, not as
            # a wrong answer), where a cut would score a correct long answer false.
            return None if close is None else text[m.end() : close].strip()

        candidates.append(_last(_BOXED.finditer(text), boxed))
    if "####" in text:
        candidates.append(_last(_HASHES.finditer(text), lambda m: _after_phrase(text, m.end())))
    candidates.append(_last(_PHRASE.finditer(text), lambda m: _after_phrase(text, m.end())))
    candidates = [c for c in candidates if c is not None]
    if not candidates:
        return None
    return max(candidates, key=lambda c: c[0])[1]


# ---------------------------------------------------------------------------
# Exact fast path for plain numbers

_PLAIN = re.compile(r"[+-]?\d{1,60}(?:\.\d{1,60})?(?:/[+-]?\d{1,60})?")
_THOUSANDS = re.compile(r"[+-]?\d{1,3}(?:,\d{3}){1,20}(?:\.\d{1,60})?")


def as_fraction(s: str) -> Fraction | None:
    """Exact value of a plain numeric string ("133", "-7", "3/4", "2.50", "1,000")."""
    s = s.strip().rstrip(".").replace(" ", "")
    if _THOUSANDS.fullmatch(s):
        s = s.replace(",", "")
    if not _PLAIN.fullmatch(s):
        return None
    try:
        return Fraction(s)
    except (ValueError, ZeroDivisionError):
        return None


# ---------------------------------------------------------------------------
# Worker pool


@dataclass(frozen=True)
class MathResult:
    correct: bool
    extracted: str | None
    timeout: bool
    error: str | None


_SPAWNER: tuple[int, ThreadPoolExecutor] | None = None  # (pid, executor)


def _spawn(cmd: list[str], **popen_kw) -> subprocess.Popen:
    """Popen from one long-lived thread. A worker dies with its parent
    (_math_worker._die_with_parent), and Linux's parent-death signal fires when the *thread*
    that started it exits: scoring from a short-lived thread must not take the pool with it."""
    global _SPAWNER
    if _SPAWNER is None or _SPAWNER[0] != os.getpid():  # a forked child inherits no spawner thread
        _SPAWNER = (os.getpid(), ThreadPoolExecutor(max_workers=1, thread_name_prefix="math-verify-spawner"))
    return _SPAWNER[1].submit(subprocess.Popen, cmd, **popen_kw).result()


class _Worker:
    """One `_math_worker` subprocess with its two protocol connections."""

    def __init__(self) -> None:
        self.proc = _spawn(
            [sys.executable, "-m", "rlvr_support.scoring.verifiers._math_worker", str(os.getpid())],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            close_fds=True,
        )
        self.send_conn = Connection(os.dup(self.proc.stdin.fileno()), readable=False)
        self.recv_conn = Connection(os.dup(self.proc.stdout.fileno()), writable=False)
        self.proc.stdin.close()
        self.proc.stdout.close()
        self.ready = False
        self.started = time.monotonic()
        self.task: int | None = None  # index of the pair it is working on
        self.deadline = 0.0

    def kill(self) -> None:
        for conn in (self.send_conn, self.recv_conn):
            try:
                conn.close()
            except OSError:
                pass
        try:
            self.proc.kill()
            self.proc.wait(timeout=5)
        except (OSError, subprocess.TimeoutExpired):
            pass


class _Pool:
    """Persistent worker processes plus one warm spare to replace a killed one."""

    STARTUP_LIMIT_S = 120.0

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.workers: list[_Worker] = []
        self.spare: _Worker | None = None

    def _replace(self, w: _Worker) -> None:
        w.kill()
        self.workers.remove(w)
        new, self.spare = (self.spare or _Worker()), _Worker()
        self.workers.append(new)

    def shutdown(self) -> None:
        for w in self.workers + ([self.spare] if self.spare else []):
            w.kill()
        self.workers, self.spare = [], None

    def run(self, pairs: list[tuple[str, str, bool]], timeout_s: float, workers: int):
        """Verify (gold, pred, whole) items (see _math_worker); returns [(correct, timeout, error, extracted)]."""
        results: list[tuple[bool, bool, str | None, str | None] | None] = [None] * len(pairs)
        while len(self.workers) < workers:
            self.workers.append(_Worker())
        if self.spare is None:
            self.spare = _Worker()
        active = self.workers[:workers]
        pending = deque(range(len(pairs)))
        failures = 0
        while pending or any(w.task is not None for w in active):
            now = time.monotonic()
            for w in active:
                if w.ready and w.task is None and pending:
                    w.task = pending.popleft()
                    w.deadline = now + timeout_s
                    try:
                        w.send_conn.send(pairs[w.task])
                    except OSError:
                        w.deadline = now  # dead: handled as a crash below
            deadlines = [w.deadline for w in active if w.task is not None]
            wait_s = max(0.0, min(deadlines) - now) if deadlines else 0.5
            readable = wait([w.recv_conn for w in active], timeout=wait_s)
            for w in list(active):
                if w.recv_conn not in readable:
                    continue
                try:
                    msg = w.recv_conn.recv()
                except (EOFError, OSError):
                    # Crashed worker: only its in-flight sample is lost.
                    if w.task is not None:
                        results[w.task] = (False, False, "worker crashed", None)
                    elif not w.ready:
                        failures += 1
                        if failures >= 3:
                            raise RuntimeError("math-verify worker fails to start") from None
                    active[active.index(w)] = self._swap(w)
                    continue
                if msg == ("ready",):
                    w.ready = True
                elif w.task is not None:
                    results[w.task] = (msg[0], False, msg[1], msg[2])
                    w.task = None
            now = time.monotonic()
            for w in list(active):
                if w.task is not None and now >= w.deadline:
                    results[w.task] = (False, True, None, None)
                    active[active.index(w)] = self._swap(w)
                elif not w.ready and now - w.started > self.STARTUP_LIMIT_S and not w.recv_conn.poll():
                    # a spare swapped in for a crashed worker may have sat ready for hours with its "ready" unread:
                    # its age is not a start-up (a worker that died unready has EOF waiting, read as a failure)
                    raise RuntimeError("math-verify worker did not start in time")
        return results

    def _swap(self, w: _Worker) -> _Worker:
        self._replace(w)
        return self.workers[-1]


_POOL = _Pool()
atexit.register(_POOL.shutdown)

# (gold, pred) -> (correct, error) for completed strict math-verify calls (not timeouts).
# Lenient calls are not kept: their keys are whole responses, too big to hold 200,000 of.
_CACHE: dict[tuple[str, str], tuple[bool, str | None]] = {}
_CACHE_MAX = 200_000

# How the answer is found (config `scoring.math_extraction`):
#   strict  - extract_answer: \boxed, #### or an answer phrase, else no answer (the toy world
#             always writes `answer : N`; a response without a marker is not an answer)
#   lenient - math-verify's own default extraction on the whole response, which also reads an
#             unmarked `x = 5`, a bare final number or the last LaTeX expression (base models
#             without a chat format rarely box their answers)
EXTRACTIONS = ("strict", "lenient")


def shutdown_workers() -> None:
    """Stop the worker processes (they also exit when this process does)."""
    with _POOL.lock:
        _POOL.shutdown()


def score_math_batch(
    responses: list[str],
    golds: list[str],
    *,
    timeout_s: float = 1.0,
    workers: int = 1,
    extraction: str = "strict",
) -> list[MathResult]:
    """Score each response against its gold answer (see module docstring and EXTRACTIONS)."""
    if len(responses) != len(golds):
        raise ValueError(f"{len(responses)} responses but {len(golds)} golds")
    if extraction not in EXTRACTIONS:
        raise ValueError(f"math extraction {extraction!r} is not one of {EXTRACTIONS}")
    whole = extraction == "lenient"
    # lenient: the worker extracts from the whole response; "" has no answer in either mode
    extracted = [(r if r.strip() else None) if whole else extract_answer(r) for r in responses]
    verdict: dict[tuple[str, str], tuple[bool, bool, str | None, str | None]] = {}
    todo: list[tuple[str, str]] = []
    gold_values: dict[str, Fraction | None] = {}
    for gold, pred in zip(golds, extracted):
        gold = str(gold)
        key = (gold, pred)
        if pred is None or key in verdict:
            continue
        if gold not in gold_values:
            gold_values[gold] = as_fraction(str(gold))
        g, p = gold_values[gold], (None if whole else as_fraction(pred))
        if g is not None and p is not None:
            verdict[key] = (g == p, False, None, pred)
        elif not whole and key in _CACHE:
            verdict[key] = (_CACHE[key][0], False, _CACHE[key][1], pred)
        else:
            verdict[key] = None  # placeholder, filled by the pool
            todo.append(key)
    if todo:
        with _POOL.lock:
            outcomes = _POOL.run([(g, p, whole) for g, p in todo], timeout_s, max(1, int(workers)))
        if len(_CACHE) > _CACHE_MAX:
            _CACHE.clear()
        for key, (ok, timed_out, err, found) in zip(todo, outcomes):
            verdict[key] = (ok, timed_out, err, found if whole else key[1])
            if not whole and not timed_out and err != "worker crashed":
                _CACHE[key] = (ok, err)
    out = []
    for gold, pred in zip(golds, extracted):
        if pred is None:
            out.append(MathResult(False, None, False, None))
        else:
            ok, timed_out, err, found = verdict[(str(gold), pred)]
            out.append(MathResult(bool(ok), found, timed_out, err))
    return out
