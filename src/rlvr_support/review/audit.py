"""`python -m rlvr_support audit`: a result's lineage, with every checksum re-checked.

`audit <file>` follows the provenance sidecars (lineage/provenance.py) from a table or figure down to
the data, printing for each file the verb/rule, config, seeds and code version that made it,
and re-hashing every file on the way (model weights included, against both the checkpoint
manifest's `sha256` map and its sidecar's `artifacts`: lineage/integrity.py). A file is

* *edited* when it no longer matches its own sidecar (or a manifest's record of it);
* *replaced* when its sidecar describes another file, or when file and sidecar agree but the
  sidecar says it was made before, or in another working directory than, the job that read
  it: file and sidecar were put there from elsewhere, and rerunning the workflow would build
  on the replacement, so the audit says restore, not rerun;
* *stale* when it was remade, here, after a file made from it was written (rerun the workflow);
* *no-sidecar* when it lies inside the results tree (the folder of the result that read it)
  without a sidecar, or its sidecar was there when a result read it and is gone now; only a
  file outside the tree (a config file, a downloaded model) is taken for an external input.

A table (CSV, and the Markdown beside it) that matches its sidecar is then *recomputed*: its job
is rerun on the inputs its sidecar names and every cell compared (recompute.py); one that
differs is *differs*, one whose job cannot be rerun *unverified*. `--quick` skips this and
checks sha256 only. A table whose inputs have problems of their own is not recomputed.

Files whose jobs ran under different numerics (another torch kernel capability, MKL branch, numpy
kernel set, library version, thread count or GPU; mixed_numerics.py) are *mixed-numerics*: every
checksum may match, but the results mix two runs that no machine reproduces together.

The first such file is named and the exit status is 1. `audit <folder>` (e.g. `audit
results/`) checks every file under the folder this way: each with a sidecar, each checkpoint
file through its manifest; any other file is a finding, except in Snakemake's `logs/` and
`benchmarks/` and training's `_partial/` resume state (UNTRACKED), which are counted only.

`audit <table> --row chain=math,eval_set=if,metric=pass@k,k=1 --column mean` explains one
number: which score and sample files it comes from, how many prompts and samples, the
formula (the metric's docstring) and the aggregation, and recomputes it from the score files;
a value that differs from the table's is an error naming the table, the row and the column (exit
status 1). The number is recomputed even when the lineage check has already failed (an edited
table: the recomputed value is what the cell should hold).
Explainers are registered per verb in EXPLAINERS (verb -> function(table_path, sidecar,
row, column, print)); a table without one still gets its row and its inputs.
"""

from __future__ import annotations

import inspect
import json
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from rlvr_support.lineage.sidecar import (SUFFIX, TREE_FILES, Described, described, job_root, load, same_tree,
                                          sha256_file, sidecar_of)
from rlvr_support.lineage.integrity import Problem, checkpoint_problems, checkpoint_record, own_problems
from rlvr_support.lineage.integrity import display_path as _display
from rlvr_support.lineage.integrity import short as _short
from rlvr_support.review.recompute import ABS_TOL, REL_TOL, TABLE_SUFFIXES, Recomputer, Rerun, is_table_job
from rlvr_support.review.mixed_numerics import mixed_numerics, unrecorded

# Folders of a results tree that hold no results: never a finding for lacking sidecars.
UNTRACKED = {"logs": "Snakemake logs", "benchmarks": "Snakemake benchmark records",
             "_partial": "resume state of unfinished training jobs"}


@dataclass
class Lineage:
    problems: list[Problem] = field(default_factory=list)
    seen: dict = field(default_factory=dict)  # resolved path -> Seen
    codes: dict = field(default_factory=dict)   # package hash -> code version
    lines: list[str] = field(default_factory=list)
    configs: set = field(default_factory=set)
    tree: Path | None = None  # the folder audited as a whole, if any
    recomputer: Recomputer | None = None  # None: sha256 only (--quick)
    tables: int = 0  # tables recomputed and matching


@dataclass
class Consumer:
    """The file whose sidecar lists the one being visited as an input, and that input entry."""
    name: str
    rec: dict
    inp: dict


