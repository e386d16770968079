"""Test tiers: the markers, the fixtures that imply one, and a check that keeps the marks true.

    snakemake  starts Snakemake (a subprocess or its API), or reads the smoke_run / smol_run runs
    vllm       starts vLLM (the .venv-vllm interpreter)
    slow       takes more than about 20 s by itself (training, sampling, a large differential test)

`make test-fast` runs ``-m "not snakemake and not vllm and not slow"`` (the edit-test loop), `make
test` everything (CI). A test that uses smoke_run or smol_run is marked `snakemake` here; any other
test that starts Snakemake or vLLM must carry the mark itself. An audit hook (sys.addaudithook) sees
every subprocess and every first import of the snakemake package, so a test that starts one without
its mark fails, naming the command: the fast tier cannot start Snakemake by accident. Durations
depend on the machine, so `slow` is not enforced; tests without a tier mark that ran longer than
SLOW_S are listed at the end of the run instead.

conftest.py imports the hooks below (pytest finds hooks by name in a conftest's namespace).
"""

from __future__ import annotations

import os
import shlex
import sys
from pathlib import Path

import pytest

try:  # pytest >= 9.2: a node's id is structured
    from _pytest.nodeid import NodeId
except ImportError:  # older pytest reads the item._nodeid that xdist writes
    NodeId = None

SNAKEMAKE_FIXTURES = {"smoke_run", "smol_run"}
TIER_MARKS = ("snakemake", "vllm", "slow")
SLOW_S = 20.0

_running: list | None = None  # what the test being run has started: [(mark, command)]
_fixtures: list[str] = []  # the fixtures being set up, innermost last
_fixture_starts: dict[str, list] = {}  # fixture -> what its setup started: every test using it needs the marks
_durations: dict[str, float] = {}
_unmarked: set[str] = set()


SHELLS = {"sh", "bash", "dash", "zsh"}


def _tokens(args) -> list[str]:
    """A command's words; the command line of a shell (`sh -c "..."`, as shell=True runs) split into its own."""
    if isinstance(args, (str, bytes, os.PathLike)):
        args = [args]
    words = [os.fsdecode(a) if isinstance(a, (bytes, os.PathLike)) else str(a) for a in args]
    if words and Path(words[0]).name in SHELLS and "-c" in words[:-1]:
        i = words.index("-c") + 1
        try:
            words = words[:i] + shlex.split(words[i]) + words[i + 1:]
        except ValueError:  # not shell syntax after all
            pass
    return words


def needs_mark(argv: list[str]) -> str | None:
    """The tier mark a subprocess command needs: `snakemake`, `vllm` or None."""
    argv = _tokens(argv)
    for i, tok in enumerate(argv):
        if Path(tok).name == "snakemake" or (tok == "-m" and argv[i + 1:i + 2] == ["snakemake"]):
            return "snakemake"
        if ".venv-vllm" in Path(tok).parts or Path(tok).name == "vllm_backend.py":
            return "vllm"
    return None


def _audit(event: str, args: tuple) -> None:
    if _running is None:
        return
    if event == "subprocess.Popen":
        tokens = _tokens(args[1])
        if args[0] is not None and os.fsdecode(args[0]) not in tokens[:1]:
            tokens.insert(0, os.fsdecode(args[0]))
        if mark := needs_mark(tokens):
            _started(mark, " ".join(tokens)[:300])
    elif event == "import" and str(args[0]).split(".")[0] == "snakemake" and not any(
            cmd.startswith("import snakemake") for _, cmd in _running):
        _started("snakemake", f"import {args[0]} (Snakemake's API)")


def _started(mark: str, cmd: str) -> None:
    _running.append((mark, cmd))
    for name in _fixtures:  # a cached (module or session) fixture: its later users start nothing themselves
        _fixture_starts.setdefault(name, []).append((mark, f"{cmd} (in fixture {name})"))


sys.addaudithook(_audit)


