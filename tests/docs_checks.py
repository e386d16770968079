"""Checks of the user documentation (README.md, docs/*.md) against the repository, for tests/test_docs.py.

Each check returns every problem it finds as `file:line: what is wrong`, so one run names them all:
relative links (the file, and for `#anchor` the heading, with GitHub's anchors), `make <target>` and
`python -m rlvr_support <verb>` in code (fenced blocks and inline code spans), and every config file a
page names (configs/*.yaml, config.yaml, tests/config/*.yaml): it must exist and validate, an overlay
merged onto the configs a documented `--configfile A B` command puts before it.

The commands themselves are run as a user would (docs/development.md, "The docs are executed"): the
pages' and the config headers' commands are read (`commands`), each marked `# needs: hub|GPU` where it
needs them (`needs_problems`), and checked (`command_problems`: snakemake as a dry run, make as `make
-n`, a verb parsed and, where it reads only the repository, run). A measured number names its commit,
date and machine (`measurement_problems`).
"""

from __future__ import annotations

import argparse
import re
import shlex
import tempfile
import threading
from dataclasses import dataclass, field
from pathlib import Path

from rlvr_support.cli.main import DOWNLOAD_VERBS  # the verbs that fetch from the hub
from rlvr_support.config.reference import github_anchor

FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
LIST_ITEM = re.compile(r"^ {0,3}([-*+]|\d+[.)])\s")
CODE_SPAN = re.compile(r"(`+)(.+?)(?<!`)\1(?!`)")
ATX = re.compile(r"^ {0,3}(#{1,6})\s+(.*?)(?:\s+#+)?\s*$")
LINK = re.compile(r"!?\[(?:[^\]\\]|\\.)*\]\(\s*<?([^)\s>]*)>?(?:\s+[\"'(][^)]*)?\)")
REF_DEF = re.compile(r"^ {0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s+.*)?$")
HTML_LINK = re.compile(r"<(?:a|img)\s[^>]*?(?:href|src)\s*=\s*[\"']([^\"']+)[\"']", re.I)
HTML_ID = re.compile(r"<[a-z]+\s[^>]*?(?:id|name)\s*=\s*[\"']([^\"']+)[\"']", re.I)
SCHEME = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*:")
CONFIG_FILE = re.compile(r"(?<![\w./-])((?:configs|tests/config)/[\w.-]+\.ya?ml|config\.yaml)(?![\w/-])")
# configs that are no study (an accelerate launch config, the SLURM profile): they must exist
OTHER_CONFIG = re.compile(r"(?<![\w./-])((?:configs/accelerate|slurm)/[\w.-]+\.ya?ml)(?![\w/-])")
MAKE = re.compile(r"(?:^|[\s;&|(`])make((?:[ \t]+[^\s;&|#)`]+)*)")
VERB = re.compile(r"(?:-m[ \t]+rlvr_support|(?<![\w/.-])rlvr-support)((?:[ \t]+[^\s;&|#)`]+)*)")
CONFIGFILE_ARG = re.compile(r"--configfile((?:[ \t=]+(?!-)[^\s;&|#)`]+)+)")


@dataclass
class Doc:
    """A Markdown page taken apart: its code (fenced blocks, inline spans), its prose without code, its headings."""

    path: Path
    code: list[tuple[int, str]] = field(default_factory=list)  # (line, text): code blocks' lines and inline spans
    block_lines: set[int] = field(default_factory=set)  # the lines of code blocks (fenced or indented)
    comment_lines: set[int] = field(default_factory=set)  # lines inside an HTML comment (<!-- ... -->): not shown
    prose: list[tuple[int, str]] = field(default_factory=list)  # (line, text with code spans blanked)
    anchors: set[str] = field(default_factory=set)
    text: str = ""

    def where(self, line: int, repo: Path) -> str:
        try:
            name = self.path.resolve().relative_to(repo.resolve())
        except ValueError:
            name = self.path
        return f"{name}:{line}"


def parse(path: Path) -> Doc:
    doc = Doc(path, text=path.read_text())
    fence, seen, comment, in_list, indented = None, {}, False, False, False
    lines = doc.text.splitlines()
    for i, line in enumerate(lines, 1):
        m = FENCE.match(line)
        if fence is not None:
            if m and m.group(1)[0] == fence[0] and len(m.group(1)) >= len(fence) and not line.strip()[len(m.group(1)):]:
                fence = None
            else:
                doc.code.append((i, line))
                doc.block_lines.add(i)
            continue
        if m:
            fence = m.group(1)
            continue
        # an indented code block: 4 spaces after a blank line (or after its own lines), outside a list item
        blank_before = i == 1 or not lines[i - 2].strip()
        if re.match(r"( {4}|\t)", line) and line.strip() and not in_list and (blank_before or indented):
            indented = True
            doc.code.append((i, line.strip()))
            doc.block_lines.add(i)
            continue
        if line.strip():
            indented = False
            if LIST_ITEM.match(line):
                in_list = True
            elif not line.startswith(" ") and blank_before:
                in_list = False
        if comment or "<!--" in line:
            doc.comment_lines.add(i)
            comment = "-->" not in line.split("<!--")[-1]
        doc.code += [(i, s.group(2)) for s in CODE_SPAN.finditer(line)]
        doc.prose.append((i, CODE_SPAN.sub(lambda s: " " * len(s.group(0)), line)))
        heading = ATX.match(line)
        if heading is None and i < len(lines) and line.strip() and re.fullmatch(r" {0,3}(=+|-+)\s*", lines[i]) \
                and not line.lstrip().startswith(("|", "-", "*", ">")):
            heading = re.match(r"()(.*)", line.strip())  # a setext heading: its text, underlined on the next line
        if heading:
            anchor = github_anchor(heading.group(2))
            n = seen.get(anchor, 0)
            seen[anchor] = n + 1
            doc.anchors.add(anchor if n == 0 else f"{anchor}-{n}")
        doc.anchors |= {a for a in HTML_ID.findall(line)}
    return doc