@dataclass
class Seen:
    """A file as first visited: each file is hashed and checked against its own records once."""
    digest: str
    desc: Described
    status: str  # ok | EDITED | REPLACED | NO SIDECAR ...
    note: str  # shown for a file without sidecar
    consistent: bool  # matches its own sidecar, or the manifest of the checkpoint it belongs to
    clean: bool = True  # it, and everything it was made from, without a problem


def _in_results_tree(path: Path, consumer: Consumer | None, lin: Lineage) -> bool:
    """Inside the audited folder, or (relative to the consumer's job) in the same top folder as the consumer."""
    if lin.tree is not None and path.resolve().is_relative_to(lin.tree):
        return True
    if consumer is None:
        return False
    inp, out = Path(consumer.inp["path"]), Path(consumer.rec.get("self", ""))
    return (not inp.is_absolute() and not out.is_absolute() and len(inp.parts) > 1 and len(out.parts) > 1
            and inp.parts[0] == out.parts[0] != "..")


def _sidecar_problem(name: str, side: Path, consumer: Consumer | None, lin: Lineage, path: Path) -> Problem | None:
    """Why `path`, which has no sidecar, should have one; None for an external input."""
    if consumer is None and lin.tree is None:
        return Problem(name, "no-sidecar", f"no provenance sidecar {side.name} beside it")
    if consumer is not None and consumer.inp.get("sidecar"):
        return Problem(name, "no-sidecar", f"its sidecar {side.name} is gone; it was there when {consumer.name} was "
                                           "made from it")
    if _in_results_tree(path, consumer, lin):
        return Problem(name, "no-sidecar", f"no provenance sidecar {side.name} beside it, inside the results tree")
    return None


def _consumer_problem(name: str, digest: str, seen: Seen, consumer: Consumer, external: bool) -> Problem | None:
    """`name` hashes to `digest`, not to what `consumer` recorded when it was made from it: why."""
    recorded = f"sha256 {_short(digest)} differs from {_short(consumer.inp['sha256'])} recorded when " \
               f"{consumer.name} was made from it"
    rec = seen.desc.rec
    if not seen.consistent:
        if rec is not None:
            return None  # its own check already says edited or replaced
        if external:
            return Problem(name, "stale", f"{recorded}: the external input changed (rerun the workflow to use it)")
        return Problem(name, "edited", recorded)
    if rec is None:  # a checkpoint file that matches its manifest: the checkpoint was remade
        return Problem(name, "stale", f"{recorded} (rerun the workflow)")
    # A file remade by the workflow was written here after the result that read its old version
    # started; one that matches its sidecar but was not is a copy from elsewhere.
    made, read = rec.get("finished") or "", consumer.rec.get("started") or ""
    if made < read:
        why = f"{rec['verb']} wrote it at {made}, before {consumer.name} was made (at {read}) from another version"
    elif not same_tree(rec, consumer.rec):
        why = (f"{rec['verb']} wrote it in another results tree (in {rec.get('cwd')}) than the one {consumer.name} "
               f"was made in (in {consumer.rec.get('cwd')})")
    else:
        return Problem(name, "stale", f"{recorded} (rerun the workflow)")
    return Problem(name, "replaced", f"{recorded}; it matches its sidecar, but that says {why}: file and sidecar "
                                     "were edited/replaced together. Restore the originals; rerunning the workflow "
                                     "would build on the replacement")


def _first_visit(path: Path, name: str, lin: Lineage, consumer: Consumer | None) -> Seen:
    digest, desc = sha256_file(path), described(path)
    own, note, covered = own_problems(name, digest, desc), "no sidecar", False
    if desc.rec is None and (ckpt := checkpoint_record(path)):
        # a checkpoint's file: its manifest and the manifest's sidecar are its provenance
        manifest, records = ckpt
        covered, note = True, f"a checkpoint file, checked against {_display(manifest)}"
        own = [Problem(name, "edited", f"sha256 {_short(digest)} differs from {_short(sha)} recorded in {where} "
                                       "when the checkpoint was written")
               for sha, where in records if sha != digest][:1]
    elif desc.rec is None and (p := _sidecar_problem(name, desc.sidecar, consumer, lin, path)):
        own = [p]
    elif desc.rec is None and consumer is not None:
        note = "no sidecar: external input"
    lin.problems += own
    return Seen(digest, desc, own[0].kind.upper() if own else "ok", note,
                consistent=not own and (desc.entry is not None or covered))


