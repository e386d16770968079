"""What pinned CPU numerics cost (config/numerics.py): pretraining, one GRPO stage and one sample job,
pinned and unpinned, in the same run, as `python -m rlvr_support` jobs run them.

    python bench/bench_numerics.py [--case smoke|default|both] [--repeat 2] [--modes unpinned pinned ...]

Cases: `smoke` is tests/config/smoke.yaml as the smoke DAG runs it (20 pretraining steps, a 2-step
GRPO stage on `if`, n = 4 on the 6 math eval prompts; dominated by start-up); `default` is
config.yaml's model, batches and rollouts with fewer steps (pretraining 40 of its 1,000 steps, GRPO
10 of 150, sampling the first 25 math eval prompts at its n = 32), where the matmuls weigh. Each job
is a child process (start-up included in `wall`); `job` is the time the verb itself reports
(pretrain and train: their manifests' `seconds`; sample: its log line). Modes: unpinned, pinned
(config.yaml's numerics: avx2 kernels, MKL's COMPATIBLE branch), pinned with MKL's AVX2 branch
(mkl_cbwr: AVX2, reproducible across Intel CPUs only) and pinned with the linear layers in numpy's
OpenBLAS (matmul: openblas, reproducible across vendors), in alternating order so that load on a shared
machine hits all alike; medians over --repeat. Ratios to unpinned > 1 mean the pins cost time.
"""

from __future__ import annotations

import argparse
import copy
import json
import os
import platform
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import yaml

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "src"))

from rlvr_support.config.numerics import ENV_VAR, OVERRIDDEN  # noqa: E402


def configs(case: str) -> dict:
    """The world, pretraining, RL stage and sampling of one case, as the rules would pass them."""
    if case == "smoke":
        cfg = yaml.safe_load((REPO / "tests/config/smoke.yaml").read_text())
        prompts = None
    else:
        cfg = copy.deepcopy(yaml.safe_load((REPO / "config.yaml").read_text()))
        cfg["base"]["train"].update(steps=40, save_every=40)
        cfg["rl"].update(steps=10, save_every=10, log_every=5)
        cfg["rl"]["monitor"]["every"] = 10
        prompts = 25
    rl = {k: v for k, v in cfg["rl"].items() if k != "seeds"}
    sampling = {**{k: v for k, v in cfg["sampling"].items() if k not in ("routing", "vllm")}, "benchmarks": {},
                "token_arrays": None}
    return {"world": cfg["world"], "base": {k: cfg["base"][k] for k in ("arch", "train")},
            "seed": cfg["base"]["seed"], "rl": rl, "sampling": sampling, "prompts": prompts,
            "threads": {k: cfg["resources"][k]["cpus_per_task"] for k in ("pretrain", "train", "sample")}}


def cli(args: list[str], env: dict, cwd: Path) -> tuple[str, float]:
    t0 = time.perf_counter()
    p = subprocess.run([sys.executable, "-m", "rlvr_support", *args], cwd=cwd, env=env, capture_output=True, text=True)
    if p.returncode:
        raise RuntimeError(f"{args[0]} failed:\n{p.stderr[-2000:]}")
    return p.stdout + p.stderr, time.perf_counter() - t0


def prepare(work: Path, c: dict, env: dict) -> Path:
    """The case's prompts and corpus (pure Python: the same bytes pinned or not)."""
    data = work / "data"
    world = {k: c["world"][k] for k in ("seed", "math", "if", "joint")}
    cli(["data", "--cfg", json.dumps(world), "--out-dir", str(data / "prompts")], env, work)
    corpus = {"seed": c["world"]["seed"], "corpus": c["world"]["corpus"],
              "math": {"train_levels": c["world"]["math"]["train_levels"]}}
    cli(["corpus", "--cfg", json.dumps(corpus), "--prompts-dir", str(data / "prompts"),
         "--out", str(data / "corpus.jsonl")], env, work)
    if c["prompts"]:  # the first eval prompts only
        lines = [ln for ln in (data / "prompts/math.jsonl").read_text().splitlines() if '"split": "eval"' in ln]
        (data / "prompts/math_eval.jsonl").write_text("\n".join(lines[: c["prompts"]]) + "\n")
    else:
        (data / "prompts/math_eval.jsonl").write_text((data / "prompts/math.jsonl").read_text())
    return data