# ---- links


def links(doc: Doc) -> list[tuple[int, str]]:
    out = []
    for i, line in doc.prose:
        out += [(i, t) for t in LINK.findall(line)]
        out += [(i, t) for t in HTML_LINK.findall(line)]
        d = REF_DEF.match(line)
        if d:
            out.append((i, d.group(1)))
    return out


def link_problems(path: Path, repo: Path) -> list[str]:
    """Every relative link of the page: its file exists inside the repository; its #anchor is a heading there."""
    doc, problems, pages = parse(path), [], {}
    for line, target in links(doc):
        if not target or SCHEME.match(target) or target.startswith("//"):
            continue
        file_part, _, anchor = target.partition("#")
        dest = (path.parent / file_part).resolve() if file_part else path.resolve()
        where = doc.where(line, repo)
        if repo.resolve() not in (dest, *dest.parents):
            problems.append(f"{where}: link `{target}` leaves the repository")
            continue
        if not dest.exists():
            problems.append(f"{where}: link `{target}`: no file {dest.relative_to(repo.resolve())}")
            continue
        if not anchor:
            continue
        if dest.suffix.lower() in (".md", ".markdown"):
            if dest not in pages:
                pages[dest] = parse(dest).anchors
            if anchor not in pages[dest]:
                problems.append(f"{where}: link `{target}`: {dest.name} has no heading with anchor #{anchor}")
        elif not re.fullmatch(r"L\d+(-L\d+)?", anchor):
            problems.append(f"{where}: link `{target}`: #{anchor} is no line anchor (#L12 or #L12-L20) of a file")
    return problems


# ---- commands in code


def _words(command: str) -> list[str]:
    try:
        return shlex.split(command, comments=False)
    except ValueError:  # an unbalanced quote in an excerpt
        return command.split()


def _code_commands(doc: Doc) -> list[tuple[int, str]]:
    """Code lines and spans with shell comments cut (`# make sure ...` names no target)."""
    return [(i, re.sub(r"(^|\s)#.*$", "", text)) for i, text in doc.code]


def makefile_targets(makefile: Path) -> set[str]:
    """The Makefile's explicit targets (`name:`, and the `.PHONY` list), without variables or pattern rules."""
    targets = set()
    for line in makefile.read_text().splitlines():
        m = re.match(r"^([^\s:#=][^:=]*?)\s*::?(?![=])(.*)$", line)
        if not m or line.startswith("\t"):
            continue
        names, rest = m.group(1).split(), m.group(2)
        if names == [".PHONY"]:
            targets |= set(rest.split("#")[0].split())
        targets |= {n for n in names if "$" not in n and "%" not in n and not n.startswith(".")}
    return targets


OPTIONS_WITH_VALUE = {"-C", "-f", "--file", "--makefile", "-I", "-o", "-W", "--directory"}


def make_problems(path: Path, repo: Path, targets: set[str]) -> list[str]:
    """Every `make <target>` in the page's code names a target of the Makefile."""
    doc, problems = parse(path), []
    for line, text in _code_commands(doc):
        for m in MAKE.finditer(text):
            words, skip = _words(m.group(1)), False
            for w in words:
                if re.match(r"\d*[<>]|->|=>", w):
                    break  # a redirection (`make bench > log`), or an arrow in a listing (`make bench -> file`)
                if skip:
                    skip = False
                elif w in OPTIONS_WITH_VALUE or w == "-j":
                    skip = w != "-j"
                elif w.startswith("-") or "=" in w or "$" in w or w.isdigit():
                    continue
                elif w not in targets:
                    problems.append(f"{doc.where(line, repo)}: `make {w}`: the Makefile has no target {w!r}")
    return problems


def verb_problems(path: Path, repo: Path, verbs: set[str]) -> list[str]:
    """Every `python -m rlvr_support <verb>` (or `rlvr-support <verb>`) in the page's code names a CLI verb."""
    doc, problems = parse(path), []
    for line, text in _code_commands(doc):
        for m in VERB.finditer(text):
            words = _words(m.group(1))
            while words and words[0] == "--prov-rule":
                words = words[2:]
            if not words or words[0].startswith(("-", "<", "$", "{")):
                continue  # --help, a placeholder (`<verb>`), a variable
            if words[0] not in verbs:
                problems.append(f"{doc.where(line, repo)}: `rlvr_support {words[0]}`: no such verb "
                                f"(the verbs: python -m rlvr_support --help)")
    return problems