def _visit(path: Path, lin: Lineage, depth: int, consumer: Consumer | None) -> bool:
    """Check `path` and, the first time, everything it was made from; True when all of it is clean."""
    pad = "  " * depth
    name = _display(path)
    if not path.is_file():
        lin.problems.append(Problem(name, "missing", f"needed by {consumer.name}" if consumer else "no such file"))
        lin.lines.append(f"{pad}{name}  MISSING")
        return False
    key = str(path.resolve())
    revisit = key in lin.seen
    before = len(lin.problems)
    if not revisit:
        lin.seen[key] = _first_visit(path, name, lin, consumer)
    seen = lin.seen[key]
    status, desc = seen.status, seen.desc
    if consumer is not None and seen.digest != consumer.inp["sha256"]:
        external = not _in_results_tree(path, consumer, lin) and not consumer.inp.get("sidecar")
        if p := _consumer_problem(name, seen.digest, seen, consumer, external):
            lin.problems.append(p)
            status = p.kind.upper()
    if revisit:
        lin.lines.append(f"{pad}{name}  sha256 {_short(seen.digest)} {status} (see above)")
        return seen.clean and len(lin.problems) == before
    n_ckpt, bad_ckpt = checkpoint_problems(Path(name), desc)
    lin.problems += bad_ckpt
    arts = f" + {n_ckpt} checkpoint files {'ok' if not bad_ckpt else f'({len(bad_ckpt)} BAD)'}" if n_ckpt else ""
    if desc.rec is None:
        lin.lines.append(f"{pad}{name}  sha256 {_short(seen.digest)} {status}{arts}  ({seen.note})")
        seen.clean = len(lin.problems) == before
        return seen.clean
    rec, root = desc.rec, desc.root
    code = rec.get("code", {})
    lin.codes.setdefault(code.get("package_hash"), code)
    lin.lines.append(f"{pad}{name}  sha256 {_short(seen.digest)} {status}{arts}")
    if rec.get("imported"):
        lin.lines.append(f"{pad}  imported by hand (--import-input) on {rec.get('host')} at {rec.get('finished')}, "
                         "as it was: nothing records how it was made")
    else:
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
    at = len(lin.lines)
    inputs_clean = all([_visit(root / inp["path"], lin, depth + 1, Consumer(name, rec, inp))
                        for inp in rec.get("inputs", [])])
    if lin.recomputer is not None and path.suffix in TABLE_SUFFIXES and is_table_job(rec) and seen.consistent:
        lin.lines.insert(at, f"{pad}  {_recompute(path, name, desc, lin, inputs_clean)}")
    seen.clean = len(lin.problems) == before
    return seen.clean


def _recompute(path: Path, name: str, desc: Described, lin: Lineage, inputs_clean: bool) -> str:
    """Recompute the table `path` from its inputs (recompute.py); the line to show."""
    if not inputs_clean:
        return "not recomputed: what it was made from has problems (below)"
    out = lin.recomputer.check(path, desc.rec, desc.root, desc.entry)
    if out.problem is not None:
        kind = "unverified" if out.problem.startswith("cannot be recomputed") else "differs"
        lin.problems.append(Problem(name, kind, out.problem))
        return f"recomputed: {kind.upper()}"
    lin.tables += 1
    what = f"all {out.cells} rows match" if path.suffix == ".csv" else "every number matches"
    return f"recomputed from its inputs ({desc.rec['verb']} rerun, {out.seconds:.1f} s): {what}"


def lineage(path: str | Path, recomputer: Recomputer | None = None) -> Lineage:
    lin = Lineage(recomputer=recomputer)
    _visit(Path(path), lin, 0, None)
    return lin


