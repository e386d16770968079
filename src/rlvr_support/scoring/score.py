"""Score samples with the verifiers: one row of rewards per sample.

Tasks (prompt field `task`):
  math  -> reward = answer correct (math-verify, `verifiers.math`); prompts with
           `scorer: reasoning_gym` use reasoning_gym's score_answer >= 1.0 instead
  if    -> reward = IFEval prompt-level strict accuracy (the protocol `verifiers.instructions`;
           IFEval's, IFBench's and IF-RLVR's training instruction ids are scored the same way by
           their families `verifiers.ifeval`, `verifiers.ifbench`, `verifiers.iftrain`)
  joint -> reward = MathIF hard accuracy (`verifiers.joint`); soft in `joint_soft`

The verifiers are loaded by family (`verifiers.families`), only for the rows that need them and
only among the families the job named: this module imports none of them, so a job's code hash
covers the verifiers of its own data (lineage/job_code.py).

`reasoning="after_think"` scores only the final part of each text (after the last
`</think>`, inside `<answer>...</answer>` if present) for both the math answer and
the instructions; see `scoring.reasoning.strip_reasoning`. `math_extraction` is how the
math answer is found: strict (marked answers only) or lenient (math-verify's own extraction;
`verifiers.math.EXTRACTIONS`).
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import NamedTuple

import pandas as pd

from rlvr_support.config.benchmarks import prompt_benchmark
from rlvr_support.config.defaults import SCORING_DEFAULTS
from rlvr_support.storage.atomic import MissingColumnError
from rlvr_support.scoring.reasoning import strip_reasoning
from rlvr_support.scoring.verifiers import families
from rlvr_support.storage.schemas import SCORE_SCHEMA
from rlvr_support.scoring.verifiers.joint import score_joint

TASKS = ("math", "if", "joint")


class _Answer(NamedTuple):
    """A math answer's verdict, from math-verify or from a Reasoning Gym scorer."""

    correct: bool
    extracted: str | None
    timeout: bool

SAMPLE_INPUTS = ("prompt_id", "sample_idx", "text")  # the only sample columns scoring reads
_IF_CHUNK = 16384  # IF rows per language prefetch
OUTPUT_COLUMNS = SCORE_SCHEMA.names  # the scores file's contract (storage/schemas.py)


def load_prompts(path: str | Path) -> dict[str, dict]:
    """Read prompts JSONL, check fields per task; errors name file, line and field."""
    path = Path(path)
    prompts: dict[str, dict] = {}
    with path.open(encoding="utf-8") as f:
        for lineno, line in enumerate(f, 1):
            if not line.strip():
                continue
            where = f"{path}:{lineno}"
            try:
                rec = json.loads(line)
            except json.JSONDecodeError as e:
                raise ValueError(f"{where}: invalid JSON ({e.msg})") from None
            if not isinstance(rec, dict):
                raise ValueError(f"{where}: expected a JSON object")
            _check_prompt(rec, where)
            if rec["id"] in prompts:
                raise ValueError(f"{where}: field 'id': duplicate id {rec['id']!r}")
            prompts[rec["id"]] = rec
    return prompts


def _check_prompt(rec: dict, where: str) -> None:
    for field in ("id", "task", "prompt"):
        if not isinstance(rec.get(field), str):
            raise ValueError(f"{where}: field {field!r}: missing or not a string")
    task = rec["task"]
    if task not in TASKS:
        raise ValueError(f"{where}: field 'task': {task!r} is not one of {TASKS}")
    if task in ("math", "joint"):
        answer = rec.get("answer")
        if isinstance(answer, (int, float)) and not isinstance(answer, bool):
            rec["answer"] = str(answer)
        elif not isinstance(answer, str) or not answer.strip():
            raise ValueError(f"{where}: field 'answer': required for task {task!r}")
    if rec.get("scorer") == "reasoning_gym":
        rg = rec.get("rg")
        if task != "math" or not isinstance(rg, dict) or not isinstance(rg.get("entry"), dict):
            raise ValueError(f"{where}: field 'rg': a reasoning_gym prompt needs task 'math' and rg.task, rg.entry")
        families.load("reasoning_gym").check_task(rg.get("task"))
    if task in ("if", "joint"):
        for field in ("instruction_id_list", "kwargs"):
            if not isinstance(rec.get(field), list):
                raise ValueError(f"{where}: field {field!r}: required list for task {task!r}")
        protocol = families.instructions()
        try:
            protocol.validate_instructions(rec["instruction_id_list"], rec["kwargs"], rec["id"])
        except protocol.InstructionError as e:
            raise ValueError(f"{where}: field 'instruction_id_list'/'kwargs': {e}") from None


def scoring_options(scoring: dict | None) -> dict:
    """score_samples' keyword arguments from a config's `scoring` section, its optional keys
    filled in from config.defaults (the one place their defaults live); None (a stage or monitor
    run outside a study) gives none, so score_samples' own defaults apply."""
    if scoring is None:
        return {}
    scoring = {**SCORING_DEFAULTS, **scoring}
    return {k: scoring[k] for k in ("timeout_s", "workers", "reasoning", "math_extraction")}