# ---- config files


def configfile_sequences(text: str) -> list[tuple[str, ...]]:
    """The config files of each `--configfile A B ...` in `text`, in order (placeholders such as <config> dropped)."""
    out = []
    for m in CONFIGFILE_ARG.finditer(text):
        files = []
        for w in m.group(1).replace("=", " ", 1).split():
            if re.fullmatch(r"[\w./-]+\.ya?ml", w):
                files.append(w.removeprefix("./"))
        if files:
            out.append(tuple(files))
    return out


def documented_sequences(repo: Path, docs: list[Path]) -> set[tuple[str, ...]]:
    """The `--configfile` combinations the repository documents: in the pages' code, the Makefile's recipes and
    the config files' own header comments (an overlay says what it goes on)."""
    texts = ["\n".join(t for _, t in _code_commands(parse(p))) for p in docs]
    texts.append((repo / "Makefile").read_text())
    for cfg in sorted([*(repo / "configs").glob("*.yaml"), *(repo / "tests" / "config").glob("*.yaml")]):
        texts.append("\n".join(line for line in cfg.read_text().splitlines() if line.lstrip().startswith("#")))
    return {seq for t in texts for seq in configfile_sequences(t)}


def config_problems(path: Path, repo: Path, sequences: set[tuple[str, ...]], validate) -> list[str]:
    """Every config file the page names exists and a study config validates: alone, or, an overlay (a file that
    comes after another in a documented `--configfile` command), merged as each such command merges it; every
    `--configfile` combination in the page's own code validates too. `validate(*paths)` raises on a bad config."""
    doc, problems, seen = parse(path), [], set()

    def check(line: int, files: tuple[str, ...], named: str):
        missing = [f for f in files if not (repo / f).is_file()]
        if missing:
            problems.append((line, f"{doc.where(line, repo)}: {named}: no file {', '.join(missing)}"))
            return
        try:
            validate(*(repo / f for f in files))
        except Exception as e:  # noqa: BLE001 - a config error of any kind is a problem of the page
            how = f" (merged as --configfile {' '.join(files)})" if len(files) > 1 else ""
            first = str(e).strip().splitlines()
            problems.append((line, f"{doc.where(line, repo)}: {named}{how} does not validate: "
                                   f"{'; '.join(s.strip() for s in first[:3])}"))

    for line, text in _code_commands(doc):
        for seq in configfile_sequences(text):
            if (line, seq) not in seen:
                seen.add((line, seq))
                check(line, seq, "--configfile " + " ".join(seq))
    lines = doc.text.splitlines()
    for i, text in enumerate(lines, 1):
        for name in dict.fromkeys(OTHER_CONFIG.findall(text)):
            if not (repo / name).is_file():
                problems.append((i, f"{doc.where(i, repo)}: {name}: no file {name}"))
        for name in dict.fromkeys(CONFIG_FILE.findall(text)):
            uses = [s for s in sequences if name in s[1:]]
            for seq in uses or [(name,)]:
                seq = seq[:seq.index(name) + 1]
                if (i, seq) not in seen:
                    seen.add((i, seq))
                    check(i, seq, name)
    return [text for _, text in sorted(problems, key=lambda p: p[0])]


# ---- commands, run as a user runs them

# What a documented command starts with (after a `$ ` prompt and `VAR=value` words), by kind
COMMAND_KINDS = [
    ("snakemake", re.compile(r"snakemake(?=\s|$)")),
    ("verb", re.compile(r"(?:python3? -m rlvr_support|rlvr-support)(?=\s|$)")),
    ("make", re.compile(r"make(?=\s|$)")),
    ("accelerate", re.compile(r"accelerate launch(?=\s|$)")),
    ("script", re.compile(r"(?:bash +|\./)?scripts/[\w./-]+(?=\s|$)")),
    ("bench", re.compile(r"python3? bench/[\w./-]+(?=\s|$)")),
]
ENV_WORD = re.compile(r"[A-Za-z_]\w*=\S*")
# The marker of a command that needs what CI lacks: a trailing shell comment `# needs: hub`, `# needs: GPU` or
# `# needs: hub, GPU` (more text may follow the marker). Such a verb is checked for argument parsing only.
NEEDS = re.compile(r"needs:\s*((?:hub|GPU)(?:\s*(?:,|and)\s*(?:hub|GPU))*)\b")
NEEDS_AFTER_SPAN = re.compile(r"\s*\((needs:[^)]*)\)")  # in prose: `make gpu-check` (needs: GPU)
PLACEHOLDER = re.compile(r"<[^>]*>|^<|>$|\.\.\.|^[A-Z][A-Z_]+$|^/path/")  # `<this file>` is two words
# snakemake options under which a command runs no job (so it needs no GPU whatever the study)
NO_JOBS = {"-n", "--dry-run", "--dryrun", "--unlock", "--lint", "--summary", "--detailed-summary", "--list-rules",
           "--list", "-l", "--dag", "--rulegraph", "--filegraph", "--report", "--help", "-h", "--version"}
