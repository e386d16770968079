"""The GPU check's file (planning/plan_check.py): its rows of planned against measured terms, the table it
prints, and what `budget --measured` reads from it. No torch here: the budget imports this module.

A row is one term of the memory plan or the throughput model: what the plan says (`planned`), what the check
measured (`measured`), their ratio measured / planned, and `fail` where the ratio is outside [0.8, 1.25]
(LOW, HIGH). A row with nothing planned (a CPU run has no GPU figure) or nothing measured (a part that could not
run, out of memory) has no ratio and never fails.
"""

from __future__ import annotations

import json
from pathlib import Path

LOW, HIGH = 0.8, 1.25
KIND = "gpu_check"  # the file's `kind`: what tells it from a pilot's file (planning/pilot.py)


def row(part: str, term: str, unit: str, planned: float | None, measured: float | None, how: str,
        **extra) -> dict:
    """One comparison; `extra` keeps what else was measured with it (MFU, bandwidth, the shape run)."""
    ratio = measured / planned if planned and measured is not None else None
    return {"part": part, "term": term, "unit": unit, "planned": planned, "measured": measured, "ratio": ratio,
            "fail": ratio is not None and not LOW <= ratio <= HIGH, "how": how, **extra}


def number(v: float | None) -> str:
    return "-" if v is None else f"{v:.4g}"


def table(rows: list[dict]) -> str:
    """The rows as a Markdown table: term, planned, measured, ratio, and FAIL where the ratio is outside
    [LOW, HIGH] (ok inside it; - where nothing was planned or measured)."""
    lines = ["| term | planned | measured | ratio | |", "|---|---:|---:|---:|---|"]
    for r in rows:
        verdict = "FAIL" if r["fail"] else "ok" if r["ratio"] is not None else "-"
        note = f" ({r['note']})" if r.get("note") else ""
        lines.append(f"| {r['part']}: {r['term']} ({r['unit']}){note} | {number(r['planned'])} "
                     f"| {number(r['measured'])} | {number(r['ratio'])} | {verdict} |")
    return "\n".join(lines)


def report_text(check: dict) -> str:
    """What the check prints: where it ran, what it could not run and why, the table, and the failures."""
    v = check.get("versions", {})
    shown = ", ".join(f"{k} {v[k]}" for k in ("python", "torch", "cuda", "transformers", "accelerate", "trl",
                                                "datasets") if v.get(k))
    lines = [f"GPU check on {check.get('device')} ({check.get('gpu_type') or 'no GPU kind the planner knows'}); "
             f"{shown}"]
    for part, why in (check.get("cannot_run") or {}).items():
        lines.append(f"cannot run {part}: {why}")
    for part, info in (check.get("parts") or {}).items():
        if info.get("skipped"):
            lines.append(f"skipped {part}: {info['skipped']}")
        if info.get("error"):
            lines.append(f"{part} FAILED: {info['error']}")
    lines += ["", table(check.get("rows", [])), ""]
    fails = [r for r in check.get("rows", []) if r["fail"]]
    lines.append(f"{len(fails)} of {sum(r['ratio'] is not None for r in check.get('rows', []))} terms outside "
                 f"[{LOW}, {HIGH}]" + ("" if check.get("finished") else "; the check did not finish"))
    return "\n".join(lines)


def load_check(path: str | Path) -> dict:
    """A GPU check's file, or a ValueError saying why it is not one."""
    try:
        check = json.loads(Path(path).read_text())
    except (OSError, json.JSONDecodeError) as e:
        raise ValueError(f"{path}: cannot read the GPU check's measurements: {e}") from None
    if check.get("kind") != KIND or "rows" not in check:
        raise ValueError(f"{path}: not a GPU check file (write one with scripts/gpu_check.sh --plan)")
    return check


def is_check(measured: dict) -> bool:
    return measured.get("kind") == KIND


def budget_line(check: dict, replaced: set[str]) -> str:
    """The budget report's line on a GPU check: what it measured, which of its terms fail, and whether its
    utilisations replaced the throughput model's (`replaced`: the names they replaced)."""
    eff = check.get("efficiencies") or {}
    parts = []
    if "mfu" in eff:
        m = eff["mfu"]
        parts.append(f"update MFU {m['value']:.3f} at micro-batch {m['micro_batch']} x {m['seq_len']} tokens with "
                     "the padding mask (one GPU, no ZeRO-3 gathers: an upper bound for a sharded run)")
    if "decode_efficiency" in eff:
        d = eff["decode_efficiency"]
        parts.append(f"decode ceiling {d['value']:.3f} of the datasheet bandwidth at batch {d['batch']} "
                     f"(context {d['context']} tokens; it bounds decode_efficiency from above)")
    rows = check.get("rows", [])
    fails = [r for r in rows if r["fail"]]
    said = (f"{len(fails)} of {sum(r['ratio'] is not None for r in rows)} terms outside [{LOW}, {HIGH}]"
            + (": " + "; ".join(f"{r['part']} {r['term']} x{r['ratio']:.2f}" for r in fails[:6]) if fails else "")
            + ("; ..." if len(fails) > 6 else ""))
    where = (f"{check.get('source', '')}, {check.get('device')}, {check.get('started', '')[:10]}"
             + ("" if check.get("finished") else ", did not finish"))
    return (f"- GPU CHECK MEASURED ({where}, {check.get('model')}): " + ("; ".join(parts) or "no utilisation")
            + f"; {said}" + (f"; it sets {', '.join(sorted(replaced))} below" if replaced else
                             "; not on a GPU kind the planner knows (or nothing binds), so the utilisations stay "
                             "assumed"))
