"""What every claim may read besides its input table: the score files, the run's settings, and the
places the study measures claims at, all derived from the pairs of a checkpoint and its base.

A place (`Where`) is a chain on an eval set. The trained-task places are each single-task RLVR chain
of the study on its own task; the external places each checkpoint trained elsewhere on each eval set
it was scored on. Mitigation variants (`math-if~kl`) have their own table and are no place here.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

from rlvr_support.analysis.passk_table import per_prompt_metrics
from rlvr_support.analysis.resample import paired_grouped_diff
from rlvr_support.analysis.runs import by_chain, is_trained
from rlvr_support.analysis.scores import PromptBlock, ScoreFile, benchmark_matrices


@dataclass(frozen=True)
class Where:
    chain: str
    eval_set: str


@dataclass
class Study:
    scores: list[ScoreFile]
    m: int  # the opening tokens of the JS claim
    n_boot: int
    ci: float
    seed: int
    group_size: int | None = None  # the RL group size G of the mixed-group claim; None: no such claim

    @property
    def boot(self) -> dict:
        return dict(n_boot=self.n_boot, ci=self.ci, seed=self.seed)

    @cached_property
    def passk(self) -> dict[tuple[str, str], dict[str, dict[str, tuple]]]:
        """The pass@k effects of every checkpoint with a base (computed once, read by several claims)."""
        return passk_effects(self.scores, **self.boot)

    @cached_property
    def trained_chains(self) -> list[str]:
        """The chains this study trained, by stages then name; checkpoints trained elsewhere get only
        the claims that need no knowledge of how they were trained."""
        return sorted({c for c, _ in self.passk if "~" not in c and is_trained(c)}, key=lambda c: (c.count("-"), c))

    @property
    def trained_tasks(self) -> list[Where]:
        """Each single-task chain on its own task: the last (only) stage trained on the eval set's task."""
        return [Where(c, c) for c in self.trained_chains if "-" not in c]

    @property
    def externals(self) -> list[Where]:
        names = sorted({c for c, _ in self.passk if not is_trained(c)})
        return [Where(name, ev) for name in names for ev in sorted({e for c, e in self.passk if c == name})]


def passk_effects(files: list[ScoreFile], *, n_boot, ci, seed) -> dict[tuple[str, str], dict[str, dict[str, tuple]]]:
    """{(chain, eval_set): {benchmark: {'pass@1': (d, lo, hi, n_seeds), 'best@kmax': ...}}} as
    checkpoint - base, paired per prompt; k max is the benchmark's n."""
    groups = by_chain(files)
    out = {}
    for (chain, eval_set), group in groups.items():
        if chain == "base" or ("base", eval_set) not in groups:
            continue
        base_file = groups[("base", eval_set)][0]
        base_mats = benchmark_matrices(base_file.path)
        seed_mats = [benchmark_matrices(f.path) for f in group]
        out[(chain, eval_set)] = {}
        for bench, (ids_b, s_b, g_b) in base_mats.items():
            n = s_b.shape[1]
            base = per_prompt_metrics(PromptBlock(ids_b, s_b, g_b, None), [1, n], seed=seed)
            per_seed = []
            for f, mats in zip(group, seed_mats):
                if list(mats) != list(base_mats):
                    raise ValueError(f"{f.path}: benchmarks {list(mats)} differ from the base's {list(base_mats)}")
                ids, s, g = mats[bench]
                if ids != ids_b or s.shape[1] != n:
                    raise ValueError(f"{f.path} [{bench}]: prompts or n differ from the base's")
                per_seed.append(per_prompt_metrics(PromptBlock(ids, s, g, None), [1, n], seed=seed))
            eff = {}
            for name, metric, j in (("pass@1", "pass@k", 0), ("best@kmax", "best@k", 1),
                                    ("coverage@kmax", "coverage", 1)):
                d = paired_grouped_diff(base[metric][:, j], [p[metric][:, j] for p in per_seed], n_boot=n_boot,
                                        ci=ci, seed=seed)
                eff[name] = (*d[:3], len(group))
            out[(chain, eval_set)][bench] = eff
    return out
