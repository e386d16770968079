#!/usr/bin/env python3
"""GPU checks: the plan's terms measured on one GPU (--plan), or the toy pipeline's three heavy steps on the GPU
and on the CPU, with throughput ratios.

    python scripts/gpu_check.py --plan [--cpu] [--out measurements/plan_check.json]
    python scripts/gpu_check.py [--quick] [--out report.json]      (or scripts/gpu_check.sh [--plan])

--plan (planning/plan_check.py): the memory plan's and the throughput model's terms for the study model's exact
shapes with random weights: the CUDA context and the memory the device reports, the update at micro-batches
1-8 with and without a padding mask, the decode ceiling, and the study's GRPO stage on a model that fits one GPU;
each against the plan, in a table with FAIL where measured / planned is outside [0.8, 1.25], and in the file
`budget --measured` reads. It needs only torch, transformers, accelerate, safetensors and the wheelhouse's TRL
and datasets (`make gpu-wheelhouse`; docs/cluster.md), so it runs on a bare GPU node; --cpu runs it on a tiny
model in seconds.

Without --plan, the toy check:

It builds a small toy world, then for each device (the CPU always, the GPU when one is visible)
runs, in a fresh process, (1) base pretraining for a few steps (pretrain.py), (2) a few GRPO
steps with TRL (training/stage.py), (3) repeated sampling with Hugging Face `generate` (sampling/jobs.py, backend
hf on both devices so the same code is timed). The CPU leg runs with CUDA_VISIBLE_DEVICES=""
so that every module's own device choice (devices.torch_device) picks the CPU, exactly as a
gpu: 0 job does. Throughput is tokens per second of wall time inside each step, import and
model-loading time excluded:
  pretrain: non-padding tokens seen per second (pretrain.py's own tokens_per_second);
  grpo:     completion tokens generated per second of training (steps x group x mean length / s);
  sample:   sampled tokens per second.
Then every model-based analysis as the study runs it (resources.analyse: on the GPU in bfloat16,
generation through vLLM where it is installed, else `auto`; on the CPU the fast sampler):
teacher-forced JS (tokens through both models), the opening intervention (continuations),
reference perplexity (tokens) and base metrics (responses), each with its rate and, on the GPU,
its peak GPU memory (torch.cuda.max_memory_allocated; vLLM's own memory is not in it).
It reports the GPU/CPU ratio of each. Without a GPU it says so and reports the CPU leg only.
The step counts are small, so GPU warm-up (CUDA context, kernel selection) is part of the GPU
numbers: the ratios are a sanity check that the GPU path works and pays, not a benchmark.
Full size: the default config's model (config.yaml base.arch); each leg is cut at --timeout
(210 s), so the whole check ends within about 8 minutes; --quick: a tiny model and a handful
of steps, for the test suite on CPU.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path


from rlvr_support.storage.atomic import write_text

REPO = Path(__file__).resolve().parents[1]  # scripts/ -> the checkout
ANALYSES = ("analysis_js", "analysis_intervention", "analysis_perplexity", "analysis_base_metrics")

# (full, quick) sizes; the model size of `full` is the default config's, so the ratio is the toy study's.
SIZES = {
    "full": {"world": {"math": 400, "if": 300, "joint": 100, "eval": 24, "corpus": (6000, 2000, 600)},
             "pretrain_steps": 60, "batch_size": 64, "grpo_steps": 4, "sample_n": 8, "sample_prompts": 24},
    "quick": {"world": {"math": 40, "if": 40, "joint": 20, "eval": 4, "corpus": (200, 100, 50)},
              "pretrain_steps": 3, "batch_size": 8, "grpo_steps": 1, "sample_n": 2, "sample_prompts": 4,
              "arch": {"hidden_size": 32, "intermediate_size": 64, "num_layers": 1, "num_heads": 2,
                       "max_positions": 128}},
}


def plan(config_path: Path, quick: bool) -> dict:
    """The world / base / rl / sampling sections for the check, derived from a study config."""
    from rlvr_support.config.validate import read_yaml

    cfg = read_yaml(config_path)
    size = SIZES["quick" if quick else "full"]
    w = size["world"]
    world = json.loads(json.dumps(cfg["world"]))
    world["math"].update(train=w["math"], eval=w["eval"])
    world["if"].update(train=w["if"], eval=w["eval"])
    world["joint"].update(train=w["joint"], eval=w["eval"])
    world["corpus"].update(math=w["corpus"][0], **{"if": w["corpus"][1]}, joint=w["corpus"][2])
    base = json.loads(json.dumps(cfg["base"]))
    if "arch" in size:
        base["arch"] = size["arch"]
    base["train"].update(steps=size["pretrain_steps"], batch_size=size["batch_size"],
                         warmup=1, save_every=10 ** 6)
    rl = json.loads(json.dumps(cfg["rl"]))
    rl.update(steps=size["grpo_steps"], log_every=1, save_every=10 ** 6)
    rl.pop("monitor", None)
    sampling = json.loads(json.dumps(cfg["sampling"]))
    sampling.update(backend="hf", n=size["sample_n"], shards=1)
    return {"world": world, "base": base, "rl": rl, "sampling": sampling,
            "sample_prompts": size["sample_prompts"], "quick": quick}


def build_world(p: dict, work: Path) -> None:
    from rlvr_support.storage.atomic import write_jsonl
    from rlvr_support.data.toyworld.world import build_corpus, build_prompt_sets

    sets = build_prompt_sets(p["world"])
    for task, records in sets.items():
        if task == "math":  # sample from the first eval prompts only: the check times, it does not evaluate
            evals = [r for r in records if r["split"] == "eval"][:p["sample_prompts"]]
            records = [r for r in records if r["split"] == "train"] + evals
        write_jsonl(work / "prompts" / f"{task}.jsonl", records)
    write_jsonl(work / "corpus.jsonl", build_corpus(p["world"], sets))


def leg(p: dict, work: Path, threads: int) -> dict:
    """Pretrain, GRPO and sampling on this process's device; returns the measurements."""
    import pandas as pd
    import torch

    from rlvr_support.storage.atomic import write_json
    from rlvr_support.models.devices import torch_device
    from rlvr_support.training.stage import train_stage
    from rlvr_support.models.pretrain import pretrain
    from rlvr_support.sampling.jobs import sample_checkpoint

    device = torch_device()
    out = work / device
    result = {"device": device, "threads": threads}
    if device == "cuda":
        result["gpu"] = torch.cuda.get_device_name(0)
        torch.cuda.synchronize()

    # each stage is recorded on its own, so that one failing stage still leaves the others' numbers
    def stage(name, fn):
        t0 = time.time()
        try:
            result[name] = fn()
        except Exception as e:  # noqa: BLE001 - reported in the check's output, not swallowed
            import traceback
            traceback.print_exc()
            result[name] = {"error": f"{type(e).__name__}: {e}"[:2000], "seconds": round(time.time() - t0, 2)}
        print(f"[{device}] {name}: {result[name]}", flush=True)

    def do_pretrain():
        summary = pretrain(str(work / "corpus.jsonl"), str(out / "base"), p["base"], seed=0, threads=threads)
        write_json(out / "base" / "manifest.json", {"model_dir": "model", "chain": "base", "kind": "pretrain", **summary})
        return {"steps": summary["steps"], "seconds": summary["seconds"],
                "tokens_per_s": summary["tokens_per_second"], "final_loss": summary["final_loss"]}

    def do_grpo():
        t0 = time.time()
        manifest = train_stage(str(out / "base" / "manifest.json"), "math", str(work / "prompts" / "math.jsonl"),
                               str(out / "math" / "manifest.json"), p["rl"], seed=0, chain="math", threads=threads)
        write_json(out / "math" / "manifest.json", manifest)
        seconds = manifest.get("seconds") or (time.time() - t0)
        curve = pd.read_csv(out / "math" / "reward_curve.csv")
        per_step = p["rl"]["prompts_per_step"] * p["rl"]["group_size"]
        tokens = float(curve["completions/mean_length"].sum() * per_step) if "completions/mean_length" in curve else 0.0
        return {"steps": p["rl"]["steps"], "seconds": round(seconds, 2),
                "tokens_per_s": round(tokens / max(seconds, 1e-9), 1), "final_reward": manifest.get("final_reward")}

    def do_sample(backend):
        # the GRPO checkpoint when that stage worked, else the base model
        ckpt = out / "math" / "manifest.json"
        ckpt = ckpt if ckpt.exists() else out / "base" / "manifest.json"
        t0 = time.time()
        df = sample_checkpoint(str(ckpt), str(work / "prompts" / "math.jsonl"), str(out / f"samples_{backend}.parquet"),
                               dict(p["sampling"], backend=backend), job=f"gpu_check/{device}", threads=threads)
        if device == "cuda":
            torch.cuda.synchronize()
        seconds = time.time() - t0
        return {"backend": backend, "checkpoint": ckpt.parent.name, "samples": len(df),
                "tokens": int(df["n_tokens"].sum()), "seconds": round(seconds, 2),
                "tokens_per_s": round(float(df["n_tokens"].sum()) / max(seconds, 1e-9), 1)}

    stage("pretrain", do_pretrain)
    if "error" not in result["pretrain"]:
        stage("grpo", do_grpo)
        stage("sample", lambda: do_sample("hf"))  # the same code on both devices
        if device == "cpu":  # what the CPU study really uses: the fast sampler (`backend: auto`)
            stage("sample_fast", lambda: do_sample("fast"))
        if "error" not in result["sample"]:
            for name, fn in analysis_stages(p, work, out, device, threads).items():
                stage(name, fn)
    return result


