"""`python -m rlvr_support trajectory-table`: pass@1, best@k, coverage@k, answer entropy and solution-
style shares of every checkpoint of a training trajectory (the first k samples of each prompt, CI
over prompts), and the Pearson / Spearman association of each style share with best@k across
checkpoints.

Run by `trajectory_table` (workflow/rules/trajectory.smk); registered by cli/main.py.
"""

from __future__ import annotations

import argparse

from rlvr_support.cli.args import json_arg as _json
from rlvr_support.cli.tables import write_table


class _Points(argparse.Action):
    """`--points` as JSON, and its samples and scores files under `point_files`, so that the
    provenance sidecar hashes them as the verb's inputs (lineage.provenance reads path arguments)."""

    def __call__(self, parser, namespace, points, option_string=None):
        if not isinstance(points, list) or not all(isinstance(p, dict) for p in points):
            parser.error(f"{option_string}: expected a JSON list of point objects")
        setattr(namespace, self.dest, points)
        setattr(namespace, "point_files", [str(p[key]) for p in points for key in ("samples", "scores") if key in p])


def cmd_trajectory_table(a):
    from rlvr_support.analysis.trajectory import association_markdown, association_table, trajectory_markdown, \
        trajectory_table

    c = a.cfg
    traj = trajectory_table(a.points, k=c["k"], n_boot=c["bootstrap"], ci=c["ci"], seed=c["seed"])
    assoc = association_table(traj, n_boot=c["bootstrap"], ci=c["ci"], seed=c["seed"])
    write_table(traj, a.out, markdown=trajectory_markdown(traj))
    print(write_table(assoc, a.out_association, markdown=association_markdown(assoc)))


def register(verb) -> None:
    s = verb("trajectory-table", cmd_trajectory_table,
             "pass@1, best@k, coverage@k, answer entropy and solution-style shares of every checkpoint of a "
             "training trajectory (the first k samples of each prompt, CI over prompts), and the Pearson / "
             "Spearman association of each style share with best@k across checkpoints.")
    s.add_argument("--points", type=_json, action=_Points, required=True,
                   help='JSON list of {"run", "chain", "seed" (null for an external run), "step", "samples", '
                        '"scores"}; the eval set is the files\' stem')
    s.add_argument("--cfg", type=_json, required=True,
                   help="JSON with k (samples read per prompt), bootstrap, ci and seed")
    s.add_argument("--out", required=True, help="trajectory CSV (a .md is written beside it)")
    s.add_argument("--out-association", required=True, help="association CSV (a .md is written beside it)")
    s.set_defaults(prov_inputs=["point_files"], point_files=[])