# what a command needs by what it runs, beyond a GPU study's jobs (snakemake): the marker must say so
VERB_NEEDS = {"pilot": "GPU"}  # a pilot on the CPU is `pilot --quick`
MAKE_NEEDS = {"gpu-check": "GPU", "gpu-pilot": "GPU"}  # `make gpu-pilot PILOT_ARGS=--quick` runs on the CPU


@dataclass(frozen=True)
class Command:
    """One documented command: where it is written, its text (without the comment) and what its marker says."""

    where: str
    text: str
    kind: str
    env: tuple[tuple[str, str], ...]
    words: tuple[str, ...]  # the program's words: words[0] is `snakemake`, `python`, `make`, ...
    needs: frozenset[str]
    block: bool = True  # shown in a code block; False: an inline span in prose

    @property
    def reference(self) -> bool:
        """An inline span that only names a program or a verb (`snakemake`, `make`, `python -m rlvr_support
        budget`): prose about it, not a command to run as it stands."""
        if self.block or self.kind not in ("snakemake", "make", "verb"):
            return False  # a script named inline is still checked: it exists
        return len(_verb_argv(self.words) if self.kind == "verb" else self.words[1:]) <= (self.kind == "verb")


def _cut_comment(text: str) -> tuple[str, str]:
    """(command, comment): a shell comment starts at a `#` at the start or after a blank, outside quotes."""
    quote = None
    for i, c in enumerate(text):
        if quote:
            quote = None if c == quote else quote
        elif c in "'\"":
            quote = c
        elif c == "#" and (i == 0 or text[i - 1].isspace()):
            return text[:i].rstrip(), text[i + 1:].strip()
    return text.rstrip(), ""


def code_entries(path: Path) -> list[tuple[int, str, bool]]:
    """(line, text, in a code block) of every piece of code a page shows: Markdown code blocks (a line ending in
    `\\` joined with the next) and inline spans, outside HTML comments; for a YAML config, its header comment (the
    lines before the first key): commands indented in it, and inline spans."""
    entries, block = [], []  # inline spans; (line, text) of code-block lines
    if path.suffix in (".yaml", ".yml"):
        lines = []
        for line in path.read_text().splitlines():
            if not line.startswith("#"):
                break
            lines.append(line[1:])
        # an indented line shows a command (`#     snakemake ...`), and a line after one ending in `\` goes on
        block = [(i, t) for i, t in enumerate(lines, 1)
                 if re.match(r"\s{2,}\S", t) or (i > 1 and lines[i - 2].endswith("\\"))]
        spans = [i for i, _ in enumerate(lines, 1)]
    else:
        doc = parse(path)
        lines = doc.text.splitlines()
        block = [(i, t) for i, t in doc.code if i in doc.block_lines and i not in doc.comment_lines]
        spans = sorted({i for i, _ in doc.code if i not in doc.block_lines and i not in doc.comment_lines})
    for i in spans:  # each span with the `(needs: ...)` that may follow it in the prose
        for span in CODE_SPAN.finditer(lines[i - 1]):
            marker = NEEDS_AFTER_SPAN.match(lines[i - 1][span.end():])
            entries.append((i, span.group(2) + (f"  # {marker.group(1)}" if marker else ""), False))
    joined: list[list] = []  # [first line, text, lines]: a line ending in `\` joined with the next
    for i, text in block:
        if joined and joined[-1][1].endswith("\\") and i == joined[-1][0] + joined[-1][2]:
            joined[-1][1] = joined[-1][1][:-1].rstrip() + " " + text.strip()
            joined[-1][2] += 1
        else:
            joined.append([i, text.strip(), 1])
    return sorted(entries + [(line, text, True) for line, text, _ in joined], key=lambda e: e[0])


def commands(path: Path, repo: Path) -> list[Command]:
    """Every command the page shows (code blocks, inline spans, a config's header comment), one per shell command
    (`a && b` is two), with the `# needs:` marker of its line."""
    out = []
    where = f"{path.resolve().relative_to(repo.resolve())}" if repo.resolve() in path.resolve().parents else path.name
    for line, text, block in code_entries(path):
        command, comment = _cut_comment(text)
        marker = NEEDS.search(comment)
        needs = frozenset(n.strip() for n in re.split(r",|and", marker.group(1))) if marker else frozenset()
        for part in re.split(r"\s*(?:&&|\|\||;|\|)\s*", command):
            part = re.sub(r"^\$\s+|^\(\s*", "", part.strip())
            # a redirection (`> log`) ends the command; a placeholder (`<config>`) is a word of it
            masked = re.sub(r"<[\w .-]+>", lambda m: "\0" * len(m.group(0)), part)
            part = part[:len(re.split(r"\s\d*[<>]", masked)[0])].strip()
            env, words = [], _words(part)
            while words and ENV_WORD.fullmatch(words[0]):
                env.append(tuple(words.pop(0).split("=", 1)))
            rest = " ".join(words)
            kind = next((k for k, pattern in COMMAND_KINDS if pattern.match(rest)), None)
            if kind:
                out.append(Command(f"{where}:{line}", part, kind, tuple(env), tuple(words), needs, block))
    return out