def analysis_backend(device: str) -> str:
    """The backend the study's analyses use on this device: vLLM on a GPU where it is installed, else auto."""
    if device == "cuda":
        try:
            import vllm  # noqa: F401

            return "vllm"
        except ImportError:
            return "auto"
    return "auto"


def analysis_stages(p: dict, work: Path, out: Path, device: str, threads: int) -> dict:
    """The model-based analyses as the study runs them (resources.analyse: GPUs, dtype auto =
    bfloat16 on a GPU), each timed with its rate in the unit it works in and the peak GPU memory."""
    import torch

    from rlvr_support.probes.base_metrics import base_metrics
    from rlvr_support.probes.opening_intervention import intervention_run
    from rlvr_support.probes.perplexity import perplexity_run
    from rlvr_support.probes.positional_js import positional_js_runs
    from rlvr_support.sampling.jobs import sample_checkpoint
    from rlvr_support.storage.atomic import read_parquet

    gpus = 1 if device == "cuda" else 0
    prompts = str(work / "prompts" / "math.jsonl")
    base, ckpt = out / "base" / "manifest.json", out / "math" / "manifest.json"
    ckpt = ckpt if ckpt.exists() else base
    samples = {"ckpt": out / "samples_hf.parquet", "base": out / "samples_base.parquet"}
    sampling = dict(p["sampling"], backend=analysis_backend(device))
    scoring = {"timeout_s": 1.0, "workers": 1, "reasoning": "none"}
    m = 3

    def timed(fn, unit):
        if device == "cuda":
            torch.cuda.synchronize()
            torch.cuda.reset_peak_memory_stats()
        t0 = time.time()
        amount = fn()
        if device == "cuda":
            torch.cuda.synchronize()
        seconds = time.time() - t0
        r = {"unit": unit, "amount": amount, "seconds": round(seconds, 2),
             "tokens_per_s" if unit == "tokens" else "per_s": round(amount / max(seconds, 1e-9), 1)}
        if device == "cuda":
            r["peak_gpu_mb"] = round(torch.cuda.max_memory_allocated() / 2**20, 1)
        return r

    def js():
        if not samples["base"].exists():
            sample_checkpoint(str(base), prompts, str(samples["base"]), dict(p["sampling"], backend="hf"),
                              job=f"gpu_check/{device}/base", threads=threads)
        cfg = {"prompts": p["sample_prompts"], "samples_per_prompt": 2, "max_positions": 48, "batch": 16}
        (df,) = positional_js_runs(str(base), str(ckpt), [(str(samples["base"]), str(samples["ckpt"]), prompts)],
                                   cfg, seed=0, threads=threads, gpus=gpus)
        return 2 * len(df)  # teacher-forced tokens, through both models

    def intervention():
        if not samples["base"].exists():
            js()
        df = intervention_run({"base": str(base), "math": str(ckpt)},
                              {"base": str(samples["base"]), "math": str(samples["ckpt"])}, prompts, m=m,
                              cfg={"top": 2, "prompts": p["sample_prompts"], "n": 2, "max_new_tokens": 24},
                              sampling=sampling, scoring=scoring, seed=0, threads=threads)
        return len(df)

    def perplexity():
        df = perplexity_run(str(ckpt), prompts, count=p["sample_prompts"], seed=0, batch=16, threads=threads,
                            gpus=gpus)
        return int(df["n_tokens"].sum())

    def metrics():
        r = base_metrics(str(base), {"math": prompts}, sampling=dict(sampling, max_new_tokens=24), scoring=scoring,
                         threads=threads, gpus=gpus)
        return r["math"]["n_prompts"] * 5  # one greedy and four sampled responses per prompt

    return {"analysis_js": lambda: timed(js, "tokens"),
            "analysis_intervention": lambda: timed(intervention, "continuations"),
            "analysis_perplexity": lambda: timed(perplexity, "tokens"),
            "analysis_base_metrics": lambda: timed(metrics, "responses")}


