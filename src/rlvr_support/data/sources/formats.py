"""One converter per dataset format: a raw row -> the fields of a prompt record.

Column layouts follow each dataset card:
  gsm8k       openai/gsm8k (config `main`): question, answer ("... #### 72")
  math500     HuggingFaceH4/MATH-500: problem, solution, answer, subject, level, unique_id
  deepscaler  agentica-org/DeepScaleR-Preview-Dataset: problem, answer, solution
  aime24      HuggingFaceH4/aime_2024 (split train, 30 rows): id, problem, solution, answer, url, year
  amc23       math-ai/amc23 (split test, 40 rows): question, answer (numeric; 27.0 is written 27)
  minerva     math-ai/minervamath (split test, 272 rows): question, answer (LaTeX)
  ifeval      google/IFEval: key, prompt, instruction_id_list, kwargs (541 rows)
  ifbench     allenai/IFBench_test (split train, 300 rows): IFEval's layout, IFBench's instruction ids
  rlvr_ifeval allenai/RLVR-IFeval: messages [{role, content}], ground_truth (JSON), constraint_type
  iftrain     allenai/IF_multi_constraints_upto5 (IF-RLVR's training set): messages, ground_truth (a
              Python literal `[{"instruction_id": [...], "kwargs": [...]}]`, its first element
              possibly a JSON string, as open-instruct's IFEvalVerifier reads it), constraint_type
  mathif      TingchenFu/MathIF (*_single/double/triple.jsonl): question text in `prompt` (or
              `question`), answer, instruction_id_list, kwargs, optional source / key / id
  records     rows already in this project's contract (id, task, prompt, ...)

A converter returns a dict (key, prompt, answer, instruction_id_list, kwargs, meta) or a
string saying why the row is skipped (RLVR-IFeval rows without an IFEval equivalent, IFBench
rows using a constraint that cannot be scored here, IF-RLVR training rows whose kwargs this
project refuses, e.g. an empty keyword; see `verifiers.iftrain`).
"""

from __future__ import annotations

import ast
import json

from rlvr_support.data.sources.rlvr_ifeval import map_ground_truth
from rlvr_support.scoring.verifiers import families

TASK_OF = {"gsm8k": "math", "math500": "math", "deepscaler": "math", "aime24": "math", "amc23": "math",
           "minerva": "math", "ifeval": "if", "ifbench": "if", "rlvr_ifeval": "if", "iftrain": "if", "mathif": "joint", "records": None}
# The verifier families (scoring/verifiers/families.py) that score each format's prompts: a job's
# code hash covers those of its data's formats (data/verifiers.py), and the job loads no other.
# RLVR-IFeval's constraints are mapped onto IFEval ids (rlvr_ifeval.py); IF-RLVR's training set
# (IF_multi_constraints, open-instruct's IFEvalG) mixes IFEval's ids with its own 29; MathIF's
# constraints are IFEval's. Rows already in the contract (`records`) may carry any.
VERIFIERS = {"gsm8k": ("math",), "math500": ("math",), "deepscaler": ("math",), "aime24": ("math",),
             "amc23": ("math",), "minerva": ("math",), "ifeval": ("ifeval",), "ifbench": ("ifbench",),
             "rlvr_ifeval": ("ifeval",), "iftrain": ("ifeval", "iftrain"), "mathif": ("ifeval", "math"),
             "records": families.ALL}


def _need(row: dict, *cols: str) -> None:
    missing = [c for c in cols if c not in row]
    if missing:
        raise KeyError(f"missing column(s) {missing}; the row has {sorted(row)}")


def gsm8k(row: dict, i: int) -> dict:
    _need(row, "question", "answer")
    if "####" not in row["answer"]:
        raise ValueError("answer has no '####' final-answer marker")
    final = row["answer"].rsplit("####", 1)[1].strip().replace(",", "")
    return {"key": str(i), "prompt": row["question"], "answer": final, "meta": {}}


def math500(row: dict, i: int) -> dict:
    _need(row, "problem", "answer")
    key = str(row.get("unique_id") or i)
    return {"key": key, "prompt": row["problem"], "answer": str(row["answer"]),
            "meta": {k: row[k] for k in ("subject", "level") if k in row}}


def deepscaler(row: dict, i: int) -> dict:
    _need(row, "problem", "answer")
    return {"key": str(i), "prompt": row["problem"], "answer": str(row["answer"]), "meta": {}}


def _answer_text(value) -> str:
    """A numeric answer as the problem states it: 27.0 -> "27" (AMC answers are stored as floats)."""
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value).strip()


def aime24(row: dict, i: int) -> dict:
    _need(row, "problem", "answer")
    return {"key": str(row.get("id", i)), "prompt": row["problem"], "answer": _answer_text(row["answer"]),
            "meta": {k: row[k] for k in ("year", "url") if k in row}}


def amc23(row: dict, i: int) -> dict:
    _need(row, "question", "answer")
    return {"key": str(row.get("id", i)), "prompt": row["question"], "answer": _answer_text(row["answer"]),
            "meta": {}}


def minerva(row: dict, i: int) -> dict:
    _need(row, "question", "answer")
    return {"key": str(i), "prompt": row["question"], "answer": _answer_text(row["answer"]), "meta": {}}


