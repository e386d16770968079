"""`python -m rlvr_support train`: one RLVR stage (GRPO via TRL) on one task from a parent checkpoint.

Run by `train_stage` (workflow/rules/train.smk); registered by cli/main.py.
"""

from __future__ import annotations

from rlvr_support.cli.args import GPUS_HELP, json_arg as _json
from rlvr_support.cli.verifier_args import add_verifier_args
from rlvr_support.models.devices import require_gpus


def cmd_train(a):
    require_gpus(a.gpus)
    from rlvr_support.storage.atomic import write_json
    from rlvr_support.lineage.job_code import job_hash, monitor_moves_weights
    from rlvr_support.training.stage import train_stage

    probes = dict(p.split("=", 1) for p in a.probe) if a.probe else None
    manifest = train_stage(a.parent, a.task, a.prompts, a.out, a.cfg, a.seed, a.chain, threads=a.threads,
                           remedies=a.remedies, teacher=a.teacher, probes=probes,
                           code=job_hash("train", a.verifiers, a.remedies, monitor_moves_weights(a.cfg)),
                           log_dir=a.log_dir, scoring=a.scoring)
    if manifest is not None:  # None on the non-main processes of a multi-GPU run
        write_json(a.out, manifest)


def register(verb) -> None:
    s = verb("train", cmd_train, "One RLVR stage (GRPO via TRL) on one task from a parent checkpoint.")
    s.add_argument("--parent", required=True, help="parent checkpoint manifest")
    s.add_argument("--task", choices=["math", "if", "joint"], required=True)
    s.add_argument("--prompts", required=True, help="the task's prompt JSONL (train split is used)")
    s.add_argument("--cfg", type=_json, required=True, help="the config's `rl` section as JSON")
    s.add_argument("--seed", type=int, required=True)
    s.add_argument("--chain", required=True)
    s.add_argument("--out", required=True, help="manifest.json of the new checkpoint")
    s.add_argument("--threads", type=int, default=1,
                   help="the job's CPU cores on this node; under accelerate each training process takes an equal share")
    s.add_argument("--gpus", type=int, default=0, help=GPUS_HELP)
    s.add_argument("--remedies", type=_json, default={},
                   help="the chain variant's remedies as JSON, e.g. '{\"kl\": {\"beta\": 0.05}}' (training/trainer.py)")
    s.add_argument("--log-dir", help="the stage's log folder, where the trackers of rl.report_to write "
                                     "(TensorBoard event files, offline wandb / trackio runs; training/trackers.py)")
    s.add_argument("--teacher", help="distillation teacher manifest (default: the parent)")
    s.add_argument("--scoring", type=_json, help="the config's `scoring` section as JSON, which the reward and the "
                                                 "support monitor score with (default: the score verb's defaults)")
    s.add_argument("--probe", nargs="*", default=[],
                   help="task=prompts.jsonl pairs the support monitor samples (eval split); monitor.csv lands beside --out")
    add_verifier_args(s)  # the reward's and the support monitor's