# snakemake options that take one value (a word after them is no target)
SNAKEMAKE_VALUE_OPTIONS = {"--profile", "--cores", "-c", "--jobs", "-j", "--directory", "-d", "--snakefile", "-s",
                           "--executor", "-e", "--sdm", "--software-deployment-method", "--report", "--until", "-U",
                           "--local-cores"}


def snakemake_targets(words: tuple[str, ...]) -> list[str]:
    """The targets a snakemake command asks for (as snakemake reads them: after `--`, or the words that are no
    option and no option's value; the words after `--configfile` are config files, whatever they name)."""
    options, targets = _options_and_targets(words)
    if targets is not None:
        return targets
    out, skip, files = [], False, False
    for w in options:
        if skip:
            skip = False
        elif w.startswith("-"):
            skip, files = w in SNAKEMAKE_VALUE_OPTIONS, w == "--configfile"
        elif not files:
            out.append(w)
    return out


def _options_and_targets(words: tuple[str, ...]) -> tuple[list[str], list[str] | None]:
    """A snakemake command's options and its targets after `--` (None: no `--`, targets among the options)."""
    if "--" in words:
        i = words.index("--")
        return list(words[1:i]), list(words[i + 1:])
    return list(words[1:]), None


def _directory(options: list[str]) -> str | None:
    """The --directory a command names (None: the repository root)."""
    for i, w in enumerate(options):
        if w in ("-d", "--directory") and i + 1 < len(options):
            return options[i + 1]
        if w.startswith("--directory="):
            return w.split("=", 1)[1]
    return None


def _without_directory(options: list[str]) -> list[str]:
    out, skip = [], False
    for w in options:
        if skip:
            skip = False
        elif w in ("-d", "--directory"):
            skip = True
        elif not w.startswith("--directory=") and w not in ("-n", "--dry-run", "--dryrun"):
            out.append(w)
    return out


def configfile_trap(cmd: Command) -> str | None:
    """`--configfile A B` takes every word up to the next option as a config file (argparse's nargs='+'), so a
    target after it without `--` is read as a config file: what to say when a command does that."""
    options, targets = _options_and_targets(cmd.words)
    if targets is not None:
        return None
    swallowed, after = [], False
    for w in options:
        if w == "--configfile":
            after = True
        elif w.startswith("-"):
            after = False
        elif after and not re.search(r"\.ya?ml$", w) and not PLACEHOLDER.search(w):
            swallowed.append(w)
    if not swallowed:
        return None
    return f"--configfile reads {' '.join(swallowed)!r} as config file(s): put `--` before the targets"


def required_needs(cmd: Command, repo: Path, load_config) -> set[str]:
    """What the command needs that CI has not, by what it runs: a snakemake run of `prefetch` the hub, a snakemake
    run of a study whose `resources` ask for GPUs a GPU, the verbs and make targets of VERB_NEEDS and MAKE_NEEDS.
    `load_config(*paths)` merges a study's config files."""
    words = cmd.words
    if cmd.kind == "snakemake":
        if NO_JOBS & set(words):
            return set()
        targets = snakemake_targets(words)
        need = {"hub"} if "prefetch" in targets or "prefetch" in words else set()
        files = next(iter(configfile_sequences(cmd.text)), ("config.yaml",))
        try:
            config = load_config(*(repo / f for f in files))
        except Exception:  # noqa: BLE001 - a config that does not load is config_problems' to report
            return need
        gpus = any(isinstance(r, dict) and (r.get("gpu") or 0) > 0 for r in config.get("resources", {}).values())
        if gpus and set(targets) != {"prefetch"}:
            need.add("GPU")
        return need
    if cmd.kind in ("verb", "accelerate"):
        argv = _verb_argv(words)
        verb = next((w for w in argv if not w.startswith("-")), None)
        if verb == "pilot" and "--quick" in argv:
            return set()
        return {"hub"} if verb in DOWNLOAD_VERBS else {VERB_NEEDS[verb]} if verb in VERB_NEEDS else set()
    if cmd.kind == "make":
        return {MAKE_NEEDS[w] for w in words[1:] if w in MAKE_NEEDS
                and not (w == "gpu-pilot" and "PILOT_ARGS=--quick" in words)}
    return set()


def needs_problems(cmds: list[Command], repo: Path, load_config) -> list[str]:
    """Every command that needs the hub or a GPU says so with its `# needs:` marker."""
    problems = []
    for cmd in cmds:
        missing = required_needs(cmd, repo, load_config) - cmd.needs
        if missing:
            marker = "# needs: " + ", ".join(sorted(cmd.needs | missing, key=["hub", "GPU"].index))
            problems.append(f"{cmd.where}: `{cmd.text}`: needs {' and '.join(sorted(missing))}: end it with "
                            f"`{marker}`")
    return problems


def _verb_argv(words: tuple[str, ...]) -> list[str]:
    """The CLI's arguments in `python -m rlvr_support ...`, `rlvr-support ...` or `accelerate launch ... -m
    rlvr_support ...`."""
    for i, w in enumerate(words):
        if w == "rlvr-support" or (w == "rlvr_support" and i and words[i - 1] == "-m"):
            return list(words[i + 1:])
    return []