# `make test` runs the suite on two pytest-xdist workers (`-n 2 --dist loadgroup`): the tests that read one
# session run go to one worker as a group, so each run is built once, while the other worker takes the rest.
SESSION_RUN_GROUPS = ("smol_run", "smoke_run")  # a test that read both would join the first one's group
# A module-scoped fixture is built once per worker that runs one of its users: the tests of a module whose
# tier-marked tests use one (a vLLM engine, a model, a dry-run DAG) go to one worker as a group too, else two
# workers each pay for it (test_vllm_backend's engine started twice: 108 s and 105 s at 593fce1).
CACHED_SCOPES = ("module", "package", "class")


def _uses_cached_fixture(item) -> bool:
    defs = getattr(getattr(item, "_fixtureinfo", None), "name2fixturedefs", {})
    return any(d.scope in CACHED_SCOPES for fixdefs in defs.values() for d in fixdefs)


def xdist_groups(items) -> dict:
    """item -> its group: the first session run it reads, else its module's name when a test of that
    module with a tier mark uses a module-scoped fixture; items of no group are absent."""
    runs = {item: next((r for r in SESSION_RUN_GROUPS if r in getattr(item, "fixturenames", ())), None)
            for item in items}
    modules = {item: getattr(getattr(item, "module", None), "__name__", None) for item in items}
    # a session run's readers are grouped with it already, module fixtures built on them included
    heavy = {modules[item] for item in items if modules[item] and not runs[item]
             and any(item.get_closest_marker(m) for m in TIER_MARKS) and _uses_cached_fixture(item)}
    return {item: runs[item] or modules[item] for item in items if runs[item] or modules[item] in heavy}


@pytest.hookimpl(tryfirst=True)  # before -m deselects
def pytest_collection_modifyitems(config, items):
    grouped = config.pluginmanager.hasplugin("xdist")
    for item in items:
        if SNAKEMAKE_FIXTURES & set(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.snakemake)
    if not grouped:
        return
    for item, group in xdist_groups(items).items():
        item.add_marker(pytest.mark.xdist_group(group))
        if getattr(config.option, "loadgroup", False) and NodeId is not None:
            # xdist 3.8 tells its scheduler the group through a nodeid suffix ("...@smoke_run") that it
            # writes to item._nodeid, which pytest 9.2 no longer reads (its nodeid is item._id): without
            # this every worker built its own session runs (pytest-xdist issue 1386)
            item._id = NodeId.parse(f"{item.nodeid}@{group}")


@pytest.hookimpl(hookwrapper=True)
def pytest_fixture_setup(fixturedef, request):
    _fixtures.append(fixturedef.argname)
    try:
        yield
    finally:
        _fixtures.pop()


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item, nextitem):
    global _running
    _running = []
    try:
        yield
    finally:
        _running = None


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    rep = outcome.get_result()
    if _running is None or (rep.when == "setup" and rep.passed):
        return  # setup's launches are judged with the call's
    marks = {m.name for m in item.iter_markers()}
    started = _running + [x for f in getattr(item, "fixturenames", ()) for x in _fixture_starts.get(f, ())]
    missing = list({mark: (mark, cmd) for mark, cmd in started if mark not in marks}.values())
    _running.clear()
    if missing and not rep.failed:
        rep.outcome = "failed"
        rep.longrepr = "\n".join(
            f"{item.nodeid} starts {mark} without @pytest.mark.{mark} (tests/tiers.py), so `make test-fast` would "
            f"run it: {cmd}" for mark, cmd in missing)
    if not marks & set(TIER_MARKS):
        _unmarked.add(item.nodeid)


def pytest_runtest_logreport(report):
    _durations[report.nodeid] = _durations.get(report.nodeid, 0.0) + report.duration


def pytest_terminal_summary(terminalreporter):
    long = sorted(((d, n) for n, d in _durations.items() if n in _unmarked and d > SLOW_S), reverse=True)
    if long:
        terminalreporter.section(f"tests without a tier mark that took more than {SLOW_S:.0f} s here")
        for d, n in long:
            terminalreporter.write_line(f"{d:7.1f}s {n}  (mark it slow if that is its usual time)")
