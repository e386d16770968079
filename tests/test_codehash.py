"""codehash: a rule's code hash covers what its job runs (its verb's module and every module it
imports, wherever the import stands, and the verifier families and remedies it loads by name),
hashed by syntax tree, so a comment, a docstring or a reformatting changes nothing and a changed
constant, default, branch or call does; and every rule names the code its verb imports."""

from __future__ import annotations

import ast
import inspect
import re
import shutil
import textwrap
from pathlib import Path

import pytest

from rlvr_support.cli.main import build_parser
from rlvr_support.lineage import codehash
from rlvr_support.lineage.job_code import job_code, verb_module
from rlvr_support.scoring.verifiers import families
from rlvr_support.training import remedy_code

RULES = Path(__file__).resolve().parents[1] / "workflow" / "rules"


@pytest.fixture
def pkg(tmp_path, monkeypatch):
    root = tmp_path / "rlvr_support"
    shutil.copytree(codehash.PACKAGE, root, ignore=shutil.ignore_patterns("__pycache__"))
    monkeypatch.setattr(codehash, "PACKAGE", root)
    return root


def _rel(files, root):
    return {f.relative_to(root).as_posix() for f in files}


# ---- what counts: the syntax tree

MODULE = '''"""A module."""

import math

LIMIT = 3  # the cap


def capped(x, cap=LIMIT):
    """The value, capped."""
    if x > cap:
        return cap
    return math.floor(x)
'''

SAME = {  # edits that change no behaviour
    "comment": MODULE.replace("LIMIT = 3  # the cap", "LIMIT = 3  # the cap, see the paper\n# and a new line"),
    "docstring": MODULE.replace('"""The value, capped."""', '"""The value, capped at `cap`.\n\n    Longer now."""'),
    "module docstring": MODULE.replace('"""A module."""', '"""A module, documented at length."""'),
    "formatting": MODULE.replace("def capped(x, cap=LIMIT):", "def capped(\n    x,\n    cap=LIMIT,\n):")
                        .replace("return math.floor(x)", "return (math.floor( x ))"),
    "quotes and a trailing comma": MODULE.replace('"""A module."""', "'''A module.'''"),
}
CHANGED = {  # edits that do
    "constant": MODULE.replace("LIMIT = 3", "LIMIT = 4"),
    "default": MODULE.replace("cap=LIMIT", "cap=2"),
    "branch": MODULE.replace("if x > cap:", "if x >= cap:"),
    "called function": MODULE.replace("math.floor(x)", "math.ceil(x)"),
    "new statement": MODULE + "\nEXTRA = 1\n",
}


@pytest.mark.parametrize("edit", sorted(SAME))
def test_comments_docstrings_and_formatting_leave_the_hash(tmp_path, edit):
    a, b = tmp_path / "a.py", tmp_path / "b.py"
    a.write_text(MODULE)
    b.write_text(SAME[edit])
    assert a.read_text() != b.read_text()
    assert codehash.file_hash(a) == codehash.file_hash(b)


@pytest.mark.parametrize("edit", sorted(CHANGED))
def test_a_change_of_behaviour_changes_the_hash(tmp_path, edit):
    a, b = tmp_path / "a.py", tmp_path / "b.py"
    a.write_text(MODULE)
    b.write_text(CHANGED[edit])
    assert codehash.file_hash(a) != codehash.file_hash(b)


def test_a_body_of_only_a_docstring_hashes_like_pass(tmp_path):
    a, b = tmp_path / "a.py", tmp_path / "b.py"
    a.write_text('def f():\n    """Nothing yet."""\n')
    b.write_text("def f():\n    pass\n")
    assert codehash.file_hash(a) == codehash.file_hash(b)


def test_every_package_module_hashes_without_error():
    files = sorted(codehash.PACKAGE.rglob("*.py"))
    assert len(files) > 100
    assert len({codehash.file_hash(f) for f in files}) > 0.9 * len(files)


# ---- what is followed


def test_closure_follows_imports_inside_functions(pkg):
    files = _rel(codehash.files_of("probes.opening_intervention"), pkg)
    # intervention_run imports sampling and scoring inside the function
    assert {"sampling/backends.py", "sampling/jobs.py", "scoring/score.py", "metrics/openings.py",
            "storage/atomic.py", "analysis/__init__.py"} <= files
    assert not any(f.startswith(("training/", "figures/", "cli/")) for f in files)