def _what_failed(proc) -> str:
    """The line of a failed process's output that says why: its last error line (with the message Snakemake puts
    on the next line), else its last lines."""
    lines = [line.strip() for line in (proc.stdout + "\n" + proc.stderr).splitlines() if line.strip()]
    lines = [line for line in lines if not line.startswith(("Traceback", "File \"", "^"))]
    for i in range(len(lines) - 1, -1, -1):
        if re.match(r"^(error:|make: \*\*\*|(\w+\.)*\w*(Error|Exception)\b)", lines[i]):
            said = lines[i] + (" " + lines[i + 1] if lines[i].endswith(":") and i + 1 < len(lines) else "")
            return f"exit {proc.returncode}: {said[:500]}"
    return f"exit {proc.returncode}: {' | '.join(lines[-3:])[:500]}"


class _Refused(Exception):
    pass


_PARSE_LOCK = threading.Lock()


def _parse(parser, argv: list[str]) -> str | None:
    """None when argparse takes `argv` (or exits 0, as --help does), else what it said.

    The commands are checked two at a time in threads, and sys.stderr is one for all of them: argparse's message is
    taken from its `error` (patched on the parser and its subparsers, under a lock), not from a redirected stderr,
    which another thread's redirect can swap under it."""
    import contextlib
    import io

    def refuse(message):
        raise _Refused(message)

    parsers = [parser] + [sub for a in parser._actions if isinstance(a, argparse._SubParsersAction)
                          for sub in a.choices.values()]
    with _PARSE_LOCK:
        for p in parsers:
            p.error = refuse
        try:
            with contextlib.redirect_stdout(io.StringIO()):  # --help
                parser.parse_args(argv)
        except _Refused as e:
            return f"error: {e}"
        except SystemExit as e:
            return None if e.code in (0, None) else f"exit {e.code}"
        finally:
            for p in parsers:
                del p.error
    return None


def repository_file(word: str, repo: Path, outputs: set[str]) -> bool:
    """A word that names a file of the checkout (not of a run's outputs: the folders .gitignore lists)."""
    path = Path(word)
    return not path.is_absolute() and path.parts[:1] != ("..",) and (repo / path).is_file() \
        and path.parts[0] not in outputs


def output_folders(repo: Path) -> set[str]:
    """The top-level folders .gitignore names (results/, world1/, measurements/, ...): what a run writes."""
    return {line.strip().strip("/") for line in (repo / ".gitignore").read_text().splitlines()
            if re.fullmatch(r"/?[\w.-]+/?", line.strip()) and not line.startswith("!")}


def _path_like(word: str, outputs: set[str]) -> bool:
    return "/" in word or word in outputs or bool(re.search(r"\.(ya?ml|json|jsonl|csv|md|parquet|png|pdf|txt|sh|py)$",
                                                           word))


def verb_failure(cmd: Command, repo: Path, scratch: Path, parser, python: str, env: dict) -> str | None:
    """Argument parsing (and the verb's --help) always; and where every file it names is a file of the
    repository, no placeholder stands in an argument and no `# needs:` marker says otherwise, the verb itself, in
    an empty directory holding copies of those files (as on a fresh clone, results/ absent)."""
    import shutil
    import subprocess

    argv = _verb_argv(cmd.words)
    if cmd.kind == "accelerate" and not argv:
        return None  # `accelerate launch` of something other than a verb
    verb = next((w for w in argv if not w.startswith("-")), None)
    if verb and PLACEHOLDER.search(verb):  # `python -m rlvr_support <verb> --help`
        argv, verb = ["--help"], None
    if said := _parse(parser, argv):
        return f"the CLI does not take these arguments: {said}"
    if verb and (said := _parse(parser, [verb, "--help"])):
        return f"`{verb} --help` fails: {said}"
    outputs = output_folders(repo)
    named = [w for w in argv[1:] if _path_like(w, outputs)]
    if cmd.kind != "verb" or cmd.needs or cmd.reference or not verb or any(PLACEHOLDER.search(w) for w in argv) \
            or not all(repository_file(w, repo, outputs) for w in named):
        return None
    scratch.mkdir(parents=True, exist_ok=True)
    for w in {"configs", *named}:
        src, dest = repo / w, scratch / w
        if src.is_dir() and not dest.exists():
            shutil.copytree(src, dest)
        elif src.is_file():
            dest.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, dest)
    proc = subprocess.run([python, "-m", "rlvr_support", *argv], cwd=scratch, capture_output=True, text=True,
                          env={**env, **dict(cmd.env)}, timeout=300)
    return None if proc.returncode == 0 else _what_failed(proc)


def make_failure(cmd: Command, repo: Path, env: dict) -> str | None:
    """`make -n` with the command's targets and variables: the targets exist and their recipes expand."""
    import subprocess

    proc = subprocess.run(["make", "-n", *cmd.words[1:]], cwd=repo, capture_output=True, text=True,
                          env={**env, **dict(cmd.env)}, timeout=60)
    return None if proc.returncode == 0 else _what_failed(proc)


