"""Group per-checkpoint files (samples, scores, analysis outputs) by chain and eval set.

Every such file lives at `<root>/<checkpoint>/<eval_set>.<ext>` with the checkpoint `base`
`<chain>/seed<k>` or an external checkpoint's name (see analysis.scores.parse_score_path); the path
is the only source of the labels.  The base policy must be present for every eval set compared
against it.
"""

from __future__ import annotations

import re
from collections import defaultdict
from pathlib import Path

from rlvr_support.analysis.scores import ScoreFile, parse_score_path
from rlvr_support.config.chains import CHAIN_RE, stage_task

__all__ = ["parse_files", "by_chain", "base_of", "relation", "is_trained", "chain_sort_key"]


def parse_files(paths, root) -> list[ScoreFile]:
    return [parse_score_path(p, root) for p in paths]


def chain_sort_key(chain: str):
    return (chain != "base", chain.count("-"), chain)


def by_chain(files: list[ScoreFile]) -> dict[tuple[str, str], list[ScoreFile]]:
    """{(chain, eval_set): files sorted by seed}, base included under chain 'base'."""
    groups: dict[tuple[str, str], list[ScoreFile]] = defaultdict(list)
    for f in files:
        groups[(f.chain, f.eval_set)].append(f)
    return {k: sorted(v, key=lambda f: (f.seed is not None, f.seed or 0))
            for k, v in sorted(groups.items(), key=lambda kv: (kv[0][1], chain_sort_key(kv[0][0])))}


def base_of(files: list[ScoreFile], eval_set: str) -> ScoreFile:
    hits = [f for f in files if f.chain == "base" and f.eval_set == eval_set]
    if len(hits) != 1:
        raise ValueError(f"need exactly one base file for eval set {eval_set!r}, got "
                         f"{[str(Path(f.path)) for f in hits]}")
    return hits[0]


def is_trained(chain: str) -> bool:
    """A chain this study trained (else an external checkpoint, whose training tasks it does not know)."""
    return re.fullmatch(CHAIN_RE, chain) is not None


def relation(chain: str, eval_set: str) -> str:
    """'same-task' when the chain's last stage trained on the eval set's task, else 'cross-task';
    'external' for a checkpoint trained elsewhere."""
    if not is_trained(chain):
        return "external"
    return "same-task" if stage_task(chain) == eval_set else "cross-task"
