"""Polarisation: how a checkpoint moves per-prompt success counts (c of n) to the extremes 0/n and
n/n against the base, per eval set and benchmark (Verifier-Induced Support Reshaping; buckets and moves:
metrics.polarisation).

Three tables, RL seeds pooled (counts are means over seeds):

* summary: prompts at 0/n and at n/n under base and checkpoint, their changes (``delta_zero``,
  ``delta_all``, the seed-000 "0/32 +67; 32/32 +73" numbers) with a bootstrap CI over prompts and
  seeds (per-prompt indicator differences, metrics.bootstrap.bootstrap_ci_grouped, times the number
  of prompts), and the prompts that moved there (``to_zero``: base c > 0, checkpoint c = 0;
  ``to_all``: base c < n, checkpoint c = n);
* transitions: prompts in each (base bucket, checkpoint bucket) cell, a 4 x 4 table per checkpoint;
* histogram: prompts at each success count 0..n per checkpoint (the base included), the figure's data.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from rlvr_support.metrics.bootstrap import bootstrap_ci_grouped
from rlvr_support.metrics.polarisation import BUCKETS, moves_to_extremes, success_bucket
from rlvr_support.analysis.runs import by_chain, relation
from rlvr_support.analysis.scores import ScoreFile
from rlvr_support.analysis.trainability import success_counts


def polarisation_tables(files: list[ScoreFile], *, n_boot: int, ci: float, seed: int
                        ) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """(summary, transitions, histogram); see the module docstring."""
    groups = by_chain(files)
    summary, transitions, hist = [], [], []
    for (chain, eval_set), group in groups.items():
        if ("base", eval_set) not in groups:
            raise ValueError(f"polarisation of {chain}/{eval_set} needs the base's scores of {eval_set}")
        base = success_counts(groups[("base", eval_set)][:1])
        for bench, (ids, counts, n) in success_counts(group).items():
            ids_b, counts_b, n_b = base[bench]
            if ids_b != ids or n_b != n:
                raise ValueError(f"{chain}/{eval_set} [{bench}]: prompts or n differ from the base's")
            key = {"chain": chain, "eval_set": eval_set, "benchmark": bench}
            hist += [{**key, "n": n, "successes": k, "prompts": float(np.mean((counts == k).sum(axis=1))),
                      "share": float(np.mean((counts == k).mean(axis=1)))} for k in range(n + 1)]
            if chain == "base":
                continue
            b = counts_b[0]
            P = len(ids)
            row = {**key, "relation": relation(chain, eval_set), "n": n, "n_seeds": len(group), "n_prompts": P,
                   "base_zero": int((b == 0).sum()), "base_all": int((b == n).sum()),
                   "ckpt_zero": float(np.mean((counts == 0).sum(axis=1))),
                   "ckpt_all": float(np.mean((counts == n).sum(axis=1)))}
            for name, level in (("zero", 0), ("all", n)):
                diffs = [(c == level).astype(float) - (b == level).astype(float) for c in counts]
                p, lo, hi, _ = bootstrap_ci_grouped(diffs, n_boot=n_boot, ci=ci, seed=seed)
                row[f"delta_{name}"], row[f"delta_{name}_lo"], row[f"delta_{name}_hi"] = p * P, lo * P, hi * P
            moves = [moves_to_extremes(b, c, n) for c in counts]
            row["to_zero"] = float(np.mean([z.sum() for z, _ in moves]))
            row["to_all"] = float(np.mean([a.sum() for _, a in moves]))
            summary.append(row)
            bb = success_bucket(b, n)
            cells = np.mean([np.histogram2d(bb, success_bucket(c, n), bins=[np.arange(5)] * 2)[0] for c in counts],
                            axis=0)
            transitions += [{**key, "relation": row["relation"], "n": n, "base_bucket": BUCKETS[i],
                             "ckpt_bucket": BUCKETS[j], "prompts": float(cells[i, j]), "share": float(cells[i, j] / P)}
                            for i in range(4) for j in range(4)]
    return pd.DataFrame(summary), pd.DataFrame(transitions), pd.DataFrame(hist)