def test_type_checking_imports_are_not_followed_and_module_strings_are(pkg):
    (pkg / "metrics" / "probe_a.py").write_text(textwrap.dedent("""
        from typing import TYPE_CHECKING
        if TYPE_CHECKING:
            from rlvr_support.metrics import bootstrap
        else:
            from rlvr_support.metrics import passk
        WORKER = ["-m", "rlvr_support.metrics.entropy"]
    """))
    files = _rel(codehash.files_of("metrics.probe_a"), pkg)
    assert {"metrics/passk.py", "metrics/entropy.py"} <= files
    assert "metrics/bootstrap.py" not in files


def test_the_math_verifier_covers_its_worker_process():
    files = _rel(codehash.files_of("scoring.verifiers.math"), codehash.PACKAGE)
    assert "scoring/verifiers/_math_worker.py" in files  # started as `python -m ...`, never imported


def test_a_verb_covers_its_own_cli_module_not_the_registry_of_every_verb(pkg):
    files = _rel(codehash.files_of(verb_module("passk-table")), pkg)
    assert {"cli/verbs/passk_table.py", "cli/args.py", "analysis/passk_table.py", "analysis/markdown.py"} <= files
    assert "cli/main.py" not in files
    assert {f for f in files if f.startswith("cli/verbs/")} == {"cli/verbs/__init__.py", "cli/verbs/passk_table.py"}
    assert not any(f.startswith(("training/", "sampling/", "scoring/verifiers/", "scoring/score")) for f in files)


def test_a_folder_name_covers_the_whole_folder(pkg):
    files = _rel(codehash.files_of("sampling"), pkg)
    assert {"sampling/vllm_backend.py", "sampling/routed.py", "sampling/fast.py"} <= files


def test_editing_a_helper_changes_the_hash_of_its_importers_only(pkg):
    sample, train, table = (codehash.code_hash(*job_code("sample")), codehash.code_hash(*job_code("train")),
                            codehash.code_hash(*job_code("passk-table")))
    boot = pkg / "metrics/bootstrap.py"
    boot.write_text(boot.read_text() + "\n_EDITED = 1\n")
    assert codehash.code_hash(*job_code("passk-table")) != table
    assert (codehash.code_hash(*job_code("sample")), codehash.code_hash(*job_code("train"))) == (sample, train)
    vllm = pkg / "sampling/vllm_backend.py"
    vllm.write_text(vllm.read_text() + "\n_EDITED = 1\n")
    assert codehash.code_hash(*job_code("sample")) != sample
    assert codehash.code_hash(*job_code("train")) == train, "training does not run the vLLM backend"
    atomic = pkg / "storage/atomic.py"
    atomic.write_text(atomic.read_text() + "\n_EDITED = 1\n")
    assert codehash.code_hash(*job_code("train")) != train, "training writes through storage/atomic.py"


def test_the_code_manifest_names_each_file_and_its_digest_is_the_hash():
    names = job_code("score", ("math",))
    manifest = codehash.code_manifest(*names)
    assert set(manifest) == _rel(codehash.files_of(*names), codehash.PACKAGE)
    assert codehash.manifest_digest(manifest) == codehash.code_hash(*names)


# ---- a job's verifiers and remedies


def _files(verb, verifiers=(), remedies=None):
    return _rel(codehash.files_of(*job_code(verb, verifiers, remedies)), codehash.PACKAGE)


V = "scoring/verifiers/"
IF_ONLY = {V + "instructions.py", V + "ifeval.py", V + "langdetect_fast.py", V + "ifbench.py", V + "ifbench_checks.py",
           V + "iftrain.py"}


def test_a_math_job_covers_the_math_verifier_and_no_instruction_checker():
    files = _files("score", ("math",))
    assert {V + "math.py", V + "_math_worker.py", "scoring/score.py", V + "joint.py"} <= files
    assert not files & IF_ONLY, sorted(files & IF_ONLY)
    assert V + "reasoning_gym.py" not in files


def test_an_ifeval_job_covers_ifevals_checkers_and_the_protocol_only():
    files = _files("score", ("ifeval",))
    assert {V + "instructions.py", V + "ifeval.py", V + "langdetect_fast.py", V + "sentences.py"} <= files
    assert not files & {V + "ifbench.py", V + "ifbench_checks.py", V + "iftrain.py", V + "math.py"}


def test_ifbench_and_iftrain_are_families_of_their_own():
    assert V + "ifbench_checks.py" in _files("score", ("ifbench",))
    assert V + "ifeval.py" not in _files("score", ("ifbench",))
    iftrain = _files("score", ("iftrain",))
    assert V + "iftrain.py" in iftrain and not iftrain & {V + "ifbench.py", V + "ifbench_checks.py", V + "ifeval.py"}


