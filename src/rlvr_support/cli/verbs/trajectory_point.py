"""`python -m rlvr_support trajectory-point`: declare the weights a trajectory chain's stage kept at
one step (step<s>/model/ beside the run's manifest) as a checkpoint: checksums, step, run.

Run by `trajectory_point` (workflow/rules/trajectory.smk); registered by cli/main.py.
"""

from __future__ import annotations

import json



def cmd_trajectory_point(a):
    from rlvr_support.storage.atomic import write_json
    from rlvr_support.training.kept_weights import point_manifest

    manifest = point_manifest(a.run, a.step)
    write_json(a.out, manifest)
    print(json.dumps(manifest, indent=1))


def register(verb) -> None:
    s = verb("trajectory-point", cmd_trajectory_point,
             "Declare the weights a trajectory chain's stage kept at one step (step<s>/model/ beside the run's "
             "manifest) as a checkpoint: checksums, step, run.")
    s.add_argument("--run", required=True, help="the trained run's manifest.json")
    s.add_argument("--step", type=int, required=True)
    s.add_argument("--out", required=True, help="<run>/step<s>/manifest.json")