def ifeval(row: dict, i: int) -> dict:
    _need(row, "prompt", "instruction_id_list", "kwargs")
    return {"key": str(row.get("key", i)), "prompt": row["prompt"], "answer": None,
            "instruction_id_list": list(row["instruction_id_list"]),
            "kwargs": [{k: v for k, v in (kw or {}).items() if v is not None} for kw in row["kwargs"]], "meta": {}}


def ifbench(row: dict, i: int) -> dict | str:
    rec = ifeval(row, i)
    for iid in rec["instruction_id_list"]:
        reason = families.instructions().unavailable_reason(iid)
        if reason is not None:
            # Skipped (and counted in the build log), not fatal: the other prompts stay usable.
            return f"uses {iid}, not available here ({reason})"
    return rec


def rlvr_ifeval(row: dict, i: int) -> dict | str:
    _need(row, "messages", "ground_truth")
    users = [m["content"] for m in row["messages"] if m.get("role") == "user"]
    if not users:
        raise ValueError("messages has no user turn")
    mapped = map_ground_truth(row["ground_truth"])
    if isinstance(mapped, str):
        return mapped
    ids, kwargs = mapped
    return {"key": str(i), "prompt": users[-1], "answer": None, "instruction_id_list": ids, "kwargs": kwargs,
            "meta": {"constraint_type": row.get("constraint_type")}}


def _ifevalg_constraints(ground_truth) -> dict:
    """open-instruct IFEvalVerifier's reading of a label: `ast.literal_eval` (literals only, never
    code), the first element, itself JSON when it is a string."""
    try:
        gt = ast.literal_eval(ground_truth) if isinstance(ground_truth, str) else ground_truth
        first = gt[0] if isinstance(gt, (list, tuple)) else gt
        spec = json.loads(first) if isinstance(first, str) else first
    except (SyntaxError, ValueError, IndexError, RecursionError, MemoryError) as e:
        raise ValueError(f"ground_truth is not a constraint literal ({type(e).__name__}): {str(ground_truth)[:80]}") from None
    if not isinstance(spec, dict) or "instruction_id" not in spec or "kwargs" not in spec:
        raise ValueError(f"ground_truth has no instruction_id/kwargs: {str(ground_truth)[:80]}")
    return spec


# Upstream's checkers that take a list's first element as the word.
_FIRST_OF_LIST = {"first_word:first_word_sent": "first_word", "last_word:last_word_sent": "last_word",
                  "keywords:keyword_specific_position": "keyword"}


def iftrain(row: dict, i: int) -> dict | str:
    _need(row, "messages", "ground_truth")
    users = [m["content"] for m in row["messages"] if m.get("role") == "user"]
    if not users:
        raise ValueError("messages has no user turn")
    spec = _ifevalg_constraints(row["ground_truth"])
    ids = list(spec["instruction_id"])
    if len(spec["kwargs"]) != len(ids) or not all(isinstance(kw, dict) or kw is None for kw in spec["kwargs"]):
        raise ValueError(f"ground_truth needs one kwargs dict per instruction id: {str(spec)[:80]}")
    kwargs = [{k: (v[0] if isinstance(v, list) and v and k == _FIRST_OF_LIST.get(iid) else v)
               for k, v in (kw or {}).items() if v is not None} for iid, kw in zip(ids, spec["kwargs"])]
    key = str(row.get("key", i))
    protocol = families.instructions()
    for iid, kw in zip(ids, kwargs):
        try:
            protocol.validate_instructions([iid], [kw], key)
        except protocol.InstructionError as e:
            # A training row is dropped, not fatal: the build log counts these per instruction.
            return f"{iid} refused ({e})"
    return {"key": key, "prompt": users[-1], "answer": None, "instruction_id_list": ids, "kwargs": kwargs,
            "meta": {"constraint_type": row.get("constraint_type")}}


def mathif(row: dict, i: int) -> dict:
    text_col = "prompt" if "prompt" in row else "question"
    _need(row, text_col, "answer", "instruction_id_list", "kwargs")
    key = str(row.get("key", row.get("id", i)))
    return {"key": key, "prompt": row[text_col], "answer": str(row["answer"]),
            "instruction_id_list": list(row["instruction_id_list"]),
            "kwargs": [{k: v for k, v in (kw or {}).items() if v is not None} for kw in row["kwargs"]],
            "meta": {"origin": row["source"]} if "source" in row else {}}


def records(row: dict, i: int) -> dict:
    _need(row, "id", "prompt")
    return {"key": str(row["id"]), "prompt": row["prompt"], "answer": row.get("answer"),
            "instruction_id_list": list(row.get("instruction_id_list") or []),
            "kwargs": list(row.get("kwargs") or []), "task": row.get("task"), "meta": {}}


CONVERTERS = {"gsm8k": gsm8k, "math500": math500, "deepscaler": deepscaler, "aime24": aime24, "amc23": amc23,
              "minerva": minerva, "ifeval": ifeval, "ifbench": ifbench, "rlvr_ifeval": rlvr_ifeval, "iftrain": iftrain, "mathif": mathif, "records": records}