def test_a_stage_covers_its_reward_and_the_remedies_its_variant_turns_on():
    plain = _files("train", ("math",))
    assert {"training/trainer.py", "training/stage.py", "training/rewards.py", V + "math.py"} <= plain
    assert not plain & ({"training/memory_net.py", "training/advantages.py"} | IF_ONLY)
    assert "training/memory_net.py" in _files("train", ("math",), {"memory": {}})
    assert "training/advantages.py" in _files("train", ("math",), {"passk": {"k": 2}})
    assert "training/advantages.py" not in _files("train", ("math",), {"kl": {"estimator": "k3", "where": "loss"}})
    assert "training/advantages.py" in _files("train", ("math",), {"kl": {"estimator": "k1"}})
    assert "training/advantages.py" in _files("train", ("math",), {"kl": {"where": "reward"}})


def test_a_remedy_module_is_refused_to_a_stage_whose_variant_does_not_turn_it_on():
    with pytest.raises(RuntimeError, match="advantages.py runs only under"):
        remedy_code.load({}, "advantages")
    with pytest.raises(RuntimeError, match="memory_net.py runs only under"):
        remedy_code.load({"passk": {"k": 2}}, "memory_net")
    assert remedy_code.load({"memory": {}}, "memory_net").MemoryTrainer


def test_no_module_imports_a_family_or_a_remedy_module_it_is_not_named_for():
    """Only the loaders reach the verifier families and remedy modules: an import elsewhere would put
    them into the code of every job that imports it (still sound, but this precision lost)."""
    P = codehash.PACKAGE
    # what instruction families share: the protocol and the sentence/word splitting
    shared = set(codehash.files_of("scoring.verifiers.instructions", "scoring.verifiers.sentences"))
    own = {f: set(codehash.files_of(*families.modules([f]))) - shared for f in families.FAMILIES}
    for f, files in own.items():
        for g, others in own.items():
            if f != g:
                assert not files & others, f"families {f} and {g} share {sorted(x.name for x in files & others)}"
    every_family = set().union(*own.values())
    remedy_files = {P / "training" / f"{m}.py" for mods in remedy_code.REMEDY_MODULES.values() for m in mods}
    for path in P.rglob("*.py"):
        imported = set(codehash.imported_modules(path))
        if path not in every_family:
            assert not imported & every_family, f"{path} imports {sorted(g.name for g in imported & every_family)}"
        if path not in remedy_files:
            assert not imported & remedy_files, f"{path} imports {sorted(g.name for g in imported & remedy_files)}"


# ---- every rule names the code its verb runs


def _rule_blocks() -> dict[str, str]:
    out = {}
    for f in sorted(RULES.glob("*.smk")):
        for block in re.split(r"^\s*rule (?=\w+:)", f.read_text(), flags=re.M)[1:]:
            out[block.split(":", 1)[0]] = block
    return out


CODE_FUNCTIONS = {"get_train_code": "train", "get_source_code": "data-sources"}


def _rule_code() -> dict[str, tuple[str, str]]:
    """{rule: (verb of its shell command, verb its code param names)}."""
    out = {}
    for name, block in _rule_blocks().items():
        code = re.search(r"^\s*code=(.*),", block, re.M)
        verb = re.search(r'(?:python -m rlvr_support|\{params\.launcher\}) ([a-z-]+)', block)
        if not code:
            continue
        m = re.match(r'get_(?:eval_)?code\("([a-z-]+)"', code.group(1))
        named = m.group(1) if m else CODE_FUNCTIONS.get(code.group(1), code.group(1))
        out[name] = (verb.group(1) if verb else None, named)
    return out


def _verb_functions() -> dict[str, object]:
    parser = build_parser()
    sub = next(a for a in parser._actions if a.__class__.__name__ == "_SubParsersAction")
    return {verb: p.get_default("fn") for verb, p in sub.choices.items()}


def _imported_files(fn, seen=None) -> set[Path]:
    """Package modules a verb function imports, and those of the helpers of its CLI module it calls."""
    seen = set() if seen is None else seen
    seen.add(fn)
    tree = ast.parse(inspect.getsource(fn).lstrip())
    module = inspect.getmodule(fn)
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
            helper = getattr(module, node.func.id, None)
            if inspect.isfunction(helper) and helper.__module__ == module.__name__ and helper not in seen:
                out |= _imported_files(helper, seen)
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("rlvr_support."):
            for parts in [node.module.split(".")] + [node.module.split(".") + [a.name] for a in node.names]:
                f = codehash._module_path(parts[1:])
                if f is not None:
                    out.add(f)
    return out


