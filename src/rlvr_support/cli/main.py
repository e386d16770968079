"""`python -m rlvr_support <verb>`: one verb per pipeline rule, each runnable without Snakemake.

Config sections are passed as JSON strings (`--cfg '{...}'`), so a rule's parameters are
visible in its command line and in Snakemake's rerun triggers.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from rlvr_support.cli.args import GPUS_HELP, add_device_args, json_arg as _json

from rlvr_support.models.devices import GPUUnavailableError, require_gpus

# The code the resumable verbs run: the names their rules hash for Snakemake's rerun trigger
# (workflow/rules/train.smk, base.smk; tests/test_resume_faults.py checks they agree). The same
# hash goes into the verb's `_partial/` fingerprint, so a code edit between a kill and the rerun
# starts the job afresh instead of finishing the old code's progress under the new code's name.
TRAIN_CODE = ("training", "lineage.codehash", "cli.main")
PRETRAIN_CODE = ("models.pretrain", "lineage.codehash", "cli.main")


def cmd_data(a):
    from rlvr_support.storage.atomic import write_jsonl
    from rlvr_support.data.toyworld.world import build_prompt_sets

    sets = build_prompt_sets(a.cfg)
    for task, records in sets.items():
        write_jsonl(Path(a.out_dir) / f"{task}.jsonl", records)
        print(f"{task}: {sum(r['split'] == 'train' for r in records)} train, "
              f"{sum(r['split'] == 'eval' for r in records)} eval prompts")


def cmd_corpus(a):
    from rlvr_support.storage.atomic import read_jsonl, write_jsonl
    from rlvr_support.data.toyworld.world import build_corpus

    sets = {t: read_jsonl(Path(a.prompts_dir) / f"{t}.jsonl") for t in ("math", "if", "joint")}
    corpus = build_corpus(a.cfg, sets)
    write_jsonl(a.out, corpus)
    print(f"{len(corpus)} corpus examples")


def cmd_pretrain(a):
    require_gpus(a.gpus)
    from rlvr_support.storage.atomic import write_json
    from rlvr_support.lineage.codehash import code_hash
    from rlvr_support.models.pretrain import pretrain

    from rlvr_support.models.base_models import weights_checksums

    summary = pretrain(a.corpus, str(Path(a.out).parent), a.cfg, a.seed, threads=a.threads,
                       code=code_hash(*PRETRAIN_CODE))
    write_json(a.out, {"model_dir": "model", "chain": "base", "kind": "pretrain", **summary,
                       "sha256": weights_checksums(Path(a.out).parent / "model")})
    print(json.dumps(summary))


def cmd_base_metrics(a):
    require_gpus(a.gpus)
    from rlvr_support.storage.atomic import write_json
    from rlvr_support.analysis.base_metrics import base_metrics

    files = dict(p.split("=", 1) for p in a.prompts)
    result = base_metrics(a.model, files, sampling=a.sampling, scoring=a.scoring, seed=a.seed, threads=a.threads,
                          gpus=a.gpus, dtype=a.dtype)
    write_json(a.out, result)
    print(json.dumps(result, indent=1))


def cmd_train(a):
    require_gpus(a.gpus)
    from rlvr_support.storage.atomic import write_json
    from rlvr_support.lineage.codehash import code_hash
    from rlvr_support.training.stage import train_stage

    probes = dict(p.split("=", 1) for p in a.probe) if a.probe else None
    manifest = train_stage(a.parent, a.task, a.prompts, a.out, a.cfg, a.seed, a.chain, threads=a.threads,
                           remedies=a.remedies, teacher=a.teacher, probes=probes, code=code_hash(*TRAIN_CODE))
    if manifest is not None:  # None on the non-main processes of a multi-GPU run
        write_json(a.out, manifest)


def cmd_trajectory_point(a):
    from rlvr_support.storage.atomic import write_json
    from rlvr_support.training.kept_weights import point_manifest

    manifest = point_manifest(a.run, a.step)
    write_json(a.out, manifest)
    print(json.dumps(manifest, indent=1))


def cmd_sample(a):
    require_gpus(a.gpus)
    from rlvr_support.sampling.jobs import sample_checkpoint

    t0 = time.time()
    routing = ({"reference": a.route_from, "gamma": a.route_gamma, "tokens": a.route_tokens}
               if a.route_from else None)
    df = sample_checkpoint(a.model, a.prompts, a.out, a.cfg, a.job, threads=a.threads, shard=a.shard,
                           routing=routing)
    dt = time.time() - t0
    print(f"{len(df)} samples, {int(df['n_tokens'].sum())} tokens in {dt:.1f}s "
          f"({df['n_tokens'].sum() / max(dt, 1e-9):.0f} tokens/s)")


def cmd_sample_merge(a):
    from rlvr_support.sampling.jobs import merge_shards

    n = merge_shards(a.shards, a.out)
    print(f"{len(a.shards)} shards, {n} samples merged")


def cmd_score(a):
    from rlvr_support.storage.atomic import read_parquet, write_parquet
    from rlvr_support.scoring.score import SAMPLE_INPUTS, load_prompts, score_samples, scoring_options

    samples = read_parquet(a.samples, columns=list(SAMPLE_INPUTS))
    scores = score_samples(samples, load_prompts(a.prompts), **scoring_options(a.cfg))
    write_parquet(a.out, scores)
    print(f"{len(scores)} samples scored, mean reward {scores['reward'].mean():.4f}, "
          f"{int(scores['timeout'].sum())} timeouts")


def cmd_passk_table(a):
    from rlvr_support.analysis.markdown import ci_markdown
    from rlvr_support.analysis.passk_table import headline_table, passk_table
    from rlvr_support.analysis.scores import parse_score_path
    from rlvr_support.storage.atomic import write_text

    files = [parse_score_path(p, a.scores_root) for p in a.scores]
    table = passk_table(files, n_boot=a.cfg["bootstrap"], ci=a.cfg["ci"], seed=a.cfg["seed"])
    write_text(a.out, table.to_csv(index=False, float_format="%.6f"))
    if a.headline:
        head = headline_table(table)
        write_text(a.headline, head.to_csv(index=False, float_format="%.6f"))
        md = ci_markdown(head, ["pass@1", "best@kmax", "coverage@kmax"])
        write_text(Path(a.headline).with_suffix(".md"), md)
        print(md)


def cmd_routed_table(a):
    import pandas as pd

    from rlvr_support.analysis.markdown import ci_markdown
    from rlvr_support.analysis.routed_table import routed_summary, routed_table
    from rlvr_support.analysis.scores import parse_score_path
    from rlvr_support.storage.atomic import write_text

    files = [parse_score_path(p, a.scores_root) for p in a.scores]
    table = routed_table(pd.read_csv(a.plain_table), files, n_boot=a.cfg["bootstrap"], ci=a.cfg["ci"],
                         seed=a.cfg["seed"])
    write_text(a.out, table.to_csv(index=False, float_format="%.6f"))
    md = ci_markdown(routed_summary(table), ["pass@1", "best@kmax"])
    write_text(Path(a.out).with_suffix(".md"), md)
    print(md)


def cmd_figure_passk(a):
    import pandas as pd

    from rlvr_support.figures.passk_curves import plot_passk_curves

    plot_passk_curves(pd.read_csv(a.table), a.eval_set, a.out, metric=a.metric)


def cmd_audit(a):
    from rlvr_support.lineage.audit import run

    return run(a.file, row=a.row, column=a.column)


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m rlvr_support", description=__doc__)
    p.add_argument("--prov-rule", dest="prov_rule_name", metavar="RULE",
                   help="the Snakemake rule running this verb, for the provenance sidecars "
                        "(default: $RLVR_PROV_RULE, else the rule known to run the verb)")
    sub = p.add_subparsers(dest="verb", required=True)

    def verb(name, fn, help_):
        s = sub.add_parser(name, help=help_, description=help_)
        s.set_defaults(fn=fn)
        return s

    s = verb("data", cmd_data, "Generate the toy world's prompt sets (train and eval splits) as JSONL.")
    s.add_argument("--cfg", type=_json, required=True, help="the config's `world` section as JSON")
    s.add_argument("--out-dir", required=True, help="writes <task>.jsonl for math, if, joint")

    s = verb("corpus", cmd_corpus, "Generate the base pretraining corpus (mixed styles, partial compliance).")
    s.add_argument("--cfg", type=_json, required=True, help="the config's `world` section as JSON")
    s.add_argument("--prompts-dir", required=True)
    s.add_argument("--out", required=True)

    s = verb("pretrain", cmd_pretrain, "Pretrain the toy base policy (resumable); writes a manifest.")
    s.add_argument("--corpus", required=True)
    s.add_argument("--cfg", type=_json, required=True, help="the config's `base` section as JSON")
    s.add_argument("--seed", type=int, required=True)
    s.add_argument("--out", required=True, help="manifest.json; weights go to model/ beside it")
    s.add_argument("--threads", type=int, default=1)
    s.add_argument("--gpus", type=int, default=0, help=GPUS_HELP)

    s = verb("base-metrics", cmd_base_metrics, "Greedy and sampled accuracy of a checkpoint on each eval set.")
    s.add_argument("--model", required=True, help="a checkpoint manifest or model directory")
    s.add_argument("--prompts", nargs="+", required=True, help="task=path pairs")
    s.add_argument("--sampling", type=_json, required=True,
                   help="generation settings as JSON: the `sampling` section's backend, prompt_batch, "
                        "max_new_tokens (and vllm)")
    s.add_argument("--scoring", type=_json, required=True, help="the config's `scoring` section as JSON")
    s.add_argument("--seed", type=int, default=0)
    s.add_argument("--out", required=True)
    s.add_argument("--threads", type=int, default=1)
    add_device_args(s)

    s = verb("train", cmd_train, "One RLVR stage (GRPO via TRL) on one task from a parent checkpoint.")
    s.add_argument("--parent", required=True, help="parent checkpoint manifest")
    s.add_argument("--task", choices=["math", "if", "joint"], required=True)
    s.add_argument("--prompts", required=True, help="the task's prompt JSONL (train split is used)")
    s.add_argument("--cfg", type=_json, required=True, help="the config's `rl` section as JSON")
    s.add_argument("--seed", type=int, required=True)
    s.add_argument("--chain", required=True)
    s.add_argument("--out", required=True, help="manifest.json of the new checkpoint")
    s.add_argument("--threads", type=int, default=1)
    s.add_argument("--gpus", type=int, default=0, help=GPUS_HELP)
    s.add_argument("--remedies", type=_json, default={},
                   help="the chain variant's remedies as JSON, e.g. '{\"kl\": {\"beta\": 0.05}}' (training/trainer.py)")
    s.add_argument("--teacher", help="distillation teacher manifest (default: the parent)")
    s.add_argument("--probe", nargs="*", default=[],
                   help="task=prompts.jsonl pairs the support monitor samples (eval split); monitor.csv lands beside --out")

    s = verb("trajectory-point", cmd_trajectory_point,
             "Declare the weights a trajectory chain's stage kept at one step (step<s>/model/ beside the run's "
             "manifest) as a checkpoint: checksums, step, run.")
    s.add_argument("--run", required=True, help="the trained run's manifest.json")
    s.add_argument("--step", type=int, required=True)
    s.add_argument("--out", required=True, help="<run>/step<s>/manifest.json")

    s = verb("sample", cmd_sample, "n samples per eval prompt from one checkpoint, as Parquet.")
    s.add_argument("--model", required=True)
    s.add_argument("--prompts", required=True)
    s.add_argument("--cfg", type=_json, required=True, help="the config's `sampling` section as JSON")
    s.add_argument("--job", required=True, help="job name that, with the weights' checksums, fixes the seed: the eval "
                   "set (e.g. if), routed/<eval set> for a routed job")
    s.add_argument("--out", required=True)
    s.add_argument("--threads", type=int, default=1)
    s.add_argument("--gpus", type=int, default=0, help=GPUS_HELP)
    s.add_argument("--shard", type=int, default=0, help="which of the config's sampling.shards prompt blocks (0-based)")
    s.add_argument("--route-from", help="routing prior: the reference policy's manifest (first tokens come from it)")
    s.add_argument("--route-gamma", type=float, default=0.5, help="routing prior: share of samples routed")
    s.add_argument("--route-tokens", type=int, default=3, help="routing prior: tokens taken from the reference")

    s = verb("sample-merge", cmd_sample_merge, "Concatenate sample shards (in shard order) into one Parquet file.")
    s.add_argument("--shards", nargs="+", required=True, help="shard files, in shard order")
    s.add_argument("--out", required=True)

    s = verb("score", cmd_score, "Score samples with the verifiers (math-verify, IFEval, joint).")
    s.add_argument("--samples", required=True)
    s.add_argument("--prompts", required=True)
    s.add_argument("--cfg", type=_json, required=True,
                   help="the config's `scoring` section as JSON: timeout_s, workers, reasoning (none | after_think), "
                        "math_extraction (strict | lenient; default strict)")
    s.add_argument("--out", required=True)

    s = verb("passk-table", cmd_passk_table, "pass@k / best@k / coverage with bootstrap CIs, and the headline table.")
    s.add_argument("--scores", nargs="+", required=True)
    s.add_argument("--scores-root", required=True)
    s.add_argument("--cfg", type=_json, required=True, help="the config's `analysis` section as JSON")
    s.add_argument("--out", required=True)
    s.add_argument("--headline", help="also write the headline table here (CSV, and .md beside it)")

    s = verb("routed-table", cmd_routed_table, "Routing prior at sampling time vs plain sampling (pass@1, best@k).")
    s.add_argument("--plain-table", required=True, help="the study's passk.csv")
    s.add_argument("--scores", nargs="+", required=True, help="score files of the routed samples")
    s.add_argument("--scores-root", required=True)
    s.add_argument("--cfg", type=_json, required=True, help="the config's `analysis` section as JSON")
    s.add_argument("--out", required=True, help="CSV; the Markdown summary is written beside it")

    s = verb("figure-passk", cmd_figure_passk, "pass@k curves for one eval set (PNG and PDF).")
    s.add_argument("--table", required=True)
    s.add_argument("--eval-set", required=True)
    s.add_argument("--metric", default="pass@k", choices=["pass@k", "best@k", "coverage"])
    s.add_argument("--out", required=True, help="<name>.png; the PDF is written beside it")
    s.set_defaults(prov_rule=lambda a: "figure_bestk" if a.metric == "best@k" else "figure_passk")

    s = verb("audit", cmd_audit, "Lineage of a result down to data, config and code, re-checking every "
             "sha256 (exit 1 names the first file that no longer matches); with --row, explain one number.")
    s.add_argument("file", help="a table, figure or any file with a .prov.json sidecar; or a folder (results/): "
                   "every file under it")
    s.add_argument("--row", help="select one table row: col=value,col=value (e.g. chain=math,eval_set=if,metric=pass@k,k=1)")
    s.add_argument("--column", default="mean", help="the column of that row to explain (default: mean)")
    s.set_defaults(prov=False)

    from rlvr_support.cli.support import register as register_support  # the support analyses (seeds 000, 003)

    register_support(verb)
    from rlvr_support.cli.remedies import register as register_remedies  # mitigation comparison and support monitor

    register_remedies(verb)
    from rlvr_support.cli.data import register as register_data  # real data sources and real base models

    register_data(verb)
    from rlvr_support.cli.budget import register as register_budget  # the study's cost before it runs

    register_budget(verb)
    from rlvr_support.cli.trajectory import register as register_trajectory  # training trajectories, checkpoint association

    register_trajectory(verb)
    from rlvr_support.cli.seed000 import register as register_seed000  # seed 000's support-reshaping measurements

    register_seed000(verb)
    from rlvr_support.cli.results_doc import register as register_results_doc  # the results page, across worlds

    register_results_doc(verb)
    return p


# The verbs that fetch: they run as local rules on the submit host (workflow/rules/data.smk, base.smk).
DOWNLOAD_VERBS = ("data-sources", "base-model", "checkpoint")
OFFLINE_ENV = ("HF_HUB_OFFLINE", "HF_DATASETS_OFFLINE", "TRANSFORMERS_OFFLINE")


def stay_offline(verb: str) -> None:
    """Every other verb reads the Hugging Face cache only: on a compute node without network a job
    must not wait on hub timeouts or fetch a newer revision than the one the manifest recorded."""
    import os

    if verb not in DOWNLOAD_VERBS:
        for var in OFFLINE_ENV:
            os.environ.setdefault(var, "1")


def missing_column(e: KeyError, inputs: list[str]) -> str | None:
    """The error to show when a verb fails with `e` because an input Parquet/CSV lacks a column it
    needs: pandas names the column, not the file, so find the input without it. None when no input
    lacks it (a bug, whose traceback is the better report)."""
    import re

    from rlvr_support.storage.atomic import columns_of

    key = e.args[0] if e.args else None
    if not isinstance(key, str):
        return None
    # KeyError('a'), or KeyError("['a', 'b'] not in index") when several were asked for at once
    wanted = re.findall(r"'([^']+)'", key) if "not in index" in key or "are in the" in key else [key]
    for path in inputs:
        cols = columns_of(path)
        lacking = [c for c in wanted if cols is not None and c not in cols]
        if lacking:
            return f"{path}: no column {lacking[0]!r}, which this verb needs (its columns: {', '.join(cols)})"
    return None


def main(argv: list[str] | None = None) -> int:
    from rlvr_support.lineage import provenance

    import warnings

    # Library deprecation notices repeat every training step and bury the progress in the logs.
    warnings.filterwarnings("ignore", category=FutureWarning)
    argv = sys.argv[1:] if argv is None else list(argv)
    args = build_parser().parse_args(argv)
    stay_offline(args.verb)
    try:
        # Every verb gets a provenance sidecar beside each output (see lineage/provenance.py for how a
        # verb declares its inputs and outputs); `audit` reads them.
        record = provenance.begin(args, argv, rule=args.prov_rule_name)
        rc = args.fn(args)
        provenance.finish(record)
        if isinstance(rc, int) and rc:
            return rc
    except (ValueError, FileNotFoundError, GPUUnavailableError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    except KeyError as e:
        from rlvr_support.storage.atomic import MissingColumnError

        message = missing_column(e, provenance.declared_files(args)[0] if getattr(args, "prov", True) else [])
        if message is None and not isinstance(e, MissingColumnError):
            raise
        print(f"error: {message or e}", file=sys.stderr)
        return 1
    return 0