def tree_audit(folder: str | Path, recomputer: Recomputer | None = None) -> tuple[Lineage, Counter]:
    """Every file under `folder`, checked as in a lineage; (the lineage, files per kind of coverage)."""
    folder = Path(folder)
    lin = Lineage(tree=folder.resolve(), recomputer=recomputer)
    counts, sidecars, data = Counter(), [], []
    # the tree's identity and its study (and a temp of either a killed job left) hold no result
    for p in sorted(p for p in folder.rglob("*") if p.is_file() and not p.name.startswith(TREE_FILES)):
        if part := next((d for d in p.relative_to(folder).parts[:-1] if d in UNTRACKED), None):
            counts[f"in {part}/ ({UNTRACKED[part]}, not under provenance)"] += 1
        else:
            (sidecars if p.name.endswith(SUFFIX) else data).append(p)
    for p in data:
        if not sidecar_of(p).is_file() and checkpoint_record(p):  # checked when its manifest is
            counts["checkpoint files (checked through their manifests)"] += 1
            continue
        counts["with a sidecar" if sidecar_of(p).is_file() else "without a sidecar"] += 1
        _visit(p, lin, 0, None)
    for s in sidecars:
        if not Path(str(s)[: -len(SUFFIX)]).is_file():
            lin.problems.append(Problem(_display(s), "missing", "a sidecar whose file is gone"))
    return lin, counts


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
    from rlvr_support.analysis.scores import benchmark_blocks
    from rlvr_support.metrics import bootstrap, majority, passk

    if "bin" in row.index:  # difficulty.csv, written by the same job
        return explain_difficulty(table_path, rec, sidecar, row, column, say)
    root = job_root(sidecar, rec)
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
    files = _score_inputs(rec, root)
    files = [f for f in files if f.chain == row["chain"] and f.eval_set == row["eval_set"]]
    if not files:
        raise ValueError(f"{table_path}: its sidecar lists no score file for chain={row['chain']} eval_set={row['eval_set']}")
    bench = str(row.get("benchmark", row["eval_set"]))  # tables written before benchmarks: one per eval set
    say(f"\n{metric} at k={k}, {stat} over {len(files)} RL seed(s) of chain {row['chain']} on eval set "
        f"{row['eval_set']}, benchmark {bench}:")
    for f in files:
        sc = sidecar_of(f.path)
        samples = [i["path"] for i in load(sc)["inputs"] if "/samples/" in i["path"]] if sc.is_file() else []
        blocks = benchmark_blocks(f.path, answers=False)
        for b, part in blocks.items():
            for blk in part if bench in (b, POOLED) else []:
                label = f" [{b}]" if len(blocks) > 1 else ""
                say(f"  scores  {_display(f.path)}{label}: {len(blk.ids)} prompts x {blk.n} samples, "
                    f"{int(blk.success.sum())} successes (reward >= 1), mean graded reward {blk.graded.mean():.4f}")
        for s in samples:
            say(f"  samples {s} (via {_display(sc)})")
    fn = {"pass@k": passk.pass_at_k, "best@k": passk.best_at_k, "coverage": passk.coverage_at_k,
          "maj@k": majority.maj_at_k_matrix}[metric]
    say(f"\nper prompt ({fn.__module__}.{fn.__name__}):\n" + _indent(_doc(fn)))
    if metric == "maj@k":
        say(_indent(_doc(majority)))
    say(f"\nover prompts and seeds ({bootstrap.__name__}.bootstrap_ci_grouped):\n"
        + _indent(_doc(bootstrap.bootstrap_ci_grouped)))
    cfg = rec["config"]["cfg"]
    again = passk_table(files, n_boot=cfg["bootstrap"], ci=cfg["ci"], seed=cfg["seed"])
    r = again[(again["benchmark"] == bench) & (again["metric"] == metric) & (again["k"] == k)].iloc[0]
    value = float(r[{"point": "mean", "low": "ci_low", "high": "ci_high", "seed_std": "seed_std"}[stat]])
    shown = float(row[column])
    return _says_match(value, shown, cfg, say)