def _run_leg(p: dict, work: Path, gpu: bool, threads: int, timeout: int) -> dict:
    env = dict(os.environ, PYTHONUNBUFFERED="1")
    if not gpu:
        env["CUDA_VISIBLE_DEVICES"] = ""  # the CPU leg: every module's own device choice picks the CPU
    (work / "plan.json").write_text(json.dumps(p))
    cmd = [sys.executable, __file__, "--leg", str(work), "--threads", str(threads)]
    log = work / f"leg_{'gpu' if gpu else 'cpu'}.log"
    t0 = time.time()
    with open(log, "w") as f:
        proc = subprocess.run(cmd, env=env, stdout=f, stderr=subprocess.STDOUT, timeout=timeout)
    if proc.returncode != 0:
        raise RuntimeError(f"the {'GPU' if gpu else 'CPU'} leg failed (exit {proc.returncode}); "
                           f"last lines of {log}:\n" + "\n".join(log.read_text().splitlines()[-25:]))
    result = json.loads((work / f"leg_{'cuda' if gpu else 'cpu'}.json").read_text())
    result["wall_seconds"] = round(time.time() - t0, 1)
    return result


def environment() -> dict:
    import torch

    info = {"python": platform.python_version(), "torch": torch.__version__,
            "torch_cuda": torch.version.cuda, "cpu_count": os.cpu_count(),
            "cuda_visible_devices": os.environ.get("CUDA_VISIBLE_DEVICES"),
            "gpus": torch.cuda.device_count() if torch.cuda.is_available() else 0}
    if info["gpus"]:
        info["gpu_names"] = [torch.cuda.get_device_name(i) for i in range(info["gpus"])]
        info["bf16"] = torch.cuda.is_bf16_supported()
    for mod in ("transformers", "trl", "accelerate", "datasets"):
        try:
            info[mod] = __import__(mod).__version__
        except ImportError:
            info[mod] = None
    return info


