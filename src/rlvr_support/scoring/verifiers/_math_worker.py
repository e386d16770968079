"""Worker process for math-verify: `python -m rlvr_support.scoring.verifiers._math_worker`.

Started as `python -m rlvr_support.scoring.verifiers._math_worker <parent pid>`.
Runs in its own interpreter (not forked from the caller, so it is safe to start
from any thread and never re-imports the caller's __main__). Protocol over
multiprocessing Connections on the original stdin/stdout fds:
  worker -> parent: ("ready",) once imports are done
  parent -> worker: (gold, pred, whole)     worker -> parent: (correct, error, extracted)
`whole` False: `pred` is an answer already extracted (strict mode); True: `pred` is a whole
response, and math-verify's own default extraction finds its answer (lenient mode; the
string it extracted comes back as `extracted`).
EOF on stdin ends the worker. The parent enforces the time limit by killing us;
math-verify's own signal-based timeouts are disabled (they only work in the main
thread and are soft).

A worker dies with its parent (`_die_with_parent`): a worker busy on a sample reads no
EOF, so after a SIGKILL or SIGTERM of the scorer it would otherwise run on at full CPU.
"""

from __future__ import annotations

import functools
import os
import re
import signal
import sys
import threading
import time

PR_SET_PDEATHSIG = 1  # <linux/prctl.h>


def _limit_memory(gib: int = 4) -> None:
    # (10^{10^{10}})! and friends should die with MemoryError, not swap the machine.
    try:
        import resource

        limit = gib * 1024**3
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    except (ImportError, ValueError, OSError):
        pass


def _die_with_parent(parent: int) -> None:
    """Exit when process `parent` does.

    On Linux the kernel sends SIGKILL at the parent's death (prctl PR_SET_PDEATHSIG), which
    reaches us even deep inside sympy holding the GIL. A watchdog thread polling getppid
    covers other systems and the race of a parent that died before the prctl call."""
    try:
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    except (OSError, AttributeError):  # not Linux: the watchdog alone
        pass

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(0.5)
        os._exit(1)

    if os.getppid() != parent:
        os._exit(1)
    threading.Thread(target=watch, name="parent-watchdog", daemon=True).start()


def _wrap(expr: str) -> str:
    # Bare strings go through math-verify's LaTeX path via \boxed{...}; inputs that
    # already carry LaTeX delimiters are left as they are. An escaped dollar is a currency sign,
    # not a delimiter: MATH-500's golds `\$36`, `\$18.90` and `\$32,\!348` would never parse.
    if "\\boxed" in expr or re.search(r"(?<!\\)\$", expr):
        return expr
    return "\\boxed{" + expr + "}"


def main(parent: int) -> None:
    from multiprocessing.connection import Connection

    _die_with_parent(parent)

    # Keep private copies of the protocol fds and point fd 0/1 elsewhere, so stray
    # prints from libraries cannot corrupt the protocol stream.
    inp = Connection(os.dup(0), writable=False)
    out = Connection(os.dup(1), readable=False)
    os.dup2(os.open(os.devnull, os.O_RDONLY), 0)
    os.dup2(2, 1)
    _limit_memory()

    import logging

    logging.disable(logging.WARNING)  # math-verify warns that timeouts are off: we know
    from math_verify import parse, verify

    @functools.lru_cache(maxsize=4096)
    def parse_gold(gold: str):  # each distinct gold parsed once per worker
        return parse(_wrap(gold), parsing_timeout=None)

    out.send(("ready",))
    while True:
        try:
            gold, pred, whole = inp.recv()
        except (EOFError, OSError):
            return
        extracted = None
        try:
            g = parse_gold(gold)
            # parse's defaults are math-verify's own extraction: LaTeX then plain expressions,
            # "final answer is" before \boxed before "answer:" before the last expression
            p = parse(pred if whole else _wrap(pred), parsing_timeout=None)
            if whole and p:
                # parse appends the matched text after the parsed value (fallback_mode first_match)
                extracted = p[-1] if isinstance(p[-1], str) else str(p[0])
            ok = bool(g) and bool(p) and bool(verify(g, p, timeout_seconds=None))
            out.send((ok, None, extracted))
        except BaseException as e:  # noqa: BLE001 - report, never die on one sample
            out.send((False, f"{type(e).__name__}: {str(e)[:200]}", extracted))


if __name__ == "__main__":
    sys.setrecursionlimit(10_000)
    main(parent=int(sys.argv[1]))
