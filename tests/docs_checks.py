"""Checks of the user documentation (README.md, docs/*.md) against the repository, for tests/test_docs.py.

Each check returns every problem it finds as `file:line: what is wrong`, so one run names them all:
relative links (the file, and for `#anchor` the heading, with GitHub's anchors), `make <target>` and
`python -m rlvr_support <verb>` in code (fenced blocks and inline code spans), and every config file a
page names (configs/*.yaml, config.yaml, tests/config/*.yaml): it must exist and validate, an overlay
merged onto the configs a documented `--configfile A B` command puts before it.
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass, field
from pathlib import Path

from rlvr_support.config.reference import github_anchor

FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
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
    code: list[tuple[int, str]] = field(default_factory=list)  # (line, text): fenced lines and inline spans
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
    fence, seen = None, {}
    lines = doc.text.splitlines()
    for i, line in enumerate(lines, 1):
        m = FENCE.match(line)
        if fence is not None:
            if m and m.group(1)[0] == fence[0] and len(m.group(1)) >= len(fence) and not line.strip()[len(m.group(1)):]:
                fence = None
            else:
                doc.code.append((i, line))
            continue
        if m:
            fence = m.group(1)
            continue
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