def check(config: Path, quick: bool, work: Path, threads: int, timeout: int) -> dict:
    from rlvr_support.models.devices import require_gpus

    env = environment()
    missing = [m for m in ("transformers", "trl", "accelerate", "datasets") if env[m] is None]
    if missing:
        raise RuntimeError(f"missing packages: {', '.join(missing)} (install requirements.txt; on a machine "
                           "without internet: scripts/gpu_check.sh --wheelhouse DIR)")
    report = {"environment": env, "quick": quick, "legs": {}}
    p = plan(config, quick)
    t0 = time.time()
    build_world(p, work)
    report["world_seconds"] = round(time.time() - t0, 1)
    legs = [("gpu", True)] if env["gpus"] else []
    if env["gpus"]:
        require_gpus(1)
    for name, gpu in legs + [("cpu", False)]:  # the GPU leg first: it is what the check is for
        try:
            report["legs"][name] = _run_leg(p, work, gpu=gpu, threads=threads, timeout=timeout)
        except subprocess.TimeoutExpired:
            report["legs"][name] = {"timed_out_after_s": timeout}
    done = {k: v for k, v in report["legs"].items() if "timed_out_after_s" not in v}
    if "gpu" in done and "cpu" in done:
        g, c = done["gpu"], done["cpu"]
        ok = lambda leg, st: "tokens_per_s" in leg.get(st, {})  # noqa: E731
        report["ratio_gpu_over_cpu"] = {
            st: round(g[st]["tokens_per_s"] / max(c[st]["tokens_per_s"], 1e-9), 2)
            for st in ("pretrain", "grpo", "sample") if ok(g, st) and ok(c, st)}
        for st in ANALYSES:  # the model-based analyses: GPU rate over the CPU path's (auto: the fast sampler)
            rate = lambda leg: leg.get(st, {}).get("tokens_per_s", leg.get(st, {}).get("per_s"))  # noqa: E731
            if rate(g) and rate(c):
                report["ratio_gpu_over_cpu"][st] = round(rate(g) / max(rate(c), 1e-9), 2)
        if ok(g, "sample") and ok(c, "sample_fast"):  # the GPU against the CPU path the study really takes
            report["ratio_gpu_over_cpu"]["sample_vs_cpu_fast"] = round(
                g["sample"]["tokens_per_s"] / max(c["sample_fast"]["tokens_per_s"], 1e-9), 2)
    if not env["gpus"]:
        report["note"] = "no GPU found (torch sees 0 CUDA devices): CPU leg only, no ratios"
    elif len(done) < 2:
        report["note"] = f"a leg ran past --timeout {timeout}s: no ratios"
    return report


