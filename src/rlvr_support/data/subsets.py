"""The prompt subsets that best@k at a larger k (analysis.large_k) and the single-token interventions
(analysis.single_token) are measured on.

Sampling every eval prompt at k = 128 (or 1,024 at paper scale) costs k/n times a sample job; the
headroom question (does the base still reach what a checkpoint lost, at a k beyond the study's n?)
needs fewer prompts. The subset is evenly spaced over the eval split in file order, so each stretch
of the file keeps its share: a benchmark's block of a multi-benchmark eval set, a level's run of
problems. No random draw: the same file gives the same subset everywhere.
"""

from __future__ import annotations


def evenly_spaced(records: list[dict], count: int, where: str = "--count") -> list[dict]:
    """The records at indices floor(i * N / count), i = 0 .. count - 1 (N = len(records)), in order."""
    if count < 1:
        raise ValueError(f"{where}: {count} prompts asked; give at least 1")
    if count > len(records):
        raise ValueError(f"{where}: {count} prompts asked, but the eval split has only {len(records)}")
    return [records[i * len(records) // count] for i in range(count)]