def one_run(work: Path, data: Path, c: dict, env: dict) -> dict[str, tuple[float, float]]:
    """{job: (wall s, the verb's own s)} of pretraining, one GRPO stage (on `if`) and one sample job."""
    ck = work / "checkpoints"
    out, wall = cli(["pretrain", "--corpus", str(data / "corpus.jsonl"), "--cfg", json.dumps(c["base"]), "--seed",
                     str(c["seed"]), "--out", str(ck / "base/manifest.json"), "--threads",
                     str(c["threads"]["pretrain"])], env, work)
    times = {"pretrain": (wall, json.loads((ck / "base/manifest.json").read_text())["seconds"])}
    out, wall = cli(["train", "--parent", str(ck / "base/manifest.json"), "--task", "if", "--prompts",
                     str(data / "prompts/if.jsonl"), "--cfg", json.dumps(c["rl"]), "--seed", "0", "--chain", "if",
                     "--out", str(ck / "if/seed0/manifest.json"), "--threads", str(c["threads"]["train"])], env, work)
    times["GRPO stage"] = (wall, json.loads((ck / "if/seed0/manifest.json").read_text())["seconds"])
    out, wall = cli(["sample", "--model", str(ck / "if/seed0/manifest.json"), "--prompts",
                     str(data / "prompts/math_eval.jsonl"), "--cfg", json.dumps(c["sampling"]), "--job", "math",
                     "--out", str(work / "samples.parquet"), "--threads", str(c["threads"]["sample"])], env, work)
    m = re.search(r"tokens in ([\d.]+)s", out)
    times["sample job"] = (wall, float(m.group(1)) if m else float("nan"))
    return times


MODES = {"unpinned": {"pin": False}, "pinned": {"pin": True},
         "pinned, mkl_cbwr AVX2": {"pin": True, "mkl_cbwr": "AVX2"},  # honoured on Intel CPUs only
         "pinned, matmul openblas": {"pin": True, "matmul": "openblas"}}  # models/openblas_linear.py


def bench(case: str, repeat: int, modes: list[str]) -> list[str]:
    c = configs(case)
    base_env = {k: v for k, v in os.environ.items() if k not in (*OVERRIDDEN, "ATEN_CPU_CAPABILITY", "MKL_CBWR")}
    envs = {m: {**base_env, ENV_VAR: json.dumps(MODES[m])} for m in modes}
    got: dict[str, list[dict]] = {m: [] for m in modes}
    with tempfile.TemporaryDirectory(prefix="bench_numerics_") as tmp:
        work = Path(tmp)
        data = prepare(work, c, envs["unpinned"])
        for r in range(repeat):
            for mode in (modes if r % 2 == 0 else modes[::-1]):
                run_dir = work / f"{mode.replace(' ', '_').replace(',', '')}{r}"
                run_dir.mkdir()
                got[mode].append(one_run(run_dir, data, c, envs[mode]))
    jobs = list(got["unpinned"][0])
    med = {m: {j: [statistics.median(run[j][i] for run in got[m]) for i in (0, 1)] for j in jobs} for m in modes}
    for m in modes:
        med[m]["all three"] = [sum(med[m][j][i] for j in jobs) for i in (0, 1)]
    lines = [f"| {case}: job (the verb's own s; wall s with start-up) | " + " | ".join(modes) + " |",
             "|---|" + "---:|" * len(modes)]
    for j in [*jobs, "all three"]:
        u = med["unpinned"][j]
        cells = [f"{med[m][j][1]:.1f} ({med[m][j][1] / u[1]:.2f}x); "
                 f"wall {med[m][j][0]:.1f} ({med[m][j][0] / u[0]:.2f}x)" for m in modes]
        lines.append(f"| {j} | " + " | ".join(cells) + " |")
    return lines


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--case", choices=["smoke", "default", "both"], default="both")
    ap.add_argument("--repeat", type=int, default=2)
    ap.add_argument("--modes", nargs="+", choices=list(MODES), default=list(MODES),
                    help="which modes to run (unpinned always: the ratios are to it)")
    a = ap.parse_args()
    modes = ["unpinned", *(m for m in MODES if m in a.modes and m != "unpinned")]
    import torch

    model = re.search(r"^model name\s*:\s*(.*)$", Path("/proc/cpuinfo").read_text(), re.M)
    print(f"machine: {model.group(1) if model else platform.machine()}, {os.cpu_count()} logical cores; torch "
          f"{torch.__version__}, unpinned capability {torch.backends.cpu.get_cpu_capability()}; threads as the "
          f"configs' resources; median of {a.repeat} runs each\n")
    for case in (("smoke", "default") if a.case == "both" else (a.case,)):
        print("\n".join(bench(case, a.repeat, modes)) + "\n")


if __name__ == "__main__":
    main()
