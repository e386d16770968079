"""Why Snakemake would rerun the job that makes a file: the params and code files that changed.

Snakemake records, per output, the params its job ran with (.snakemake/metadata, or its database
backend) and reruns a job whose params differ now. A rule's `code` param is a map {file: hash}
of the package code the job runs (lineage/job_code.py), so comparing what was recorded with what
the rules give now names the files whose edit triggers the job, not only that "params changed".
Snakemake's dry run stops at the first reason a job has (an input that is remade, say); this
looks at every planned job upstream of the target for the triggers of its own, so a user can see
which jobs rerun for a reason of their own (the root causes) and which only because an input of
theirs is remade, and decide before spending GPU hours (README "Reruns": how to accept outputs).

The DAG is built in-process by Snakemake's API from the same Snakefile, config and working
directory as the run, with no executor: it works the same on a cluster's submit host (no job
is submitted, nothing is written but Snakemake's own .snakemake/ bookkeeping). It reads a few
Snakemake internals (`Workflow._prepare_dag`, `_build_dag`, the persistence's param serialiser),
as `--list-changes` does; tests/test_rerun_reasons.py fails when they move.
"""

from __future__ import annotations

import ast
import json
from dataclasses import dataclass, field
from pathlib import Path

CODE_PARAM = "code"


@dataclass
class JobTriggers:
    """What would rerun one planned job by itself, and what of its inputs is remade upstream."""

    rule: str
    wildcards: dict
    outputs: list[str]
    own: list[str] = field(default_factory=list)  # the job's own triggers, one line each
    upstream: list[str] = field(default_factory=list)  # its inputs that planned jobs remake

    def label(self) -> str:
        wc = ", ".join(f"{k}={v}" for k, v in self.wildcards.items())
        return f"{self.rule} ({wc})" if wc else self.rule


def code_changes(before: dict[str, str] | None, now: dict[str, str]) -> list[str]:
    """Lines naming the files of a code map that changed, appeared or left (None: not recorded as a map)."""
    if before is None:
        return ["code: recorded as one digest (a run before per-file code params): the files cannot be named; "
                f"now {len(now)} files"]
    out = [f"code: {f} changed" for f in now if f in before and before[f] != now[f]]
    out += [f"code: {f} is new to the job's code" for f in now if f not in before]
    out += [f"code: {f} left the job's code" for f in before if f not in now]
    return out


def _as_code_map(serialised: str) -> dict[str, str] | None:
    """A recorded param value (Snakemake stores repr()) read back as a code map, else None."""
    try:
        value = ast.literal_eval(serialised)
    except (ValueError, SyntaxError, MemoryError, RecursionError):
        return None
    if isinstance(value, dict) and value and all(isinstance(k, str) and k.endswith(".py") for k in value):
        return value
    return None


def _is_digest(serialised: str) -> bool:
    try:
        value = ast.literal_eval(serialised)
    except (ValueError, SyntaxError, MemoryError, RecursionError):
        return False
    return isinstance(value, str) and len(value) == 16 and all(c in "0123456789abcdef" for c in value)


def _short(value: str, width: int = 160) -> str:
    return value if len(value) <= width else value[:width] + f"... ({len(value)} characters)"


def _as_mapping(serialised: str) -> dict | None:
    """A recorded param value read back as a mapping: Snakemake stores repr() of the value, and the config
    params are compact JSON strings (common.smk compact_json)."""
    try:
        value = ast.literal_eval(serialised)
    except (ValueError, SyntaxError, MemoryError, RecursionError):
        return None
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except ValueError:
            return None
    return value if isinstance(value, dict) else None


_ABSENT = object()


def key_changes(before: dict, now: dict, prefix: str = "") -> list[str]:
    """`key: old -> new` for every leaf of two mappings that differs (a key only on one side: `(absent)`),
    so a change deep in a long param is named instead of cut off."""
    out = []
    for key in sorted(set(before) | set(now), key=str):
        old, new = before.get(key, _ABSENT), now.get(key, _ABSENT)
        path = f"{prefix}{key}"
        if isinstance(old, dict) and isinstance(new, dict):
            out += key_changes(old, new, path + ".")
        elif old != new:
            show = ["(absent)" if v is _ABSENT else _short(json.dumps(v, sort_keys=True), 80) for v in (old, new)]
            out.append(f"{path}: {show[0]} -> {show[1]}")
    return out