def explain_difficulty(table_path: Path, rec: dict, sidecar: Path, row: pd.Series, column: str, say) -> bool:
    """difficulty.csv: the base's pass rates that set the bin, the checkpoint's score files, a recomputation."""
    from rlvr_support.analysis import difficulty_table as difficulty

    if column not in [c for c in row.index if c.startswith("pass@")]:
        say(f"column {column!r} is not a computed metric; nothing to explain beyond the row above")
        return True
    root = job_root(sidecar, rec)
    files = _score_inputs(rec, root)
    files = [f for f in files if f.eval_set == row["eval_set"] and f.chain in ("base", row["chain"])]
    say(f"\nbin {row['bin']} of the base's pass rate on {row['eval_set']} [{row['benchmark']}], k={row['k']}; "
        "score files:")
    for f in files:
        say(f"  {_display(f.path)}")
    say("\n" + _indent(_doc(difficulty)))
    cfg = rec["config"]["cfg"]
    again = difficulty.difficulty_table(files, n_boot=cfg["bootstrap"], ci=cfg["ci"], seed=cfg["seed"])
    r = again[(again["chain"] == row["chain"]) & (again["benchmark"] == row["benchmark"]) & (again["bin"] == row["bin"])]
    if r.empty:
        say("\nrecomputed from the score files: no such row: DOES NOT MATCH")
        return False
    value, shown = float(r.iloc[0][column]), float(row[column])
    return _says_match(value, shown, cfg, say)


def _score_inputs(rec: dict, root: Path) -> list:
    """The score files a passk-table job read (its sidecar's Parquet inputs), parsed for their labels."""
    from rlvr_support.analysis.scores import parse_score_path

    scores_root = root / rec["args"]["scores_root"]
    return [parse_score_path(root / i["path"], scores_root) for i in rec["inputs"] if i["path"].endswith(".parquet")]


def _says_match(value: float, shown: float, cfg: dict, say) -> bool:
    """Whether a recomputed cell is the table's (to its six written decimals), said with the config used."""
    ok = abs(round(value, 6) - shown) <= 1e-6 or (pd.isna(value) and pd.isna(shown))
    say(f"\nrecomputed from the score files with analysis config {json.dumps(cfg, sort_keys=True)}: "
        f"{value:.6f}; table says {shown:.6f}: {'matches' if ok else 'DOES NOT MATCH'}")
    return ok


def _indent(text: str, pad: str = "    ") -> str:
    return "\n".join(pad + line if line else line for line in text.splitlines())


EXPLAINERS = {"passk-table": explain_passk}


def _not_a_table(path: Path, rec: dict) -> str:
    """Why `path`'s numbers are explained elsewhere: a figure draws its table's, Markdown shows the CSV's."""
    if path.suffix == ".md" and path.with_suffix(".csv").is_file():
        return f"{path} shows the numbers of {path.with_suffix('.csv')}: explain them there (audit it with --row)"
    tables = [i["path"] for i in rec.get("inputs", []) if i["path"].endswith(".csv")]
    source = f"; its numbers come from {', '.join(tables)} (audit that with --row)" if tables else ""
    return f"{path}: --row explains a number of a CSV table, and this is a {path.suffix or 'suffix-less'} file{source}"


def explain(path: str | Path, selector: str, column: str, say=print) -> bool:
    path = Path(path)
    side = sidecar_of(path)
    if not side.is_file():
        raise FileNotFoundError(f"{path}: no provenance sidecar {side}")
    rec = load(side)
    if path.suffix != ".csv":
        raise ValueError(_not_a_table(path, rec))
    try:
        table = pd.read_csv(path)
    except (pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError) as e:
        raise ValueError(f"{path}: not a readable CSV table ({' '.join(str(e).split())[:200]})") from None
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


