"""`python -m rlvr_support audit`: a result's lineage, with every checksum re-checked.

`audit <file>` follows the provenance sidecars (provenance.py) from a table or figure down to
the data, printing for each file the verb/rule, config, seeds and code version that made it,
and re-hashing every file on the way (model weights included, via the checkpoint manifest's
`artifacts`). A file is *edited* when it no longer matches its own sidecar, *stale* when it
changed after a file made from it was written. The first such file is named and the exit
status is 1.

`audit <table> --row chain=math,eval_set=if,metric=pass@k,k=1 --column mean` explains one
number: which score and sample files it comes from, how many prompts and samples, the
formula (the metric's docstring) and the aggregation, and recomputes it from the score files.
Explainers are registered per verb in EXPLAINERS (verb -> function(table_path, sidecar,
row, column, print)); a table without one still gets its row and its inputs.
"""

from __future__ import annotations

import inspect
import json
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from rlvr_support.lineage import provenance as prov


@dataclass
class Problem:
    path: str
    kind: str  # missing | edited | stale | no-sidecar
    detail: str

    def __str__(self) -> str:
        return f"{self.path}: {self.kind}: {self.detail}"


@dataclass
class Lineage:
    problems: list[Problem] = field(default_factory=list)
    seen: dict = field(default_factory=dict)  # resolved path -> (sha256, edited): each file is read once
    codes: dict = field(default_factory=dict)   # package hash -> code version
    lines: list[str] = field(default_factory=list)
    configs: set = field(default_factory=set)


def _job_root(sidecar: Path, rec: dict) -> Path:
    """The working directory of the job that wrote the sidecar (paths in it are relative to that)."""
    return (sidecar.parent / rec.get("root", ".")).resolve()


def _short(h: str | None) -> str:
    return (h or "?")[:12]


def _display(path: Path) -> str:
    try:
        return str(path.resolve().relative_to(Path.cwd().resolve()))
    except ValueError:
        return str(path)


def _check_artifacts(entry: dict, root: Path, lin: Lineage) -> str:
    arts = entry.get("artifacts") or []
    bad = 0
    for a in arts:
        p = root / a["path"]
        if not p.is_file():
            lin.problems.append(Problem(_display(p), "missing", "checkpoint file listed in the manifest's sidecar is gone"))
            bad += 1
        elif (h := prov.sha256_file(p)) != a["sha256"]:
            lin.problems.append(Problem(_display(p), "edited",
                                        f"sha256 {_short(h)} differs from {_short(a['sha256'])} recorded when the checkpoint was written"))
            bad += 1
    return f" + {len(arts)} checkpoint files {'ok' if not bad else f'({bad} BAD)'}" if arts else ""


def _visit(path: Path, lin: Lineage, depth: int, expected: str | None, consumer: str | None) -> None:
    pad = "  " * depth
    name = _display(path)
    if not path.is_file():
        lin.problems.append(Problem(name, "missing", f"needed by {consumer}" if consumer else "no such file"))
        lin.lines.append(f"{pad}{name}  MISSING")
        return
    key = str(path.resolve())
    revisit = key in lin.seen
    if revisit:
        digest, edited = lin.seen[key]
    else:
        digest = prov.sha256_file(path)
        side = prov.sidecar_of(path)
        rec = prov.load(side) if side.is_file() else None
        root = _job_root(side, rec) if rec else None
        own = next((o for o in rec.get("outputs", []) if (root / o["path"]).resolve() == path.resolve()), None) if rec else None
        edited = own is not None and own["sha256"] != digest
        lin.seen[key] = (digest, edited)
    status = "ok"
    if expected is not None and digest != expected and not edited:
        # it matches its own sidecar, so it was remade after `consumer` read it
        status = "STALE"
        lin.problems.append(Problem(name, "stale", f"sha256 {_short(digest)} differs from {_short(expected)} "
                                                   f"recorded when {consumer} was made from it (rerun the workflow)"))
    if revisit:
        lin.lines.append(f"{pad}{name}  sha256 {_short(digest)} {status} (see above)")
        return
    if rec is None:
        if consumer is None:
            lin.problems.append(Problem(name, "no-sidecar", f"no provenance sidecar {side.name} beside it"))
        lin.lines.append(f"{pad}{name}  sha256 {_short(digest)} {status}  (no sidecar: external input)")
        return
    if own is None:
        lin.problems.append(Problem(name, "edited", f"{side.name} does not describe this file"))
    elif edited:
        status = "EDITED"
        lin.problems.append(Problem(name, "edited", f"sha256 {_short(digest)} differs from {_short(own['sha256'])} "
                                                    f"recorded in {side.name} when {rec['verb']} wrote it"))
    arts = _check_artifacts(own or {}, root, lin)
    code = rec.get("code", {})
    lin.codes.setdefault(code.get("package_hash"), code)
    lin.lines.append(f"{pad}{name}  sha256 {_short(digest)} {status}{arts}")
    lin.lines.append(f"{pad}  made by rule {rec.get('rule')} (verb {rec['verb']}) on {rec.get('host')} "
                     f"at {rec.get('finished')}; code {_short(code.get('git_commit'))}"
                     f"{'+dirty' if code.get('git_dirty') else ''} package {code.get('package_hash')}")
    for sec, val in sorted(rec.get("config", {}).items()):
        text = json.dumps(val, sort_keys=True, separators=(",", ":"))
        shown = "(as above)" if (sec, text) in lin.configs else text
        lin.configs.add((sec, text))
        lin.lines.append(f"{pad}  config {sec}: {shown}")
    if rec.get("seeds"):
        lin.lines.append(f"{pad}  seeds: {json.dumps(rec['seeds'], sort_keys=True)}")
    for inp in rec.get("inputs", []):
        _visit(root / inp["path"], lin, depth + 1, inp["sha256"], name)