def param_changes(named_now: dict[str, str], recorded: list[str]) -> list[str]:
    """Lines naming the params whose value differs from the recorded ones.

    `named_now`: param name -> Snakemake's serialisation of today's value (non-derived params
    only, as Snakemake compares); `recorded`: the serialised values Snakemake stored (without
    names: a set of reprs). A current value not among the recorded ones changed; the recorded
    values no current param has are what they were before."""
    recorded_set = set(recorded)
    changed = {name: v for name, v in named_now.items() if v not in recorded_set}
    before = [v for v in recorded if v not in set(named_now.values())]
    out = []
    if CODE_PARAM in changed:
        old_maps = [m for m in map(_as_code_map, before) if m is not None]
        old_digests = [v for v in before if _is_digest(v)]
        now_map = _as_code_map(changed.pop(CODE_PARAM)) or {}
        if old_maps:
            out += code_changes(old_maps[0], now_map) or ["code: the same files, reordered"]
            before = [v for v in before if _as_code_map(v) is None]
        else:
            out += code_changes(None, now_map)
            before = [v for v in before if v not in old_digests[:1]]
    if len(changed) == 1 and len(before) == 1:  # one param changed: the one old value is its own
        (name, now), = changed.items()
        old_map, now_map = _as_mapping(before[0]), _as_mapping(now)
        if old_map is not None and now_map is not None:
            out += [f"params: {name}: {line}" for line in key_changes(old_map, now_map)]
        else:
            out.append(f"params: {name} changed: {_short(before[0])} -> {_short(now)}")
    else:
        for name, v in changed.items():
            # the recorded values carry no names: pair a mapping with the old mapping that shares most keys
            now_map = _as_mapping(v)
            olds = [(b, m) for b in before if (m := _as_mapping(b)) is not None]
            if now_map is not None and olds:
                b, old_map = max(olds, key=lambda bm: len(set(bm[1]) & set(now_map)) / len(set(bm[1]) | set(now_map)))
                if set(old_map) & set(now_map):
                    before.remove(b)
                    out += [f"params: {name}: {line}" for line in key_changes(old_map, now_map)]
                    continue
            out.append(f"params: {name} changed, now {_short(v)}")
        out += [f"params: a value no param has any more: {_short(v)}" for v in before]
    return out