def score_samples(
    samples: pd.DataFrame,
    prompts: dict[str, dict],
    *,
    timeout_s: float = 1.0,
    workers: int = 1,
    reasoning: str = "none",
    math_extraction: str = "strict",
    sources: tuple[str, str] = ("samples", "prompts"),
) -> pd.DataFrame:
    """Score every sample row; output rows are in input order (see module doc). `sources` names
    the samples and the prompts in errors (the files they were read from)."""
    for col in SAMPLE_INPUTS:
        if col not in samples.columns:
            raise MissingColumnError(col, "samples")
    pids = [str(p) for p in samples["prompt_id"]]
    unknown = sorted({p for p in pids if p not in prompts})
    if unknown:
        raise ValueError(f"{sources[0]}: column 'prompt_id': {len(unknown)} id(s) not in {sources[1]}: "
                         f"{', '.join(unknown[:5])}{' ...' if len(unknown) > 5 else ''}")
    texts = ["" if t is None or (isinstance(t, float) and math.isnan(t)) else str(t) for t in samples["text"]]
    texts = [strip_reasoning(t, reasoning) for t in texts]
    tasks = [prompts[p]["task"] for p in pids]
    sample_idx = [int(x) for x in samples["sample_idx"]]  # one pass, not a pandas lookup per row

    # Math for math + joint rows, in one batch (dedup and caching happen inside).
    # Reasoning Gym prompts (`scorer: reasoning_gym`) are scored by reasoning_gym's own
    # score_answer, binarised at 1.0 (verifiers.reasoning_gym); they never reach math-verify.
    rg_rows = [i for i, t in enumerate(tasks) if t == "math" and prompts[pids[i]].get("scorer") == "reasoning_gym"]
    math_res: dict[int, _Answer] = {}
    if rg_rows:
        rg = families.load("reasoning_gym")
        for i in rg_rows:
            r = rg.score_rg(texts[i], prompts[pids[i]]["rg"]["task"], prompts[pids[i]]["rg"]["entry"])
            math_res[i] = _Answer(r.correct, r.extracted, False)
    math_rows = [i for i, t in enumerate(tasks) if t in ("math", "joint") and i not in math_res]
    if math_rows:
        results = families.load("math").score_math_batch(
            [texts[i] for i in math_rows],
            [str(prompts[pids[i]]["answer"]) for i in math_rows],
            timeout_s=timeout_s,
            workers=workers,
            extraction=math_extraction,
        )
        math_res.update({i: _Answer(r.correct, r.extracted, r.timeout) for i, r in zip(math_rows, results)})

    # IF for if + joint rows; identical (prompt, text) pairs are scored once. What a family
    # prefetches for them (IFEval: the texts langdetect will be asked about) is fetched first,
    # in one batch per chunk (batched detection is ~30x faster; chunks bound the memory it holds).
    if_res: dict = {}
    memo: dict = {}
    if_rows = [i for i, t in enumerate(tasks) if t in ("if", "joint")]
    protocol = families.instructions() if if_rows else None
    for start in range(0, len(if_rows), _IF_CHUNK):
        chunk = if_rows[start : start + _IF_CHUNK]
        keys = list(dict.fromkeys((pids[i], texts[i]) for i in chunk if (pids[i], texts[i]) not in memo))
        recs = [prompts[pid] for pid, _ in keys]
        items = [(text, r["instruction_id_list"], r["kwargs"], r["prompt"]) for (_, text), r in zip(keys, recs)]
        with protocol.prefetched(items):
            for key, item in zip(keys, items):
                memo[key] = protocol.score_if(*item)
        for i in chunk:
            if_res[i] = memo[(pids[i], texts[i])]

    rows = []
    for i, task in enumerate(tasks):
        m, r = math_res.get(i), if_res.get(i)
        soft = float("nan")
        if task == "math":
            reward = float(m.correct)
        elif task == "if":
            reward = float(r.prompt_strict)
        else:
            reward, soft = score_joint(m, r)
        rows.append(
            {
                "prompt_id": pids[i],
                "benchmark": prompt_benchmark(prompts[pids[i]]),
                "sample_idx": sample_idx[i],
                "task": task,
                "reward": reward,
                "math_correct": m.correct if m else pd.NA,
                "extracted_answer": m.extracted if m else None,
                "timeout": bool(m.timeout) if m else False,
                "if_prompt_strict": r.prompt_strict if r else pd.NA,
                "if_prompt_loose": r.prompt_loose if r else pd.NA,
                "if_frac_strict": r.frac_strict if r else float("nan"),
                "if_frac_loose": r.frac_loose if r else float("nan"),
                "joint_soft": soft,
            }
        )
    out = pd.DataFrame(rows, columns=OUTPUT_COLUMNS)
    out = out.astype(
        {
            "sample_idx": "int64",
            "reward": "float64",
            "math_correct": "boolean",
            "timeout": "bool",
            "if_prompt_strict": "boolean",
            "if_prompt_loose": "boolean",
            "if_frac_strict": "float64",
            "if_frac_loose": "float64",
            "joint_soft": "float64",
        }
    )
    # Built separately: pandas would turn None into NaN in a string column.
    out["extracted_answer"] = pd.Series([row["extracted_answer"] for row in rows], dtype=object)
    return out