def file_failure(cmd: Command, repo: Path) -> str | None:
    """A script of scripts/ exists, is executable when run directly and passes `bash -n`; a bench/ script exists."""
    import os
    import subprocess

    m = re.search(r"(?:^|\s|\./)((?:scripts|bench)/[\w./-]+)", cmd.text)
    path = repo / m.group(1)
    if not path.is_file():
        return f"no file {m.group(1)}"
    if cmd.kind == "script":
        if not cmd.text.startswith("bash") and not os.access(path, os.X_OK):
            return f"{m.group(1)} is not executable (run it with bash, or chmod +x it)"
        proc = subprocess.run(["bash", "-n", str(path)], capture_output=True, text=True, timeout=30)
        if proc.returncode:
            return _what_failed(proc)
    return None


def plan_groups(cmds: list[Command]) -> list[list[Command]]:
    """The snakemake commands that share one dry run: those that differ only in their targets after `--` (or in
    their --directory, which the check replaces); a command with a placeholder or `--lint` has none (`--lint`
    exits 1 on any note by design, and tests/test_workflow_style.py runs it)."""
    groups: dict[tuple, list[Command]] = {}
    for cmd in cmds:
        if any(PLACEHOLDER.search(w) for w in cmd.words) or "--lint" in cmd.words:
            continue
        options, targets = _options_and_targets(cmd.words)
        key = (tuple(_without_directory(options)), cmd.env, targets is None and cmd.words)
        groups.setdefault(key, []).append(cmd)
    return list(groups.values())


def dry_run_failures(members: list[Command], repo: Path, workdir: Path, snakemake: str, env: dict) -> dict[str, str]:
    """The commands of one plan group as a dry run (`-n`) of the repository's Snakefile, in a fresh --directory
    under `workdir`, from the repository root (so `--profile slurm` and relative config files resolve as on a
    clone), their targets together: {command text: what failed}. When it fails, each command is dry-run alone
    to say which."""
    import subprocess

    def dry_run(cmd: Command, targets: list[str] | None) -> str | None:
        import shutil

        options, _ = _options_and_targets(cmd.words)
        # a fresh directory where the command's own would be: a relative --directory sits in the repository,
        # so a config's paths relative to it (`../tests/...`) resolve as on a clone; else under `workdir`
        named = _directory(options)
        parent = repo / Path(named).parent if named and not Path(named).is_absolute() else workdir
        parent.mkdir(parents=True, exist_ok=True)
        fresh = tempfile.mkdtemp(dir=parent, prefix=".docs-dry-run-")
        argv = [snakemake, "-s", str(repo / "Snakefile"), "--directory", fresh, "-n",
                "--quiet", "rules", *_without_directory(options)]
        try:
            proc = subprocess.run(argv + (["--", *targets] if targets is not None else []), cwd=repo,
                                  capture_output=True, text=True, env={**env, **dict(cmd.env)}, timeout=600)
        finally:
            shutil.rmtree(fresh, ignore_errors=True)
        return None if proc.returncode == 0 else _what_failed(proc)

    first = members[0]
    alone = _options_and_targets(first.words)[1] is None
    targets = list(dict.fromkeys(t for m in members for t in (_options_and_targets(m.words)[1] or [])))
    failed = dry_run(first, None if alone else targets)
    if failed is None:
        return {}
    distinct = {m.text: m for m in members}
    if len(distinct) == 1:
        return {first.text: failed}
    return {text: said for text, m in distinct.items()
            if (said := dry_run(m, _options_and_targets(m.words)[1])) is not None}


def command_problems(cmds: list[Command], repo: Path, workdir: Path, *, parser, python: str, snakemake: str,
                     env: dict, jobs: int = 2) -> list[str]:
    """Every command checked as its kind says, each distinct command once, `jobs` checks at a time:
    `file:line[, file:line...]: `command`: what failed` for each problem."""
    import concurrent.futures

    by_text: dict[str, list[Command]] = {}
    for cmd in cmds:
        by_text.setdefault(cmd.text, []).append(cmd)
    unique = [next(c for c in same if not c.reference) for same in by_text.values()
              if not all(c.reference for c in same)]

    def check(cmd: Command, k: int) -> dict[str, str]:
        if cmd.kind in ("verb", "accelerate"):
            said = verb_failure(cmd, repo, workdir / f"verb{k}", parser, python, env)
        elif cmd.kind == "make":
            said = make_failure(cmd, repo, env)
        else:
            said = file_failure(cmd, repo)
        return {cmd.text: said} if said else {}

    groups = plan_groups([c for c in unique if c.kind == "snakemake"])
    # the largest studies' dry runs first (the sum of their config files' sizes), so the longest starts first
    groups.sort(key=lambda g: -sum((repo / f).stat().st_size for seq in configfile_sequences(g[0].text)[:1]
                                   for f in seq if (repo / f).is_file()))
    tasks = [(dry_run_failures, (group, repo, workdir, snakemake, env)) for group in groups]
    tasks += [(check, (cmd, k)) for k, cmd in enumerate(unique) if cmd.kind != "snakemake"]
    failures: dict[str, str] = {}
    with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as pool:
        for result in pool.map(lambda task: task[0](*task[1]), tasks):  # dry runs first: the longest
            failures.update(result)
    problems = []
    for cmd in unique:
        said = failures.get(cmd.text)
        if cmd.kind == "snakemake":
            said = "; ".join(filter(None, [said and f"dry run: {said}", configfile_trap(cmd)]))
        if said:
            where = ", ".join(dict.fromkeys(c.where for c in by_text[cmd.text]))
            problems.append(f"{where}: `{cmd.text}`: {said}")
    return problems


