"""How the idle OpenMP threads of a job wait: a short spin, then sleep.

libgomp (the OpenMP runtime of torch and of MKL under it) lets an idle thread spin 300,000 turns
before it sleeps. On cores that jobs share, as under `make test` (two workers, each running
Snakemake jobs of 2 threads on a 2-core machine), the spinning threads take the cores from the
threads doing the work. Two 2-thread pretraining loops side by side on 2 cores ran at 1.82 s a step
each with the default and 0.86 s with 3,000 turns; one loop alone at 0.41-0.43 s either way
(2-core AMD EPYC, 2026-12-06).

OpenBLAS (numpy's, which computes the linear layers under `numerics.matmul: openblas`) has its own
worker threads, which spin 2**28 cycles after a product before they sleep, on the cores where torch's
threads then work: a 2-thread pretraining step took 0.55 s so and 0.33 s with OPENBLAS_THREAD_TIMEOUT=4
(2**4 cycles, its least), against 0.58 s with MKL (2-core AMD EPYC, 2026-12-07).

A wait changes no result: this is not part of the pinned numerics (config/numerics.py), nor of any
job's code hash (only `python -m rlvr_support`'s __main__ and the test suite import it), so changing
it reruns nothing. A user's own GOMP_SPINCOUNT or OMP_WAIT_POLICY is kept.
"""

from __future__ import annotations

import os

SPIN_TURNS = "3000"
OPENBLAS_TIMEOUT = "4"  # log2 of the cycles an idle OpenBLAS thread spins


def short_spin(environ=os.environ) -> None:
    """Idle OpenMP threads of this process and its children spin SPIN_TURNS turns, then sleep, unless
    the environment already says how they wait. Before torch loads: libgomp reads it once."""
    if "GOMP_SPINCOUNT" not in environ and "OMP_WAIT_POLICY" not in environ:
        environ["GOMP_SPINCOUNT"] = SPIN_TURNS
    environ.setdefault("OPENBLAS_THREAD_TIMEOUT", OPENBLAS_TIMEOUT)