def format_report(r: dict) -> str:
    env = r["environment"]
    lines = [f"torch {env['torch']} (CUDA {env['torch_cuda']}), {env['cpu_count']} CPUs, "
             f"{env['gpus']} GPU(s){': ' + ', '.join(env['gpu_names']) if env['gpus'] else ''}",
             f"{'stage':22s} {'CPU rate':>12s} {'GPU rate':>12s} {'GPU/CPU':>9s}"]
    for stage in ("pretrain", "grpo", "sample", "sample_fast", *ANALYSES):
        def rate(leg):
            v = r["legs"].get(leg, {}).get(stage, {})
            return v.get("tokens_per_s", v.get("per_s"))
        cpu, gpu = rate("cpu"), rate("gpu")
        ratio = r.get("ratio_gpu_over_cpu", {}).get(stage)
        peak = r["legs"].get("gpu", {}).get(stage, {}).get("peak_gpu_mb")
        unit = r["legs"].get("cpu", {}).get(stage, {}).get("unit", "tokens")
        lines.append(f"{stage:22s} {cpu if cpu is not None else '-':>12} {gpu if gpu is not None else '-':>12} "
                     f"{ratio if ratio is not None else '-':>9}  {unit}/s" + (f", peak GPU {peak} MB" if peak else ""))
    for name, leg in r["legs"].items():
        for stage, v in leg.items():
            if isinstance(v, dict) and "error" in v:
                lines.append(f"{name} {stage} FAILED: {v['error'][:300]}")
    if "note" in r:
        lines.append(r["note"])
    return "\n".join(lines)