# ---- typed measurements

# A measured number: a duration (12 s, 3 minutes, 19:18), a size of memory or disk (1.5 GB, 300 MiB), GPU-hours, a
# rate (tokens/s, MiB/s, 35,000/s) or a ratio with decimals (1.4x); a range (8-10 s) counts once
MEASURE = re.compile(
    r"(?<![\w.])(\d[\d,]*(?:\.\d+)?)(?:\s*-\s*\d[\d,]*(?:\.\d+)?)?\s*(?:[KMGT]i?B/s|[\w-]*/s|ms|s|sec|seconds?|min"
    r"|minutes?|h|hours?|days?|[KMGT]i?B|kB|GPU-h(?:ours)?|x)(?![\w-])|(?<![\w:.])\d{1,2}:\d{2}(?::\d{2})?(?![\w:])")
# where it was measured: a commit hash, a date and the machine, all three in the number's block
STAMP = {"a commit": re.compile(r"\b(?=[0-9a-f]*\d)(?=[0-9a-f]*[a-f])[0-9a-f]{7,40}\b"),
         "a date": re.compile(r"\b20\d\d-[01]\d-[0-3]\d\b"),
         "the machine": re.compile(r"(?i)\b(?:machine|VM|node|EPYC|Xeon|Intel|AMD|laptop|[AH]\d00s?|\d+-core)\b")}
# a number that is not a measurement says so in its clause: "3 GB (assumed)", "80 GB, datasheet", "(the paper's
# figures: 9.8x to 106.7x)"; the clause runs back to the last `(`, `;`, `|` or sentence end and 40 characters on
NOT_MEASURED = re.compile(r"\b(?:assumed|datasheet|configured|computed|example|paper's)\b")
GENERATED_BLOCK = re.compile(r"<!--\s*([\w -]+?):\s*begin\b.*?-->(.*?)<!--\s*\1:\s*end\s*-->", re.S)


def blocks(doc: Doc) -> dict[int, int]:
    """Line -> block: a paragraph, a list, a heading, a table or a code block; a list, table or code block
    shares the block of the paragraph just before it (its lead-in or caption)."""
    out: dict[int, int] = {}
    kinds: list[str] = []
    for i, line in enumerate(doc.text.splitlines(), 1):
        if not line.strip() and i not in doc.block_lines:
            continue
        kind = ("code" if i in doc.block_lines else "table" if line.lstrip().startswith("|")
                else "heading" if ATX.match(line) else "list" if LIST_ITEM.match(line) else "text")
        prev = out.get(i - 1)  # the block of the line just above, when that line is not blank
        if prev is not None and kind not in ("heading", "list") and kinds[prev] in (kind, "list"):
            out[i] = prev  # a paragraph's, table's or code block's next line; a list item's wrapped line
        elif kind in ("table", "code", "list") and kinds and kinds[-1] in ("text", kind if kind == "list" else ""):
            out[i] = len(kinds) - 1  # the paragraph above (its caption), or the list's next item
            kinds[-1] = kind
        else:
            kinds.append(kind)
            out[i] = len(kinds) - 1
    return out


def measurement_problems(path: Path, repo: Path) -> list[str]:
    """Every measured number the page types (in prose, tables and code-block comments) sits in a block that names
    a commit, a date and the machine, or in a generated block (`<!-- x: begin ... -->` to `<!-- x: end -->`), or
    says right after it that it is no measurement (assumed, datasheet, configured, computed, example, the paper's)."""
    doc = parse(path)
    lines = doc.text.splitlines()
    generated = set()
    for m in GENERATED_BLOCK.finditer(doc.text):
        first = doc.text.count("\n", 0, m.start()) + 1
        generated |= set(range(first, doc.text.count("\n", 0, m.end()) + 2))
    block_of = blocks(doc)
    text_of: dict[int, list[str]] = {}
    for i, b in block_of.items():
        text_of.setdefault(b, []).append(lines[i - 1])
    prose = dict(doc.prose)
    problems = []
    for i in sorted(block_of):
        if i in generated or i in doc.comment_lines:
            continue
        scanned = _cut_comment(lines[i - 1])[1] if i in doc.block_lines else prose.get(i, "")
        for m in MEASURE.finditer(scanned):
            if m.group(0).endswith("x") and "." not in m.group(0):
                continue  # 8 x 8, 10x larger: a product or a size, not a measured ratio
            before = re.split(r"[(;|]|\.\s", scanned[:m.start()])[-1]
            after = re.split(r"[;|]|\.\s", scanned[m.end():m.end() + 40])[0]
            if NOT_MEASURED.search(before + after):
                continue
            block = "\n".join(text_of[block_of[i]])
            missing = [what for what, pattern in STAMP.items() if not pattern.search(block)]
            if missing:
                problems.append(f"{doc.where(i, repo)}: `{m.group(0)}`: a measured number whose paragraph or table "
                                f"names no {', no '.join(w.split(' ', 1)[1] for w in missing)}: say where it was "
                                f"measured (commit, date, machine), or generate it")
    return problems