class Plan:
    """The planned jobs of a target in a working directory, and the triggers of each (see module doc)."""

    def __init__(self, targets: list[str], workdir: Path, snakefile: Path, configfiles: list[Path],
                 config: dict | None = None, rerun_triggers: list[str] | None = None):
        from snakemake.api import SnakemakeApi
        from snakemake.settings.enums import Quietness, RerunTrigger
        from snakemake.settings.types import ConfigSettings, DAGSettings, OutputSettings, ResourceSettings

        triggers = (RerunTrigger.all() if not rerun_triggers
                    else {RerunTrigger.parse_choice(t) for t in rerun_triggers})
        self._api = SnakemakeApi(OutputSettings(quiet={Quietness.ALL}))
        self._api.__enter__()
        try:
            wf = self._api.workflow(
                resource_settings=ResourceSettings(cores=1),
                config_settings=ConfigSettings(configfiles=[Path(c).resolve() for c in configfiles],
                                               config=config or {}),
                snakefile=Path(snakefile).resolve(), workdir=Path(workdir).resolve())
            dag_api = wf.dag(DAGSettings(targets=set(targets), rerun_triggers=triggers))
            self.workflow = dag_api.workflow_api._workflow
            self.workflow._prepare_dag(forceall=False, ignore_incomplete=True, lock_warn_only=True)
            self.workflow._build_dag()
        except BaseException as e:
            self.close()
            from snakemake.exceptions import MissingRuleException, WorkflowError

            if isinstance(e, MissingRuleException):
                raise ValueError(f"no job of this workflow makes {', '.join(targets)} (a file path relative to the "
                                 "working directory, or a rule without wildcards)") from None
            if isinstance(e, WorkflowError):
                raise ValueError(f"snakemake could not build the DAG: {e}") from None
            raise
        self.dag = self.workflow.dag
        self.targets = targets

    def close(self) -> None:
        self._api.__exit__(None, None, None)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def target_jobs(self) -> list:
        """The jobs the targets name (a file's producer or a rule without wildcards)."""
        wanted = set(self.targets)
        return [j for j in self.dag.jobs if j.rule.name in wanted or any(str(f) in wanted for f in j.output)]

    def planned_upstream(self, jobs) -> list:
        """Every planned job among `jobs` and their dependencies, in DAG order (dependencies first)."""
        seen, order = set(), []

        def visit(job):
            if job in seen:
                return
            seen.add(job)
            for dep in self.dag.dependencies[job]:
                visit(dep)
            if self.dag.needrun(job):
                order.append(job)

        for j in jobs:
            visit(j)
        return order

    def triggers(self, job) -> JobTriggers:
        """The job's own triggers (whatever Snakemake's dry run stopped at) and its remade inputs."""
        persistence, reason = self.workflow.persistence, self.dag.reason(job)
        out = JobTriggers(job.rule.name, dict(job.wildcards), [str(f) for f in job.output])
        if reason.forced:
            out.own.append("forced (--forcerun / --forceall)")
        out.own += [f"output missing: {f}" for f in sorted(map(str, reason.missing_output))]
        out.own += [f"output incomplete (a job that did not finish): {f}"
                    for f in sorted(map(str, reason.incomplete_output))]
        remade = {str(f) for dep, files in self.dag.dependencies[job].items() if self.dag.needrun(dep) for f in files}
        out.upstream = sorted(remade)
        newer = sorted(str(f) for f in reason.updated_input if str(f) not in remade)
        out.own += [f"input newer than the outputs (mtime): {f}" for f in newer]
        recorded = next((m for m in map(persistence.metadata, job.output) if m is not None), None)
        if recorded is None:
            if not reason.missing_output:
                out.own.append("no record in Snakemake's metadata: only modification times decide")
            return out
        serialise = persistence._serialize_param
        current = {str(v) for v in persistence._params(job)}
        named = {}
        for name, value in job.params.items():
            s = serialise(value)
            if isinstance(s, str) and s in current:
                named[name] = s
        if persistence.params_changed(job):
            out.own += param_changes(named, list(recorded.params or []))
        if any(persistence.code_changed(job)):
            out.own.append("the rule's shell command changed (its text in workflow/rules/)")
        if any(persistence.input_changed(job)):
            out.own.append(f"the set of input files changed (was {len(recorded.input or [])} files)")
        if any(persistence.software_stack_changed(job)):
            out.own.append("the software environment definition changed (conda env / container)")
        return out


def explain(plan: Plan, say=print) -> int:
    """Print why the targets' jobs rerun; returns how many planned jobs there are upstream of them."""
    targets = plan.target_jobs()
    if not targets:
        raise ValueError(f"no job of this workflow makes {', '.join(plan.targets)} (a file path relative to the "
                         "working directory, or a rule without wildcards)")
    planned = plan.planned_upstream(targets)
    for job in targets:
        names = ", ".join(str(f) for f in job.output if str(f) in plan.targets) or job.rule.name
        if not plan.dag.needrun(job):
            say(f"{names}: up to date (rule {job.rule.name}); nothing reruns for it")
    if not planned:
        return 0
    info = [plan.triggers(j) for j in planned]
    roots = [t for t in info if t.own]
    say(f"{len(planned)} planned job(s) upstream of {', '.join(plan.targets)} (this target included); "
        f"{len(roots)} rerun for a reason of their own, the rest because an input of theirs is remade.")
    for t in info:
        if t.own:
            say(f"\n{t.label()}  ->  {', '.join(t.outputs[:2])}{' ...' if len(t.outputs) > 2 else ''}")
            for line in t.own:
                say(f"    {line}")
            if t.upstream:
                say(f"    ({len(t.upstream)} of its inputs remade upstream as well)")
    followers: dict[str, int] = {}
    for t in info:
        if not t.own:
            followers[t.rule] = followers.get(t.rule, 0) + 1
    if followers:
        say("\nonly because an input is remade: " + ", ".join(f"{r} x{n}" for r, n in sorted(followers.items())))
    return len(planned)