def plan_check(a) -> int:
    """--plan: the plan check (planning/plan_check.py), its file written as it goes, its table printed."""
    import torch

    from rlvr_support.planning import plan_check as pc
    from rlvr_support.planning.check_report import report_text
    from rlvr_support.planning.shapes import read_model_config

    if not a.cpu and not torch.cuda.is_available():
        print("gpu_check --plan: torch sees no CUDA device; on a machine without one run --plan --cpu",
              file=sys.stderr)
        return 1
    out = Path(a.out or REPO / "measurements" / "plan_check.json")
    config = a.config or str(REPO / "configs" / "paper.yaml")
    grpo_model = a.grpo_model or pc.GRPO_MODEL
    parts = tuple(p.strip() for p in a.parts.split(",") if p.strip())
    if set(parts) - set(pc.PARTS):
        print(f"gpu_check --plan: --parts {a.parts}: known parts are {', '.join(pc.PARTS)}", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory(prefix="plan_check.") as tmp:
        work = Path(a.work) if a.work else Path(tmp)
        result = pc.run_check(config, a.model, read_model_config(a.model), out, work, a.time_limit, grpo_model,
                              read_model_config(grpo_model), a.gpu_type, parts, cpu=a.cpu)
    print()
    print(report_text(result))
    print(f"\nwritten: {out} (python -m rlvr_support budget --configfile {config} --measured {out})")
    return 0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python scripts/gpu_check.py", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--plan", action="store_true",
                    help="the plan check: the memory plan's and the throughput model's terms measured on one GPU "
                         "(planning/plan_check.py), written as it goes to --out (default "
                         "measurements/plan_check.json), which `budget --measured` reads")
    ap.add_argument("--cpu", action="store_true", help="with --plan: a tiny model of the same family on the CPU "
                                                       "(seconds; CI)")
    ap.add_argument("--model", default="Qwen/Qwen3-8B-Base",
                    help="with --plan: the model whose exact shapes the update and the decode ceiling run (a stored "
                         "model config, planning/model_configs/, or a config.json file; default: %(default)s)")
    ap.add_argument("--grpo-model", default=None,
                    help="with --plan: the model the GRPO stage runs, one that fits one GPU with fp32 Adam "
                         "(default: Qwen/Qwen2.5-1.5B)")
    ap.add_argument("--gpu-type", help="with --plan: the planner's GPU kind of this GPU (default: from its name)")
    ap.add_argument("--time-limit", type=float, default=450,
                    help="with --plan: seconds for the whole check; later parts are skipped, saying so, when it is "
                         "near (default: %(default)s)")
    ap.add_argument("--parts", default="context,update,decode,grpo",
                    help="with --plan: the parts to run, comma-separated (default: %(default)s)")
    ap.add_argument("--table", metavar="FILE", help="print the table of a plan check's file and exit")
    ap.add_argument("--quick", action="store_true", help="a tiny model and a few steps (seconds, for tests)")
    ap.add_argument("--config", help="study config whose world/model/rl to use (default: config.yaml; with --plan: "
                                     "configs/paper.yaml, whose micro-batch, lengths and rollout batch it runs)")
    ap.add_argument("--out", help="also write the report here as JSON (with --plan: the check's file, default "
                                  "measurements/plan_check.json)")
    ap.add_argument("--work", help="working directory (default: a temporary one)")
    ap.add_argument("--threads", type=int, default=os.cpu_count() or 1, help="CPU threads for the CPU leg")
    ap.add_argument("--timeout", type=int, default=210, help="seconds per leg (GPU, CPU) before giving up on it")
    ap.add_argument("--leg", help=argparse.SUPPRESS)  # internal: run one leg in this process
    a = ap.parse_args(argv)
    if a.table:
        from rlvr_support.planning.check_report import load_check, report_text

        print(report_text(load_check(a.table)))
        return 0
    if a.plan:
        return plan_check(a)
    a.config = a.config or str(REPO / "config.yaml")
    if a.leg:
        work = Path(a.leg)
        p = json.loads((work / "plan.json").read_text())
        result = leg(p, work, a.threads)
        write_text(work / f"leg_{result['device']}.json", json.dumps(result, indent=1))
        return 0
    with tempfile.TemporaryDirectory(prefix="gpu_check.") as tmp:
        work = Path(a.work) if a.work else Path(tmp)
        work.mkdir(parents=True, exist_ok=True)
        try:
            report = check(Path(a.config), a.quick, work, a.threads, a.timeout)
        except RuntimeError as e:
            print(f"gpu_check failed: {e}", file=sys.stderr)
            return 1
    print(format_report(report))
    print(json.dumps(report, indent=1))
    if a.out:
        write_text(a.out, json.dumps(report, indent=1) + "\n")  # atomic: never a half-written report
    return 0


if __name__ == "__main__":
    sys.exit(main())