def lineage(path: str | Path) -> Lineage:
    lin = Lineage()
    _visit(Path(path), lin, 0, None, None)
    return lin


# ------------------------------------------------------------------ explaining one number
def select_row(table: pd.DataFrame, selector: str, path) -> pd.Series:
    """The single row matching `col=value,col=value` (values compared as text or as numbers)."""
    mask = pd.Series(True, index=table.index)
    for part in filter(None, selector.split(",")):
        if "=" not in part:
            raise ValueError(f"--row {selector!r}: expected col=value pairs")
        col, val = (s.strip() for s in part.split("=", 1))
        if col not in table:
            raise ValueError(f"{path}: no column {col!r} (columns: {', '.join(table.columns)})")
        as_text = table[col].astype(str) == val
        try:
            as_num = pd.to_numeric(table[col], errors="coerce") == float(val)
        except ValueError:
            as_num = False
        mask &= as_text | as_num
    hits = table[mask]
    if len(hits) != 1:
        raise ValueError(f"{path}: --row {selector!r} matches {len(hits)} rows, need exactly one")
    return hits.iloc[0]


def _doc(fn) -> str:
    return inspect.cleandoc(fn.__doc__ or "")


def explain_passk(table_path: Path, rec: dict, sidecar: Path, row: pd.Series, column: str, say) -> bool:
    """passk.csv / headline.csv: the score files of the row's chain and eval set, the formula, a recomputation
    (of the row's benchmark: `all` pools every benchmark of the eval set)."""
    from rlvr_support.analysis.benchmarks import POOLED
    from rlvr_support.analysis.passk_table import passk_table
    from rlvr_support.analysis.scores import benchmark_matrices, parse_score_path
    from rlvr_support.metrics import bootstrap, passk

    root = _job_root(sidecar, rec)
    metric, k = row.get("metric"), row.get("k")
    stat = {"mean": "point", "ci_low": "low", "ci_high": "high", "seed_std": "seed_std"}.get(column)
    if metric is None:  # the headline table: columns like pass@1, best@kmax_lo
        base = column.removesuffix("_lo").removesuffix("_hi")
        stat = {"_lo": "low", "_hi": "high"}.get(column[len(base):], "point")
        metric, k = {"pass@1": ("pass@k", 1), "best@kmax": ("best@k", row.get("k_max")),
                     "coverage@kmax": ("coverage", row.get("k_max"))}.get(base, (None, None))
    if metric is None or stat is None:
        say(f"column {column!r} is not a computed metric; nothing to explain beyond the row above")
        return True
    k = int(k)
    scores_root = root / rec["args"]["scores_root"]
    files = [parse_score_path(root / i["path"], scores_root) for i in rec["inputs"] if i["path"].endswith(".parquet")]
    files = [f for f in files if f.chain == row["chain"] and f.eval_set == row["eval_set"]]
    if not files:
        raise ValueError(f"{table_path}: its sidecar lists no score file for chain={row['chain']} eval_set={row['eval_set']}")
    bench = str(row.get("benchmark", row["eval_set"]))  # tables written before benchmarks: one per eval set
    say(f"\n{metric} at k={k}, {stat} over {len(files)} RL seed(s) of chain {row['chain']} on eval set "
        f"{row['eval_set']}, benchmark {bench}:")
    for f in files:
        sc = prov.sidecar_of(f.path)
        samples = [i["path"] for i in prov.load(sc)["inputs"] if "/samples/" in i["path"]] if sc.is_file() else []
        mats = benchmark_matrices(f.path)
        for b, (ids, success, graded) in mats.items():
            if bench in (b, POOLED):
                label = f" [{b}]" if len(mats) > 1 else ""
                say(f"  scores  {_display(f.path)}{label}: {len(ids)} prompts x {success.shape[1]} samples, "
                    f"{int(success.sum())} successes (reward >= 1), mean graded reward {graded.mean():.4f}")
        for s in samples:
            say(f"  samples {s} (via {_display(sc)})")
    fn = {"pass@k": passk.pass_at_k, "best@k": passk.best_at_k, "coverage": passk.coverage_at_k}[metric]
    say(f"\nper prompt ({fn.__module__}.{fn.__name__}):\n" + _indent(_doc(fn)))
    say(f"\nover prompts and seeds ({bootstrap.__name__}.bootstrap_ci_grouped):\n"
        + _indent(_doc(bootstrap.bootstrap_ci_grouped)))
    cfg = rec["config"]["cfg"]
    again = passk_table(files, n_boot=cfg["bootstrap"], ci=cfg["ci"], seed=cfg["seed"])
    r = again[(again["benchmark"] == bench) & (again["metric"] == metric) & (again["k"] == k)].iloc[0]
    value = float(r[{"point": "mean", "low": "ci_low", "high": "ci_high", "seed_std": "seed_std"}[stat]])
    shown = float(row[column])
    ok = abs(round(value, 6) - shown) <= 1e-6 or (pd.isna(value) and pd.isna(shown))
    say(f"\nrecomputed from the score files with analysis config {json.dumps(cfg, sort_keys=True)}: "
        f"{value:.6f}; table says {shown:.6f}: {'matches' if ok else 'DOES NOT MATCH'}")
    return ok