def _table_jobs(path: Path) -> list[tuple[dict, Path]]:
    """The table jobs an audit of `path` (a folder: every sidecar under it; a file: its lineage) will
    recompute: (sidecar record, working directory). Reads sidecars only."""
    sides = sorted(path.rglob(f"*{SUFFIX}")) if path.is_dir() else [sidecar_of(path)]
    jobs, seen = [], set()
    while sides:
        side = sides.pop()
        if side in seen or not side.is_file():
            continue
        seen.add(side)
        try:
            rec = load(side)
        except ValueError:
            continue  # the walk reports it
        root = job_root(side, rec)
        if is_table_job(rec):
            jobs.append((rec, root))
        if not path.is_dir():
            sides += [sidecar_of(root / i["path"]) for i in rec.get("inputs", [])]
    return jobs


def run(path: str, row: str | None = None, column: str | None = None, say=print, quick: bool = False,
        rerun: Rerun | None = None, jobs: int = 1) -> int:
    """The `audit` verb: lineage with checks (tables recomputed by `rerun`, the CLI's, `jobs` at a time,
    unless `quick`), then (with --row) one number explained; or, for a folder, every file under it
    checked. Exit status."""
    if not quick and rerun is None:
        raise ValueError("audit: recomputing the tables needs the verbs that made them (rerun); or pass quick")
    if not Path(path).exists():
        raise FileNotFoundError(f"{path}: no such file or folder")
    if row is not None and not Path(path).is_dir():  # before the audit's work: a figure has no rows
        rec = load(sidecar_of(path)) if sidecar_of(path).is_file() else {}
        if Path(path).suffix != ".csv":
            raise ValueError(_not_a_table(Path(path), rec))
    recomputer = None if quick else Recomputer(rerun)
    try:
        if recomputer is not None and jobs > 1:
            recomputer.prefetch(_table_jobs(Path(path)), jobs)
        if Path(path).is_dir():
            if row is not None:
                raise ValueError(f"{path}: --row explains a number of one table, not of a folder")
            lin, counts = tree_audit(path, recomputer)
            say(f"{sum(counts.values())} files under {_display(Path(path))}, besides their sidecars:")
            for what, n in sorted(counts.items()):
                say(f"  {n} {what}")
        else:
            lin = lineage(path, recomputer)
            for line in lin.lines:
                say(line)
    finally:
        if recomputer is not None:
            recomputer.close()
    recs = {_display(k): v.desc.rec for k, v in lin.seen.items() if v.desc.rec}
    lin.problems += mixed_numerics(recs)
    if old := unrecorded(recs):
        say(f"\n{len(old)} files were made before sidecars recorded numerics (e.g. {old[0]}): not compared")
    say("\ncode versions: " + "; ".join(
        f"package {h} = git {_short(c.get('git_commit'))}{' (dirty)' if c.get('git_dirty') else ''}"
        for h, c in lin.codes.items()))
    for p in lin.problems:
        say(f"PROBLEM {p}")
    if not lin.problems:
        say(f"all {len(lin.seen)} files match their recorded sha256")
        if recomputer is not None:
            say(f"tables recomputed from their inputs: {lin.tables}, all matching, every cell within "
                f"{ABS_TOL:g} + {REL_TOL:g} x |value| or one unit of the last decimal shown "
                f"({recomputer.seconds:.1f} s of reruns)")
        else:
            say("tables not recomputed (--quick): their numbers are checked by sha256 only")
    matches = True
    if row is not None:
        if lin.problems:  # what the number should be is the first thing to know about an edited table
            say("\nthe number, recomputed all the same from its inputs as they are now:")
        try:
            matches = explain(path, row, column or "mean", say=say)
        except (OSError, ValueError, KeyError) as e:
            if not lin.problems:
                raise
            say(f"cannot recompute it: {e}")
        if not matches:
            say(f"error: {_display(Path(path))} [{row}] {column or 'mean'}: the table's value does not match its "
                "recomputation from the inputs its sidecar names")
    if lin.problems:
        first = lin.problems[0]
        if first.kind in ("differs", "unverified"):
            say(f"error: {first.path} is not what its inputs give when recomputed ({first.kind})")
        elif first.kind == "mixed-numerics":
            say(f"error: {first.path} was computed under other numerics than the rest of the results (mixed-numerics)")
        else:
            say(f"error: {first.path} no longer matches its provenance ({first.kind})")
        return 1
    return 0 if matches else 1
