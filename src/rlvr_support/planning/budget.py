"""A study's budget before it runs: per rule kind, the sequences generated and scored, their
tokens, GPU-hours, disk and jobs (`python -m rlvr_support budget`; rule `budget`).

What is counted and what is assumed:
* sequences (samples of the base, the trained chains and the external checkpoints, samples of
  the trajectory points, GRPO rollouts, monitor probes, forced-opening continuations, base-metric
  generations, teacher-forced sequences) and jobs follow from the config and the prompts per
  benchmark, and are exact; `<=` marks an upper bound (a stage that may stop early, fewer
  distinct openings than `top`);
* a sequence's length is `budget.response_fraction` x its job's max_new_tokens (assumed), or
  with a measured run (`measure_run`) the mean response length of the base's samples of that
  benchmark (capped at the job's max_new_tokens);
* GPU-hours divide tokens by per-GPU throughputs (`budget.throughput`, with their sources, or
  measured on the run, or the throughput model's), each row with a low / expected / high range over the
  throughput model's stated figures (planning/throughput.py ASSUMED; a measured figure has none); disk multiplies tokens by bytes per token: 12 for the per-token arrays
  (int32 id, float32 log-prob, float32 entropy) of the first `sampling.token_arrays` samples
  per prompt, `budget.text_bytes_per_token` for the text (uncompressed; Parquet compresses);
  a trained checkpoint and each weight copy a trajectory chain keeps take 4 B per parameter;
* each GPU job's start-up (its weights read from disk and its engine started) is a term of its GPU-hours
  (`add_startup`: `budget.startup_s`, `budget.weights_read_gb_per_s`, or a pilot's measured start-up); sample
  jobs grouped per checkpoint (`resources.sample.group`) are one SLURM job each, reading the weights once.
External checkpoints cost no training and no checkpoint disk (their weights live in the hub cache
or their own folder). Prompt tokens (prefill) are not counted. Pretraining (toy) and perplexity
(toy) are not budgeted.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field, replace
from pathlib import Path

from rlvr_support.config.benchmarks import benchmark_sampling, prompt_benchmark, source_name
from rlvr_support.config.chains import TASKS, stages
from rlvr_support.config.checkpoints import (external_checkpoints, externals_of, analysis_checkpoints,
                                             model_checkpoints, trajectory_point_labels, trajectory_runs)
from rlvr_support.data.prompt_job import prompt_job
from rlvr_support.storage.atomic import read_jsonl, read_samples

ARRAY_BYTES_PER_TOKEN = 4 + 4 + 4  # token id int32, log-prob float32, entropy float32
JS_ROW_BYTES = 5 * 8  # one row per response position: source, prompt_id, sample_idx, position, js (about 8 B each)
SOURCE_KEYS = ("format", "name", "hub", "hf_split", "data_files", "file", "limit", "size", "rg_task")
# the `resources` kind each rule kind's jobs ask for (workflow/rules/*.smk)
RESOURCE_OF = {"sample": "sample", "trajectory": "sample", "routed": "sample", "large_k": "sample", "train": "train", "monitor": "train",
               "intervention": "analyse", "single_token": "analyse", "base_metrics": "analyse", "js": "analyse"}
THROUGHPUT_OF = {"sample": "sample", "trajectory": "sample", "routed": "sample", "large_k": "sample", "train": "train",
                 "monitor": "train", "intervention": "sample", "single_token": "sample", "base_metrics": "sample",
                 "js": "forward"}
SAMPLE_LOG = re.compile(r"(\d+) samples, (\d+) tokens in ([0-9.]+)s")


def budget_config(config: dict) -> dict:
    """The keys of a filled-in config the budget reads, nothing more (the rule's param)."""
    s, rl, a, res = config["sampling"], config["rl"], config["analysis"], config["resources"]
    world = config["world"]
    if world["kind"] == "toy":
        w = {"kind": "toy", **{t: {"eval": world[t]["eval"]} for t in TASKS}}
    else:
        w = {"kind": world["kind"], "tasks": {
            t: [{k: src[k] for k in SOURCE_KEYS if k in src} for src in world["tasks"][t] if src["split"] == "eval"]
            for t in TASKS}}
    specs = config["models"] if config.get("models") else {"base": config["base"]}
    return {
        "study": config["study"],
        "world": w,
        # the data job of each task's prompt file: a prompt file is counted only when its provenance records it
        "prompt_jobs": {t: prompt_job(config, t) for t in TASKS},
        # what the memory plan and the throughput model read of a model: its shape (arch, or config.json by path)
        "models": {m: {k: v for k, v in spec.items() if k in ("kind", "arch", "path", "revision", "gguf_file",
                                                              "max_positions")} for m, spec in specs.items()},
        "per_model_results": bool(config.get("models")),  # results/<model>/... (else results/...)
        "rl": {k: rl.get(k) for k in ("seeds", "steps", "prompts_per_step", "group_size", "max_completion_tokens",
                                       "monitor", "micro_batch", "gradient_checkpointing", "precision",
                                       "rollout_backend", "vllm", "beta")},
        # the remedies of the chains' variants (the frozen models a stage holds)
        "variants": {v: config["variants"][v] for v in sorted({c.partition("~")[2] for c in config["chains"]} - {""})},
        "chains": list(config["chains"]),
        # external checkpoints: their base, and the step numbers of a run's intermediate ones (not where
        # the weights are: moving a folder costs nothing)
        "checkpoints": {name: {"base": spec["base"], **({"step": spec["step"],
                                                         "steps": [{"step": p["step"]} for p in spec["steps"]]}
                                                        if spec.get("steps") else {})}
                        for name, spec in external_checkpoints(config).items()},
        "trajectory": {k: config["trajectory"][k] for k in ("chains", "every", "n", "eval_sets")},
        # sample sizes only: the budget reads a benchmark's n and max_new_tokens
        "sampling": {"n": s["n"], "max_new_tokens": s["max_new_tokens"], "shards": s.get("shards", 1),
                     "backend": s["backend"], "prompt_batch": s["prompt_batch"], "vllm": s.get("vllm"),
                     "token_arrays": s.get("token_arrays"),
                     "benchmarks": {b: {k: v for k, v in own.items() if k in ("n", "max_new_tokens")}
                                    for b, own in (s.get("benchmarks") or {}).items()},
                     "routing": {"chains": s["routing"]["chains"]} if s.get("routing") else None},
        "eval_sets": list(config["eval_sets"]),
        "analysis": {"divergence": {k: a["divergence"][k] for k in ("eval_sets", "prompts", "samples_per_prompt",
                                                                     "max_positions", "batch")},
                     "intervention": {k: a["intervention"][k] for k in ("eval_sets", "top", "prompts", "n",
                                                                         "max_new_tokens")},
                     **({"large_k": a["large_k"]} if a.get("large_k") else {}),
                     **({"single_token": a["single_token"]} if a.get("single_token") else {})},
        "resources": {kind: {k: res[kind][k] for k in ("gpu", "nodes", "runtime", "launcher", "accelerate_config",
                                                       "gpu_type", "gpu_mem_gb", "group") if k in res[kind]}
                      for kind in ("sample", "train", "analyse")},
        "budget": config["budget"],
    }


def sample_budget(cfg: dict, bench: str) -> tuple[int, int]:
    """(n, max_new_tokens) of one benchmark (`sampling.benchmarks` overrides, config/defaults.py)."""
    kw = benchmark_sampling({"temperature": None, "top_p": None, **cfg["sampling"]}, bench)
    return kw["n"], kw["max_new_tokens"]


# ---- prompts per benchmark


def budget_tasks(cfg: dict) -> list[str]:
    """The tasks whose prompts the study reads: its eval sets and every task a chain trains on."""
    return [t for t in TASKS if t in cfg["eval_sets"] or any(t in stages(c) for c in cfg["chains"])]


def prompt_jobs(cfg: dict) -> dict[str, dict]:
    """{task: the data job that makes its prompt file} of the tasks the study reads; a prompt file is counted
    only when its provenance records that job (lineage/prompt_files.py)."""
    return {t: cfg["prompt_jobs"][t] for t in budget_tasks(cfg)}


def eval_prompt_counts(cfg: dict, task: str, prompt_file: str | Path | None = None) -> tuple[dict[str, int], str]:
    """({benchmark: eval prompts} in file order, where the counts come from): `prompt_file` when given (a
    file this config's data made: lineage/prompt_files.py), else the sources' `limit`/`size`, local files or
    KNOWN_SIZES (data/sources/sizes.py)."""
    if prompt_file is not None:
        counts: dict[str, int] = {}
        for r in read_jsonl(prompt_file):
            if r["split"] == "eval":
                counts[prompt_benchmark(r)] = counts.get(prompt_benchmark(r), 0) + 1
        return counts, str(prompt_file)
    world = cfg["world"]
    if world["kind"] == "toy":
        return {task: world[task]["eval"]}, f"world.{task}.eval"
    from rlvr_support.data.sources.sizes import source_size

    counts = {}
    for k, src in enumerate(world["tasks"][task]):
        name = source_name(src)
        counts[name] = counts.get(name, 0) + source_size(src, f"world.tasks.{task} eval source {k} ({name})")
    return counts, "the sources (limit/size, local files, KNOWN_SIZES)"


def first_prompts(counts: dict[str, int], lo: int, hi: int) -> dict[str, int]:
    """Prompts per benchmark among prompts lo..hi-1 of an eval set whose benchmarks lie in `counts`' order."""
    out, start = {}, 0
    for bench, p in counts.items():
        take = max(0, min(hi, start + p) - max(lo, start))
        if take:
            out[bench] = take
        start += p
    return out


# ---- model sizes


def toy_params(arch: dict) -> int:
    """Parameters of models/loading.py `toy_llama` (tied embeddings, as many KV heads as heads):
    vocab*h + layers*(4h^2 attention + 3*h*i MLP + 2h norms) + h final norm."""
    from rlvr_support.data.toyworld.tokenizer import build_tokenizer

    h, i = arch["hidden_size"], arch["intermediate_size"]
    return len(build_tokenizer()) * h + arch["num_layers"] * (4 * h * h + 3 * h * i + 2 * h) + h


def model_params(cfg: dict, model: str) -> int | None:
    spec = cfg["models"][model]
    if model in cfg["budget"]["params_b"]:
        return int(cfg["budget"]["params_b"][model] * 1e9)
    if spec["kind"] == "pretrain":
        return toy_params(spec["arch"])
    from rlvr_support.planning.study import shape_of

    shape = shape_of(spec)  # its config.json: the local cache, the folder, or a stored copy
    return shape.params if shape is not None else None


# ---- lengths and throughputs: assumed, or measured on a run


@dataclass
class Measured:
    """What a finished run says about one model: mean response length per benchmark of the base's
    samples, and tokens/s where its logs or manifests give them."""
    lengths: dict[str, float] = field(default_factory=dict)
    samples: int = 0
    truncated: float = 0.0
    files: list[str] = field(default_factory=list)
    text_bytes_per_token: float | None = None
    sample_tps: float | None = None
    train_tps: float | None = None
    train_length: float | None = None


def model_dir(results: Path, cfg: dict, model: str) -> Path:
    return results / model if cfg["per_model_results"] else results


def measure_run(results: str | Path, cfg: dict, model: str) -> Measured:
    """Measure on `results` (a results/ folder): lengths from samples/base/*.parquet, sample tokens/s
    from logs/sample/base/ (per job, divided by the planned resources.sample.gpu), GRPO tokens/s and
    mean completion length from checkpoints/*/seed*/manifest.json and reward_curve.csv."""
    import pandas as pd

    from rlvr_support.analysis.benchmarks import benchmark_column

    root = model_dir(Path(results), cfg, model)
    files = sorted((root / "samples" / "base").glob("*.parquet"))
    m = Measured(files=[str(f) for f in files])
    frames = []
    for f in files:
        # not the per-token arrays: a pilot may hold many samples
        df = read_samples(f, columns=["benchmark", "prompt_id", "n_tokens", "finish_reason", "text"])
        df = df.assign(_bench=_benchmarks_of(df, f.stem, cfg, benchmark_column))
        frames.append(df.assign(_bytes=[len(str(t).encode()) for t in df["text"]])[
            ["_bench", "n_tokens", "finish_reason", "_bytes"]])
    if frames:
        df = pd.concat(frames, ignore_index=True)
        m.lengths = {str(b): float(g["n_tokens"].mean()) for b, g in df.groupby("_bench", sort=False)}
        m.samples = len(df)
        m.truncated = float((df["finish_reason"] == "length").mean())
        if df["n_tokens"].sum() > 0:
            m.text_bytes_per_token = float(df["_bytes"].sum() / df["n_tokens"].sum())
    tokens = seconds = 0.0
    for log in sorted((root / "logs" / "sample" / "base").rglob("*.log")):
        for hit in SAMPLE_LOG.finditer(log.read_text(errors="replace")):
            tokens, seconds = tokens + int(hit.group(2)), seconds + float(hit.group(3))
    if seconds > 0:
        m.sample_tps = tokens / seconds / max(1, _gpus(cfg, "sample"))
    m.train_tps, m.train_length = _measure_train(root, cfg)
    return m


def _benchmarks_of(df, stem: str, cfg: dict, benchmark_column):
    """A samples file's benchmark per row; files without the column: the prompt id's source prefix."""
    if "benchmark" in df.columns or cfg["world"]["kind"] == "toy":
        return benchmark_column(df, stem)
    names = sorted((source_name(s) for s in cfg["world"]["tasks"].get(stem, [])), key=len, reverse=True)
    return [next((n for n in names if str(p).startswith(f"{n}-")), stem) for p in df["prompt_id"]]


def _measure_train(root: Path, cfg: dict) -> tuple[float | None, float | None]:
    import pandas as pd

    tokens = seconds = 0.0
    lengths = []
    for manifest in sorted((root / "checkpoints").glob("*/seed*/manifest.json")):
        man = json.loads(manifest.read_text())
        curve = manifest.parent / "reward_curve.csv"
        if not man.get("seconds") or not curve.is_file():
            continue
        c = pd.read_csv(curve)
        if "completions/mean_length" not in c:
            continue
        mean_len = float(c["completions/mean_length"].mean())
        tokens += mean_len * man.get("trained_steps", man.get("steps", 0)) * rollouts_per_step(cfg)
        seconds += man["seconds"]
        lengths.append(mean_len)
    if not lengths:
        return None, None
    return tokens / seconds / max(1, _gpus(cfg, "train")), sum(lengths) / len(lengths)


# ---- the plan


def _gpus(cfg: dict, kind: str) -> int:
    """GPUs of one job of a `resources` kind (per node times nodes)."""
    r = cfg["resources"][kind]
    return r.get("gpu", 0) * r.get("nodes", 1)


def processes(cfg: dict) -> int:
    """Training processes: one per GPU under `accelerate launch`, one for the plain python launcher."""
    from rlvr_support.planning.study import processes as train_processes

    return train_processes(cfg["resources"]["train"])


def checkpoint_bytes_per_param(cfg: dict) -> tuple[int, int]:
    from rlvr_support.planning.study import checkpoint_bytes_per_param as per_param

    return per_param(cfg)


def rollouts_per_step(cfg: dict) -> int:
    """Completions per optimiser step: TRL's per_device_train_batch_size (prompts_per_step x group_size,
    training/stage.py grpo_config) times the processes (TRL's generation batch is per device x processes)."""
    rl = cfg["rl"]
    return rl["prompts_per_step"] * rl["group_size"] * processes(cfg)


def probe_steps(steps: int, every: int) -> int:
    """Steps the support monitor probes: step 0, every `every`-th step, the last (training/support_monitor.py)."""
    return len({0, steps} | ({s for s in range(1, steps + 1) if s % every == 0} if every > 0 else set()))


@dataclass
class Row:
    model: str
    kind: str
    jobs: int
    sequences: float = 0.0
    generated_tokens: float = 0.0
    forward_tokens: float = 0.0
    scored: float = 0.0
    disk_bytes: float | None = 0.0
    upper_bound: bool = False
    lengths: set = field(default_factory=set)  # "assumed" / "measured"
    gpus_per_job: int = 0
    gpu_hours: float = 0.0
    throughput: str = "assumed"
    runtime_h: float | None = None
    note: str = ""
    startup_gpu_hours: float = 0.0  # the part of gpu_hours the jobs spend starting (add_startup)
    slurm_jobs: int | None = None  # SLURM jobs of grouped sample jobs (resources.sample.group); None: one per job
    # the GPU-hours of the work itself (cost): expected, and in the low / high case of the throughput model's ranges
    work_hours: float = 0.0
    work_low: float = 0.0
    work_high: float = 0.0

    def gpu_hours_range(self) -> tuple[float, float]:
        """(low, high) GPU-hours: the work's range (planning/throughput.py ASSUMED, measured figures collapsed) plus
        what was added to gpu_hours beside the work (the start-up), which has no range."""
        besides = self.gpu_hours - self.work_hours
        return self.work_low + besides, self.work_high + besides


class Lengths:
    """A model's mean response length per benchmark: measured (tokens, capped at the job's
    max_new_tokens) or `fraction` x max_new_tokens."""

    def __init__(self, fraction: float, measured: dict[str, float] | None = None):
        self.fraction, self.measured = fraction, measured or {}

    def mean(self, bench: str, max_new: int, row: Row) -> float:
        if bench in self.measured:
            row.lengths.add("measured")
            return min(self.measured[bench], max_new)
        row.lengths.add("assumed")
        return self.fraction * max_new


def trajectory_points(cfg: dict, model: str) -> tuple[list[str], int]:
    """(the labels of the model's trajectory points, sampled at the trajectory's budget; how many of
    them are weights a trained chain keeps, one full copy each)."""
    kept = sum(own for r in trajectory_runs(cfg, model) if r["chain"] in cfg["chains"] for _, _, own in r["points"])
    return trajectory_point_labels(cfg, model), kept


def plan_model(cfg: dict, model: str, counts: dict[str, dict[str, int]], lengths: Lengths,
               train_length: float | None = None, text_bpt: float | None = None) -> list[Row]:
    """The rows of one model; `counts` = {task: {benchmark: eval prompts}} for the eval sets and the
    trained tasks; `train_length` = a measured mean GRPO completion length, `text_bpt` measured bytes
    of text per token (default: budget.text_bytes_per_token)."""
    s, rl, a = cfg["sampling"], cfg["rl"], cfg["analysis"]
    ckpts = model_checkpoints(cfg, model)
    keep = s.get("token_arrays")
    text_bpt = text_bpt or cfg["budget"]["text_bytes_per_token"]
    rows = []

    def sampled(kind: str, n_ckpts: int, block: int | None = None, eval_sets: list[str] | None = None,
                n_of=None) -> Row:
        """Samples of `n_ckpts` checkpoints on `eval_sets` (default: the study's), `n_of(bench)` per prompt
        (default: the benchmark's n)."""
        row = Row(model, kind, 0)
        for e in cfg["eval_sets"] if eval_sets is None else eval_sets:
            per = counts[e] if block is None else first_prompts(counts[e], 0, sum(counts[e].values()) // block)
            for bench, p in per.items():
                n, max_new = sample_budget(cfg, bench)
                n = n if n_of is None else n_of(bench)
                length = lengths.mean(bench, max_new, row)
                row.sequences += n_ckpts * p * n
                row.generated_tokens += n_ckpts * p * n * length
                arrays = n if keep is None else min(n, keep)
                row.disk_bytes += n_ckpts * p * length * (n * text_bpt + arrays * ARRAY_BYTES_PER_TOKEN)
        row.scored = row.sequences
        return row

    row = sampled("sample", len(ckpts))
    row.jobs = len(ckpts) * len(cfg["eval_sets"]) * s.get("shards", 1)
    if s.get("shards", 1) > 1:
        row.note = f"+ {len(ckpts) * len(cfg['eval_sets'])} local sample_merge jobs"
    rows.append(row)

    # trajectory points: the sample rule again, at the trajectory's n on its eval sets (score jobs follow)
    t = cfg["trajectory"]
    points, kept = trajectory_points(cfg, model)
    if points:
        row = sampled("trajectory", len(points), eval_sets=t["eval_sets"], n_of=lambda bench: t["n"])
        row.jobs = len(points) * len(t["eval_sets"]) * s.get("shards", 1)
        row.note = f"{len(points)} points x n={t['n']}" + (
            f"; + {len(points) * len(t['eval_sets'])} local sample_merge jobs" if s.get("shards", 1) > 1 else "")
        rows.append(row)

    routed = [c for c in (s.get("routing") or {}).get("chains", [])]
    if routed:
        # sample_routed runs the sample verb without --shard: with shards S > 1 it samples shard 0's block only
        shards = s.get("shards", 1)
        row = sampled("routed", len(routed) * len(rl["seeds"]), block=shards if shards > 1 else None)
        row.jobs = len(routed) * len(rl["seeds"]) * len(cfg["eval_sets"])
        if shards > 1:
            row.note = f"shard 0 of {shards} only (sample_routed passes no --shard)"
        rows.append(row)

    large = a.get("large_k")
    chosen = analysis_checkpoints(cfg, ckpts, "large_k")
    if chosen:
        # an evenly spaced subset of each eval set: benchmark b keeps about its share p/total of it
        row = Row(model, "large_k", len(chosen) * len(cfg["eval_sets"]))
        for e in cfg["eval_sets"]:
            total = sum(counts[e].values())
            for bench, p in counts[e].items():
                _, max_new = sample_budget(cfg, bench)
                seqs = len(chosen) * min(large["prompts"], total) * p / total * large["n"]
                length = lengths.mean(bench, max_new, row)
                arrays = large["n"] if keep is None else min(large["n"], keep)
                row.sequences += seqs
                row.generated_tokens += seqs * length
                row.disk_bytes += seqs / large["n"] * length * (large["n"] * text_bpt + arrays * ARRAY_BYTES_PER_TOKEN)
        row.scored = row.sequences
        row.note = f"{len(chosen)} checkpoints x {large['prompts']} prompts per eval set x n={large['n']}"
        rows.append(row)

    if cfg["chains"]:  # a study of external checkpoints only trains nothing: no train row
        rows += train_rows(cfg, model, counts, lengths, train_length, kept)

    iv = a["intervention"]
    row = Row(model, "intervention", 0, upper_bound=True)
    for e in iv["eval_sets"]:
        if e not in cfg["eval_sets"]:
            continue
        row.jobs += 1
        chosen = min(iv["prompts"], sum(counts[e].values()))
        seqs = len(ckpts) * iv["top"] * chosen * iv["n"]
        row.sequences += seqs
        row.generated_tokens += seqs * _mean_length(counts[e], lengths, row, lambda b: iv["max_new_tokens"])
    row.scored = row.sequences
    row.disk_bytes = row.generated_tokens * text_bpt  # the run keeps each continuation's text
    row.note = f"at most {iv['top']} forced openings (fewer if the samples have fewer distinct ones)"
    if row.jobs:
        rows.append(row)

    st = a.get("single_token")
    paired = analysis_checkpoints(cfg, ckpts, "single_token")
    st_sets = [e for e in (st or {}).get("eval_sets", []) if e in cfg["eval_sets"]]
    if paired and st_sets:
        # per checkpoint and eval set, both directions: own samples, one swap per position, the top-2 draw
        # (plus one-token donor draws, whose tokens are negligible)
        per = 2 * (len(st["positions"]) + 2) * st["n"]
        row = Row(model, "single_token", len(paired) * len(st_sets), upper_bound=True)
        for e in st_sets:
            seqs = len(paired) * min(st["prompts"], sum(counts[e].values())) * per
            row.sequences += seqs
            row.generated_tokens += seqs * _mean_length(counts[e], lengths, row, lambda b: st["max_new_tokens"])
        row.scored = row.sequences
        row.disk_bytes = row.generated_tokens * text_bpt  # the run keeps each response's text
        row.note = (f"{len(paired)} checkpoints x {st['prompts']} prompts x {len(st['positions']) + 2} conditions "
                    f"x 2 directions x n={st['n']}")
        rows.append(row)

    from rlvr_support.probes.base_metrics import MODES

    row = Row(model, "base_metrics", 1)
    per_prompt = sum(n for _, _, n in MODES)
    for e in cfg["eval_sets"]:
        p = sum(counts[e].values())
        row.sequences += p * per_prompt
        row.generated_tokens += p * per_prompt * _mean_length(counts[e], lengths, row, lambda b: s["max_new_tokens"])
    row.scored = row.sequences
    row.note = " + ".join(f"{n} {label}" for label, _, n in MODES) + " per eval prompt"
    rows.append(row)

    js = a["divergence"]
    js_sets = [e for e in js["eval_sets"] if e in cfg["eval_sets"]]
    if js_sets:
        row = Row(model, "js", len(ckpts) - 1)
        for e in js_sets:
            total = sum(counts[e].values())
            chosen = min(js["prompts"], total)
            for bench, p in counts[e].items():
                n, max_new = sample_budget(cfg, bench)
                prefixes = min(js["samples_per_prompt"], n, keep if keep is not None else n)
                # the chosen prompts are a seeded subset of the eval set: benchmark b holds p/total of them
                seqs = (len(ckpts) - 1) * 2 * chosen * p / total * prefixes  # 2: base and checkpoint prefixes
                row.sequences += seqs
                positions = seqs * min(lengths.mean(bench, max_new, row), js["max_positions"])
                row.forward_tokens += 2 * positions
                row.disk_bytes += positions * JS_ROW_BYTES
        row.note = "teacher-forced: 2 prefix sources x 2 models per sequence, forward only"
        rows.append(row)
    return rows


def train_rows(cfg: dict, model: str, counts: dict[str, dict[str, int]], lengths: Lengths,
               train_length: float | None, kept: int) -> list[Row]:
    """The train row (GRPO rollouts; disk: the stages' checkpoints and `kept` trajectory weights) and
    the support monitor's probes inside the train jobs."""
    rl = cfg["rl"]
    early = bool((rl.get("monitor") or {}).get("early_stop_margin") is not None)
    jobs = len(cfg["chains"]) * len(rl["seeds"])
    row = Row(model, "train", jobs, upper_bound=early)
    per_job = rl["steps"] * rollouts_per_step(cfg)
    if train_length is not None:
        row.lengths.add("measured")
        length = min(train_length, rl["max_completion_tokens"])
    else:
        row.lengths.add("assumed")
        length = cfg["budget"]["response_fraction"] * rl["max_completion_tokens"]
    row.sequences = row.scored = jobs * per_job
    row.generated_tokens = jobs * per_job * length
    params = model_params(cfg, model)
    saved, resume = checkpoint_bytes_per_param(cfg)
    # the stages' checkpoints and the weights trajectory chains keep (one copy per kept step), in the dtype
    # they are saved in; the resume checkpoint (weights + optimizer state) exists twice for a moment while a
    # new one is written before the old one is deleted (save_total_limit 1)
    row.disk_bytes = None if params is None else (jobs + kept) * params * saved
    row.note = (f"{rl['prompts_per_step']} prompts x {rl['group_size']} x {processes(cfg)} processes per step"
                + ("" if params is None else f"; weights {saved} B/param; + {2 * resume * params / 1e9:.3g} GB "
                                             f"resume checkpoints per running job (2 x {resume} B/param, "
                                             "outside results/ once the stage ends)")
                + (f"; disk includes {kept} kept trajectory weights" if kept else ""))
    rows = [row]

    mon = rl.get("monitor")
    if mon:
        row = Row(model, "monitor", 0, upper_bound=early)
        probes = probe_steps(rl["steps"], mon["every"])
        for chain in cfg["chains"]:
            for task in dict.fromkeys(stages(chain)):
                for bench, p in first_prompts(counts[task], 0, mon["prompts"]).items():
                    length = lengths.mean(bench, rl["max_completion_tokens"], row)
                    row.sequences += len(rl["seeds"]) * probes * p * mon["n"]
                    row.generated_tokens += len(rl["seeds"]) * probes * p * mon["n"] * length
        row.scored = row.sequences
        row.note = f"{probes} probes per stage, inside the train jobs"
        rows.append(row)
    return rows


def _mean_length(counts: dict[str, int], lengths: Lengths, row: Row, max_new_of) -> float:
    """The prompt-weighted mean length over an eval set's benchmarks (jobs that draw across them)."""
    total = sum(counts.values())
    return sum(p * lengths.mean(b, max_new_of(b), row) for b, p in counts.items()) / total


@dataclass
class ModelRates:
    """A model's per-GPU tokens/s by throughput kind, how each was obtained, and the GRPO step it implies."""
    tps: dict[str, float | None]
    how: dict[str, str]
    step: object | None = None  # planning.throughput.StepTime of a train job
    hours_per_train_job: float | None = None
    memory: list = field(default_factory=list)  # planning.memory.MemoryPlan of each GPU job kind


def model_rates(cfg: dict, model: str, measured: Measured | None, eff, train_length: float | None) -> ModelRates:
    """Per-GPU throughput of each kind of job of `model`: measured on a run, else stated in
    budget.throughput.<model>, else the throughput model (planning/throughput.py) on the job's GPU."""
    from rlvr_support.planning import study, throughput
    from rlvr_support.planning.gpus import gpu_of

    out = ModelRates({}, {})
    stated = cfg["budget"]["throughput"].get(model)
    spec = cfg["models"][model]
    shape = study.shape_of(spec)
    prompt = study.prompt_tokens(cfg)
    if shape is not None:
        out.memory, _ = study.memory_plans({**cfg, "models": {model: spec}, "checkpoints": {}})
    for kind, res_kind in (("sample", "sample"), ("train", "train"), ("forward", "analyse")):
        res = cfg["resources"][res_kind]
        if measured is not None and kind in ("sample", "train") and getattr(measured, f"{kind}_tps"):
            out.tps[kind], out.how[kind] = getattr(measured, f"{kind}_tps"), "measured"
        elif stated:
            out.tps[kind], out.how[kind] = stated[f"{kind}_tokens_per_s_per_gpu"], "assumed (budget.throughput)"
        elif kind == "train" and not cfg["chains"]:
            out.tps[kind], out.how[kind] = None, "nothing trained"
        elif res["gpu"] == 0:
            out.tps[kind], out.how[kind] = None, "CPU job"
        elif shape is None:
            out.tps[kind], out.how[kind] = None, "unknown (no config.json yet: run prefetch)"
        else:
            gpu = gpu_of(res)
            mean_new = cfg["budget"]["response_fraction"] * cfg["sampling"]["max_new_tokens"]
            if kind == "sample":
                plan = study.sample_plan(cfg, model, shape)
                conc = _concurrency(cfg, plan, shape, prompt + mean_new)
                out.tps[kind] = throughput.sample_tokens_per_s(shape, gpu, eff, conc, prompt, mean_new, _tp(cfg))
            elif kind == "forward":
                out.tps[kind] = throughput.forward_tokens_per_s(shape, gpu, eff)
            else:
                out.step, out.tps[kind] = _grpo(cfg, spec, shape, gpu, eff, train_length)
                out.hours_per_train_job = cfg["rl"]["steps"] * out.step.total_s / 3600
            out.how[kind] = "model: " + ", ".join(eff.describe(k) for k in figures_of(cfg, kind))
    return out


def figures_of(cfg: dict, kind: str) -> list[str]:
    """The throughput model's figures (planning/throughput.py ASSUMED) a throughput kind's GPU-hours depend on."""
    if kind == "forward":
        return ["mfu"]
    if kind == "sample":
        return ["decode_efficiency", "mfu"]
    vllm = cfg["rl"].get("rollout_backend") == "vllm"
    sleep = vllm and bool((cfg["rl"].get("vllm") or {}).get("enable_sleep_mode"))
    return (["decode_efficiency", "mfu"] + (["sync_s_per_tensor"] if vllm else []) + (["wake_sleep_s"] if sleep else [])
            + ["full_length_kv"])


def _tp(cfg: dict) -> int:
    return (cfg["sampling"].get("vllm") or {}).get("tensor_parallel_size", 1) if cfg["sampling"]["backend"] == "vllm" else 1


def _concurrency(cfg: dict, plan, shape, seq_tokens: float) -> float:
    """Sequences a sample job runs at once: what a vLLM engine's KV cache holds, or the HF batch."""
    from rlvr_support.planning.memory import kv_concurrency

    if cfg["sampling"]["backend"] == "vllm":
        return kv_concurrency(plan, shape, _tp(cfg), int(seq_tokens))
    return cfg["sampling"]["prompt_batch"] * cfg["sampling"]["n"]


def _grpo(cfg: dict, spec: dict, shape, gpu, eff, train_length: float | None):
    """(the GRPO step time, rollout tokens per second per GPU) of one train job."""
    from rlvr_support.planning import study, throughput
    from rlvr_support.planning.memory import VLLM_GRAPH_OVERHEAD, vllm_share

    rl = cfg["rl"]
    mean = train_length if train_length is not None else cfg["budget"]["response_fraction"] * rl["max_completion_tokens"]
    if train_length is not None:  # a run's measured completions: their KV cache is measured too
        eff = replace(eff, full_length_kv=0.0, measured=eff.measured | {"full_length_kv"})
    setup = study.train_setup(cfg, spec)
    grpo = study.grpo_setup(cfg, spec, mean, float("inf"))
    if setup.rollout.startswith("vllm"):  # the sequences the engine's KV cache holds at the length they reach
        room = vllm_share(gpu, setup.vllm_utilization) - shape.params * 2 - VLLM_GRAPH_OVERHEAD
        grpo.kv_sequences = max(room, 0) / ((grpo.prompt_tokens + throughput.kv_completion(grpo, eff))
                                            * shape.kv_bytes_per_token(2))
    step = throughput.grpo_step(shape, gpu, grpo, eff)
    return step, setup.rollout_sequences * mean / step.total_s


def work_hours(row: Row, rates: ModelRates) -> float:
    """GPU-hours of a row's work at the model's per-GPU throughputs (a train job from its GRPO step time when the
    throughput model gives it); row.gpus_per_job set."""
    kind = THROUGHPUT_OF[row.kind]
    tps = rates.tps[kind]
    if row.kind == "train" and rates.hours_per_train_job is not None and rates.how[kind].startswith("model"):
        return row.jobs * rates.hours_per_train_job * row.gpus_per_job
    if tps and row.gpus_per_job:
        return (row.forward_tokens if kind == "forward" else row.generated_tokens) / tps / 3600
    return 0.0


def cost(cfg: dict, rows: list[Row], rates: ModelRates, low: ModelRates | None = None,
         high: ModelRates | None = None) -> None:
    """Fill GPUs per job, GPU-hours and hours per job of `rows` from the model's per-GPU throughputs, and the
    GPU-hours' range from the throughputs of the range's low and high case (default: `rates`, no range)."""
    for row in rows:
        kind = THROUGHPUT_OF[row.kind]
        row.gpus_per_job = _gpus(cfg, RESOURCE_OF[row.kind])
        row.runtime_h = cfg["resources"][RESOURCE_OF[row.kind]]["runtime"] / 60
        row.throughput = rates.how[kind]
        row.gpu_hours = row.work_hours = work_hours(row, rates)
        row.work_low, row.work_high = (work_hours(row, r or rates) for r in (low, high))


def load_pilot(path: str | Path) -> dict:
    """A pilot's measurements (cli/pilot.py): a JSON file with its setup, phase times and peak memory; or a GPU
    check's (planning/plan_check.py, planning/check_report.py), whose utilisations replace the same assumptions."""
    from rlvr_support.planning.check_report import is_check, load_check

    try:
        pilot = json.loads(Path(path).read_text())
    except (OSError, json.JSONDecodeError) as e:
        raise ValueError(f"{path}: cannot read the pilot's measurements: {e}") from None
    if is_check(pilot):
        return load_check(path)
    for key in ("model_config", "gpu_type", "grpo"):
        if key not in pilot:
            raise ValueError(f"{path}: not a pilot file (no {key!r}; write one with `python -m rlvr_support pilot`)")
    return pilot


def pilot_efficiencies(pilot: dict, study_rollout: str | None = None):
    """The utilisations a pilot on a known GPU kind measured; a pilot on a CPU (quick mode) measures no GPU's,
    so the throughput model keeps its assumptions (the report lists the pilot's own numbers). `study_rollout`:
    the study's rollout kind, whose decode efficiency only a pilot rolling out the same way measures."""
    from rlvr_support.planning.check_report import is_check
    from rlvr_support.planning.gpus import GPUS
    from rlvr_support.planning.shapes import shape_from_config
    from rlvr_support.planning.throughput import Efficiencies, efficiencies_from_check, efficiencies_from_pilot

    if is_check(pilot):  # a GPU check: its measured MFU and decode ceiling
        return efficiencies_from_check(pilot)
    if pilot.get("gpu_type") not in GPUS:
        return Efficiencies()
    return efficiencies_from_pilot(pilot, shape_from_config(pilot["model_config"]), GPUS[pilot["gpu_type"]],
                                   study_rollout=study_rollout)


def plan(cfg: dict, prompt_files: dict[str, Path] | None = None, measured_dir: str | Path | None = None
         ) -> tuple[list[Row], dict]:
    """(rows for every model, facts for the report: prompt counts and their origin, measurements, each model's
    throughputs and memory plans). `prompt_files` is {task: prompt file} of the files made from cfg's data
    (lineage/prompt_files.py; other tasks are counted from the sources); `measured_dir` is an earlier run's
    results/ folder or a pilot's JSON file."""
    from rlvr_support.planning.throughput import Efficiencies

    if isinstance(prompt_files, (str, Path)):
        raise TypeError(f"plan: prompt_files is {{task: file}} (lineage/prompt_files.py), not a folder: {prompt_files}")
    counts, origin = {}, {}
    for t in budget_tasks(cfg):
        counts[t], origin[t] = eval_prompt_counts(cfg, t, (prompt_files or {}).get(t))
    pilot = load_pilot(measured_dir) if measured_dir and Path(measured_dir).is_file() else None
    study_rollout = "vllm" if cfg["rl"].get("rollout_backend") == "vllm" else "hf"
    eff = pilot_efficiencies(pilot, study_rollout) if pilot else Efficiencies()
    rows, facts = [], {"counts": counts, "origin": origin, "measured": {}, "rates": {}, "rates_range": {},
                       "pilot": pilot, "efficiencies": eff}
    for model in cfg["models"]:
        m = measure_run(measured_dir, cfg, model) if measured_dir and not pilot else None
        pilot_grpo = (pilot or {}).get("grpo") or {}  # a GPU check's file has no pilot's GRPO steps
        train_length = m.train_length if m else pilot_grpo.get("mean_completion_tokens")
        lengths = Lengths(cfg["budget"]["response_fraction"], m.lengths if m else None)
        mine = plan_model(cfg, model, counts, lengths, m.train_length if m else None,
                          m.text_bytes_per_token if m else None)
        rates = model_rates(cfg, model, m, eff, None if pilot else train_length)
        # the range: every assumed figure at its favourable (low GPU-hours) and unfavourable (high) end
        low, high = (model_rates(cfg, model, m, eff.in_case(case), None if pilot else train_length)
                     for case in ("low", "high"))
        cost(cfg, mine, rates, low, high)
        facts["rates_range"][model] = {"low": low, "high": high}
        facts.setdefault("startup", {})[model] = add_startup(cfg, model, mine, rates, pilot)
        rows += mine
        facts["rates"][model] = rates
        if m:
            facts["measured"][model] = m
    return rows, facts


# ---- start-up: each GPU job reads its weights and starts its engine before its first token

WEIGHT_COPIES = {"js": 2}  # positional JS loads the base and the checkpoint; every other job one model


def add_startup(cfg: dict, model: str, rows: list[Row], rates: ModelRates, pilot: dict | None) -> dict:
    """Add each GPU job's start-up to its row's GPU-hours (and to `startup_gpu_hours`): reading its weights
    (parameters x bytes saved per parameter / budget.weights_read_gb_per_s, per model the job loads) and the
    rest of its start-up (budget.startup_s of its kind; a pilot's measured sample start-up, taken with the
    weights in the page cache, replaces `sample`). Grouped sample jobs (resources.sample.group: checkpoint) run
    as one SLURM job per checkpoint: every member still starts its own process and engine, only the first reads
    the weights from disk (the others find them in the node's page cache); routed and large-k jobs join their
    checkpoint's group. A run's measured sample throughput already holds its jobs' start-up (the sample log's
    seconds begin before the load), so nothing is added there. Returns {kind: (read s, rest s, how)}."""
    b = cfg["budget"]
    params = model_params(cfg, model)
    saved, _ = checkpoint_bytes_per_param(cfg)
    read_s = 0.0 if params is None else params * saved / (b["weights_read_gb_per_s"] * 1e9)
    measured = ((pilot or {}).get("sample") or {}).get("startup_seconds")
    grouped = cfg["resources"]["sample"].get("group") == "checkpoint"
    groups = {"sample": len(model_checkpoints(cfg, model)), "trajectory": len(trajectory_points(cfg, model)[0]),
              "routed": 0, "large_k": 0}
    how = {}
    for kind in ("sample", "analyse", "train"):
        if kind == "sample" and rates.how["sample"] == "measured":
            how[kind] = (0.0, 0.0, "MEASURED inside the run's sample throughput")
        elif kind == "sample" and measured is not None:
            how[kind] = (read_s, measured, f"MEASURED by the pilot ({measured:.3g} s with the weights cached)")
        else:
            how[kind] = (read_s, float(b["startup_s"][kind]), f"ASSUMED (budget.startup_s.{kind})")
    for row in rows:
        kind = RESOURCE_OF[row.kind]
        if grouped and row.kind in groups:
            row.slurm_jobs = groups[row.kind]
        if not row.jobs or not row.gpus_per_job:
            continue
        read, rest, _ = how[kind]
        readers = row.jobs if row.slurm_jobs is None else row.slurm_jobs
        seconds = row.jobs * rest + readers * read * WEIGHT_COPIES.get(row.kind, 1)
        row.startup_gpu_hours = seconds * row.gpus_per_job / 3600
        row.gpu_hours += row.startup_gpu_hours
    return how


def runtime_problems(rows: list[Row]) -> list[str]:
    """Rows whose estimated hours per job exceed the configured runtime of their jobs (attempt 1)."""
    out = []
    for r in rows:
        if r.jobs and r.gpus_per_job and r.runtime_h and r.gpu_hours / (r.jobs * r.gpus_per_job) > r.runtime_h:
            out.append(f"{r.model} {r.kind}: {r.gpu_hours / (r.jobs * r.gpus_per_job):.3g} h per job, more than "
                       f"resources.{RESOURCE_OF[r.kind]}.runtime ({r.runtime_h:g} h)")
    return out


# ---- the report


def _si(x: float) -> str:
    for unit, div in (("T", 1e12), ("G", 1e9), ("M", 1e6), ("k", 1e3)):
        if abs(x) >= div:
            return f"{x / div:.3g}{unit}"
    return f"{x:.3g}"


def _bytes(x: float | None) -> str:
    if x is None:
        return "unknown"
    for unit, div in (("TB", 1e12), ("GB", 1e9), ("MB", 1e6), ("kB", 1e3)):
        if x >= div:
            return f"{x / div:.3g} {unit}"
    return f"{x:.0f} B"


def rows_frame(rows: list[Row]):
    import pandas as pd

    return pd.DataFrame([{
        "model": r.model, "kind": r.kind, "jobs": r.jobs, "gpus_per_job": r.gpus_per_job,
        "sequences": r.sequences, "generated_tokens": r.generated_tokens, "forward_tokens": r.forward_tokens,
        "scored_samples": r.scored, "gpu_hours": r.gpu_hours, "gpu_hours_low": r.gpu_hours_range()[0],
        "gpu_hours_high": r.gpu_hours_range()[1], "disk_bytes": r.disk_bytes,
        "upper_bound": r.upper_bound, "length": "+".join(sorted(r.lengths)) or "-", "throughput": r.throughput,
        "hours_per_job": (r.gpu_hours / (r.jobs * r.gpus_per_job)) if r.jobs and r.gpus_per_job else None,
        "runtime_limit_h": r.runtime_h, "note": r.note, "startup_gpu_hours": r.startup_gpu_hours,
        "slurm_jobs": r.jobs if r.slurm_jobs is None else r.slurm_jobs} for r in rows])


def _hours(r: Row) -> str:
    """GPU-hours expected, and their range where the throughput model's assumptions give one."""
    lo, hi = r.gpu_hours_range()
    return f"{r.gpu_hours:.3g}" + (f" ({lo:.3g}-{hi:.3g})" if hi - lo > 1e-9 * max(hi, 1.0) else "")


def report_markdown(cfg: dict, rows: list[Row], facts: dict) -> str:
    from rlvr_support.analysis.markdown import markdown_table

    b = cfg["budget"]
    ub = {r.kind for r in rows if r.upper_bound}
    header = ["model", "kind", "jobs", "GPUs/job", "sequences", "generated tokens", "forward tokens", "scored",
              "GPU-h (low-high)", "start-up GPU-h", "h/job (limit)", "disk", "length", "tokens/s", "note"]

    def line(r: Row) -> list[str]:
        le = "<=" if r.upper_bound else ""
        per_job = (f"{r.gpu_hours / (r.jobs * r.gpus_per_job):.3g} ({r.runtime_h:g})"
                   if r.jobs and r.gpus_per_job else "-")
        gpus = "-" if r.kind == "total" else str(r.gpus_per_job)
        jobs = (str(r.jobs) if r.slurm_jobs is None else f"{r.jobs} in {r.slurm_jobs} SLURM jobs" if r.slurm_jobs
                else f"{r.jobs} in the checkpoints' SLURM jobs")
        return [r.model, r.kind, jobs, gpus, le + _si(r.sequences), le + _si(r.generated_tokens),
                _si(r.forward_tokens), le + _si(r.scored), _hours(r), f"{r.startup_gpu_hours:.3g}",
                per_job, _bytes(r.disk_bytes),
                "+".join(sorted(r.lengths)) or "-", r.throughput, r.note]

    total = Row("all", "total", sum(r.jobs for r in rows), sum(r.sequences for r in rows),
                sum(r.generated_tokens for r in rows), sum(r.forward_tokens for r in rows),
                sum(r.scored for r in rows), sum(r.disk_bytes or 0 for r in rows),
                upper_bound=bool(ub), gpu_hours=sum(r.gpu_hours for r in rows), throughput="",
                startup_gpu_hours=sum(r.startup_gpu_hours for r in rows))
    total.work_hours = total.gpu_hours
    total.work_low, total.work_high = (sum(r.gpu_hours_range()[i] for r in rows) for i in (0, 1))
    total.lengths = set().union(*(r.lengths for r in rows))
    out = [f"# Budget of study `{cfg['study']}`", ""]
    for model in cfg["models"]:
        ckpts, ext = model_checkpoints(cfg, model), externals_of(cfg, model)
        points, kept = trajectory_points(cfg, model)
        t = cfg["trajectory"]
        parts = ["base"] + ([f"{len(cfg['chains'])} chains x {len(cfg['rl']['seeds'])} seeds"] if cfg["chains"] else [])
        parts += [f"{len(ext)} external ({', '.join(ext)})"] if ext else []
        out.append(f"- {model}: {len(ckpts)} checkpoints sampled on eval sets {', '.join(cfg['eval_sets'])} "
                   f"({' + '.join(parts)})"
                   + (f"; {len(points)} trajectory points at n={t['n']} on {', '.join(t['eval_sets'])}"
                      f" ({kept} of them weights kept by trained chains)" if points else ""))
    out += ["", "Sequences and jobs follow from the config and the prompt counts (exact; `<=`: an upper bound); "
            "lengths, throughputs and model sizes are assumptions or measurements, as each row says."]
    table = [line(r) for r in rows] + [line(total)]
    if any(r.disk_bytes is None for r in rows):
        table[-1][11] += " + checkpoints of unknown size"
    out += ["", markdown_table(header, table)]
    out.append("Prompts per benchmark (eval split):")
    if facts.get("prompt_files"):  # which prompt files were used or ignored, and why (set by the verb)
        out.append(f"- {facts['prompt_files']}")
    for t, counts in facts["counts"].items():
        shown = ", ".join(f"{bench} {p}" for bench, p in counts.items())
        n_of = ", ".join(f"{bench} n={sample_budget(cfg, bench)[0]}, max_new_tokens={sample_budget(cfg, bench)[1]}"
                         for bench in counts)
        out.append(f"- {t}: {shown} (from {facts['origin'][t]}); sampled with {n_of}")
    out += ["", "Assumptions and measurements:"]
    if facts["measured"]:
        for model, m in facts["measured"].items():
            lens = ", ".join(f"{bench} {v:.1f}" for bench, v in m.lengths.items()) or "none found"
            out.append(f"- {model}: mean response length (tokens) MEASURED on the base's samples "
                       f"({m.samples} samples in {len(m.files)} files, {m.truncated:.0%} hit max_new_tokens): {lens}; "
                       "lengths are capped at each job's max_new_tokens; benchmarks without a measurement use the "
                       "assumed share below")
            if m.text_bytes_per_token:
                out.append(f"- {model}: response text MEASURED at {m.text_bytes_per_token:.2f} B/token on those samples")
            if m.sample_tps:
                out.append(f"- {model}: sampling throughput MEASURED from the run's sample logs: {m.sample_tps:.4g} "
                           "tokens/s per GPU (per job where resources.sample.gpu is 0)")
            if m.train_tps:
                out.append(f"- {model}: GRPO throughput MEASURED from the run's train manifests: {m.train_tps:.4g} "
                           f"tokens/s per GPU; mean completion length {m.train_length:.1f}")
    out.append(f"- mean response length (ASSUMED where not measured): {b['response_fraction']} x the job's "
               "max_new_tokens")
    eff = facts["efficiencies"]
    from rlvr_support.planning.check_report import budget_line, is_check

    if facts.get("pilot") and is_check(facts["pilot"]):
        out.append(budget_line(facts["pilot"], eff.measured))
    elif facts.get("pilot"):
        p, g = facts["pilot"], facts["pilot"]["grpo"]
        ph = g["phase_seconds"]
        out.append(f"- PILOT MEASURED ({p.get('source', '')}, {p['device']} x {g['setup']['processes']}, "
                   f"{p['model_config'].get('model_type')} {p['model_config'].get('hidden_size')} hidden x "
                   f"{p['model_config'].get('num_hidden_layers')} layers, random weights): GRPO step rollout "
                   f"{ph['rollout']:.3g} s + update {ph['update']:.3g} s + sync {ph['sync']:.3g} s for "
                   f"{g['setup']['sequences']} sequences of {g['setup']['max_completion']} tokens per GPU, "
                   f"{g['tokens_per_s_per_gpu']:.4g} tokens/s per GPU, peak memory per rank "
                   f"{max(g['peak_memory_gb_per_rank']):.3g} GB; sample shard {p['sample']['tokens_per_s_per_gpu']:.4g} "
                   f"tokens/s ({p['sample']['backend']})"
                   + ("; its phase times set the utilisations below" if eff.measured else
                      "; not on a GPU kind the planner knows, so the utilisations stay assumed"))
    from rlvr_support.planning.throughput import ASSUMED

    out.append("- throughput model (planning/throughput.py), each figure's expected value and, where ASSUMED, its "
               "range (its values in the low and the high GPU-hours case; a MEASURED figure has none); GPU figures "
               "from datasheets (planning/gpus.py):")
    for name, a in ASSUMED.items():
        said = ("MEASURED" if name in eff.measured else f"ASSUMED, {eff.describe(name).split()[-1]}: {a.source}")
        value = getattr(eff, name)
        out.append(f"  - {name} {value:.2f} ({said})" if value == 0 or value >= 0.01 else
                   f"  - {name} {value:.3g} ({said})")
    out.append(f"  - link_efficiency {eff.link_efficiency:.2f} ({eff.status('link_efficiency').upper()})")
    saved, resume = checkpoint_bytes_per_param(cfg)
    for model in cfg["models"]:
        params = model_params(cfg, model)
        size = ("size unknown: give budget.params_b." + model) if params is None else f"{_si(params)} parameters"
        rates = facts["rates"][model]
        shown = ", ".join(f"{kind} {rates.tps[kind]:.4g} tokens/s ({rates.how[kind]})" if rates.tps[kind] else
                          f"{kind}: {rates.how[kind]}" for kind in ("sample", "train", "forward"))
        out.append(f"- {model}: {size}; per GPU: {shown}")
        if rates.step is not None:
            st = rates.step
            ends = facts.get("rates_range", {}).get(model, {})
            span = {case: r.step for case, r in ends.items() if r.step is not None}
            shown_range = (f" ({span['low'].total_s:.1f}-{span['high'].total_s:.1f} s: rollout "
                           f"{span['low'].rollout_s:.1f}-{span['high'].rollout_s:.1f}, update "
                           f"{span['low'].update_s:.1f}-{span['high'].update_s:.1f}, sync "
                           f"{span['low'].sync_s:.1f}-{span['high'].sync_s:.1f})" if len(span) == 2 else "")
            out.append(f"  - GRPO step {st.total_s:.1f} s = rollout {st.rollout_s:.1f} + update {st.update_s:.1f} + "
                       f"weight sync {st.sync_s:.1f}{shown_range}; {cfg['rl']['steps']} steps = "
                       f"{rates.hours_per_train_job:.3g} h per train job")
            for phase, how in st.terms.items():
                out.append(f"  - {phase}: {how}")
    out.append(f"- disk: response text {b['text_bytes_per_token']:g} B/token (uncompressed; ASSUMED unless MEASURED "
               "above), per-token arrays "
               f"{ARRAY_BYTES_PER_TOKEN} B/token for the first {cfg['sampling'].get('token_arrays') or 'n (all)'} "
               f"samples per prompt; checkpoints {saved} B/parameter as saved (one per train job and one per kept "
               f"trajectory step; external checkpoints are not counted); a resume checkpoint {resume} B/parameter "
               "(weights and optimizer state), two at once while the next is written")
    for model, how in facts.get("startup", {}).items():
        read = how["analyse"][0]  # the same for every kind: the model's weights
        kinds = "; ".join(f"{kind} {rest:.3g} s {said}" for kind, (_, rest, said) in how.items())
        out.append(f"- {model}: start-up of each GPU job = its weights read from disk, {read:.3g} s at "
                   f"{b['weights_read_gb_per_s']:g} GB/s (ASSUMED: budget.weights_read_gb_per_s; JS reads two models), "
                   f"+ {kinds}")
    startup = sum(r.startup_gpu_hours for r in rows)
    out.append(f"- start-up: {startup:.3g} GPU-h of {total.gpu_hours:.3g} ({startup / max(total.gpu_hours, 1e-12):.1%}), "
               "column start-up GPU-h")
    sampled = [r for r in rows if r.kind in ("sample", "trajectory", "routed", "large_k")]
    if cfg["resources"]["sample"].get("group") == "checkpoint":
        slurm = sum(r.slurm_jobs or 0 for r in sampled)
        out.append(f"- sample jobs GROUPED per checkpoint (resources.sample.group): {sum(r.jobs for r in sampled)} "
                   f"sample jobs in {slurm} SLURM jobs; each member starts its own engine, only the first reads the "
                   "weights from disk (ASSUMED: the others find them in the page cache); a group asks SLURM for the "
                   f"sum of its members' runtimes (resources.sample.runtime {cfg['resources']['sample']['runtime']} "
                   "min each)")
    elif any(r.gpus_per_job for r in sampled):
        out.append(f"- sample jobs not grouped: {sum(r.jobs for r in sampled)} SLURM jobs, each reading its weights; "
                   "resources.sample.group: checkpoint runs a checkpoint's as one (docs/cluster.md)")
    out.append("- GPU-h = tokens / per-GPU throughput (a modelled train job: steps x step time x GPUs; prompt tokens "
               "not counted) + the jobs' start-up; h/job = GPU-h / (jobs x GPUs per job), against the configured "
               "runtime (attempt 1)")
    for problem in runtime_problems(rows):
        out.append(f"- RUNTIME: {problem}")
    plans = [p for model in cfg["models"] for p in facts["rates"][model].memory]
    if plans:
        from rlvr_support.planning.memory import format_plan

        out += ["", "Peak memory per GPU of each GPU job kind (planning/memory.py; resident terms plus the larger "
                    "phase):", ""]
        for p in plans:
            out += [f"- {p.model} {p.kind} on {p.gpu.name}: peak {p.peak / 1e9:.1f} GB of {p.capacity / 1e9:.1f} GB"
                    f" ({'fits' if p.fits else 'DOES NOT FIT'}){'; ' + p.note if p.note else ''}", "",
                    "| term | GB | phase | how |", "|---|---:|---|---|", format_plan(p), ""]
    return "\n".join(out) + "\n"