def _indent(text: str, pad: str = "    ") -> str:
    return "\n".join(pad + line if line else line for line in text.splitlines())


EXPLAINERS = {"passk-table": explain_passk}


def explain(path: str | Path, selector: str, column: str, say=print) -> bool:
    path = Path(path)
    side = prov.sidecar_of(path)
    if not side.is_file():
        raise FileNotFoundError(f"{path}: no provenance sidecar {side}")
    rec = prov.load(side)
    table = pd.read_csv(path)
    if column not in table:
        raise ValueError(f"{path}: no column {column!r} (columns: {', '.join(table.columns)})")
    row = select_row(table, selector, path)
    say(f"{_display(path)} [{selector}] {column} = {row[column]}")
    say("row: " + ", ".join(f"{c}={row[c]}" for c in table.columns))
    say(f"made by rule {rec.get('rule')}: {' '.join(rec['command'])}")
    fn = EXPLAINERS.get(rec["verb"])
    if fn is None:
        say(f"no explainer registered for verb {rec['verb']!r}; its inputs:")
        for i in rec["inputs"]:
            say(f"  {i['path']}")
        return True
    return fn(path, rec, side, row, column, say)


def run(path: str, row: str | None = None, column: str | None = None, say=print) -> int:
    """The `audit` verb: lineage with checks, then (with --row) one number explained. Exit status."""
    lin = lineage(path)
    for line in lin.lines:
        say(line)
    say("\ncode versions: " + "; ".join(
        f"package {h} = git {_short(c.get('git_commit'))}{' (dirty)' if c.get('git_dirty') else ''}"
        for h, c in lin.codes.items()))
    if lin.problems:
        for p in lin.problems:
            say(f"PROBLEM {p}")
        say(f"error: {lin.problems[0].path} no longer matches its provenance ({lin.problems[0].kind})")
        return 1
    say(f"all {len(lin.seen)} files match their recorded sha256")
    if row is not None:
        if not explain(path, row, column or "mean", say=say):
            return 1
    return 0