def test_every_rule_names_the_code_its_verb_imports():
    rules, verbs = _rule_code(), _verb_functions()
    assert len(rules) >= 50, "the rule files changed shape: the parser of this test missed rules"
    for rule, (shell_verb, named) in rules.items():
        if named == "get_point_code":  # trajectory_point: `checkpoint` or `trajectory-point`, by run
            continue
        assert named == shell_verb, f"rule {rule}: runs {shell_verb} but its code param names {named}"
        covered = set(codehash.files_of(*job_code(named)))
        missing = {f for f in _imported_files(verbs[named]) if f not in covered}
        assert not missing, f"rule {rule}: verb {named} imports {sorted(map(str, missing))}, not covered"


def test_every_rule_whose_verb_loads_verifiers_passes_and_hashes_them():
    """A verb that scores or validates prompts loads the families of --verifiers; its rule must pass
    them and hash the same families (one input function for both)."""
    parser = build_parser()
    sub = next(a for a in parser._actions if a.__class__.__name__ == "_SubParsersAction")
    loads = {v for v, p in sub.choices.items() if any(a.dest == "verifiers" for a in p._actions)}
    assert {"score", "train", "base-metrics", "data-sources", "opening-intervention", "single-token",
            "reasoning-if-table"} <= loads
    for rule, block in _rule_blocks().items():
        verb = re.search(r'(?:python -m rlvr_support|\{params\.launcher\}) ([a-z-]+)', block)
        if verb and verb.group(1) in loads:
            assert "--verifiers {params.verifiers}" in block, f"rule {rule} runs {verb.group(1)} without --verifiers"
            ver = re.search(r"^\s*verifiers=(.*),", block, re.M).group(1)
            code = re.search(r"^\s*code=(.*),", block, re.M).group(1)
            pairs = {"get_eval_verifiers": 'get_eval_code("', "get_train_verifiers": "get_train_code",
                     "get_source_verifiers": "get_source_code"}
            if ver in pairs:
                assert code.startswith(pairs[ver]), f"rule {rule}: --verifiers from {ver}, code from {code}"
            else:  # verifiers_arg(X()) with get_code("verb", X())
                inner = re.match(r"verifiers_arg\((\w+\(\))\)", ver).group(1)
                assert code.endswith(f", {inner})"), f"rule {rule}: --verifiers {inner}, code {code}"


# ---- the disk cache of per-file summaries


def test_a_file_parsed_once_is_read_from_the_disk_cache_by_the_next_process(tmp_path, monkeypatch):
    """A second process (the cache in memory cleared) takes the hash and imports from disk without parsing; an
    edited text misses and is parsed; an unreadable entry is parsed again; `off` never reads or writes."""
    monkeypatch.setenv(codehash.CACHE_ENV, str(tmp_path / "cache"))
    module = tmp_path / "m.py"
    module.write_text(MODULE + "\nfrom rlvr_support.metrics import passk\n")
    codehash._summary.cache_clear()
    first = (codehash.file_hash(module), codehash._summary(module.read_text(), str(module))[1])
    entries = list((tmp_path / "cache").rglob("*.json"))
    assert len(entries) == 1 and ("rlvr_support", "metrics", "passk") in first[1]

    def no_parse(*a):
        raise AssertionError("parsed again")

    codehash._summary.cache_clear()
    with monkeypatch.context() as m:
        m.setattr(codehash, "_parsed", no_parse)
        assert (codehash.file_hash(module), codehash._summary(module.read_text(), str(module))[1]) == first
        module.write_text(CHANGED["constant"])
        with pytest.raises(AssertionError, match="parsed again"):
            codehash.file_hash(module)
    module.write_text(MODULE + "\nfrom rlvr_support.metrics import passk\n")
    entries[0].write_text("{truncated")
    codehash._summary.cache_clear()
    assert codehash.file_hash(module) == first[0]
    monkeypatch.setenv(codehash.CACHE_ENV, "off")
    codehash._summary.cache_clear()
    assert codehash.file_hash(module) == first[0] == codehash.hashlib.sha256(
        codehash.canonical_source(module).encode()).hexdigest()[:16]
    codehash._summary.cache_clear()
