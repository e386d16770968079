"""The end of a failed job's log, for the terminal.

Every rule sends its command's output to its `log:` file (`> {log} 2>&1`), so Snakemake's terminal says only
"check log file(s) for error details": a hub download that fails in `prefetch` (no network, a gated repo, a
wrong revision) is explained in a file the user has to go and find. The workflow's `onerror` handler
(workflow/rules/common.smk) prints the last lines of each failed job's log instead, where the CLI's one-line
error (cli/main.py) is the last line.
"""

from __future__ import annotations

import re
from pathlib import Path

# Snakemake's error block names each failed job's logs on one line: `    log: a.log, b.log (check log file(s) ...)`
_LOG_LINE = re.compile(r"^\s*log: (.+?) \(check log file\(s\) for error details\)\s*$", re.M)


def failed_job_logs(snakemake_log: str | Path | list, lines: int = 12) -> str:
    """The last `lines` lines of every log file Snakemake's own log names for a failed job ('' when none).

    `snakemake_log`: the run's log file, or the list of them that Snakemake 9 hands its handlers."""
    text = ""
    for path in snakemake_log if isinstance(snakemake_log, list) else [snakemake_log]:
        try:
            text += Path(path).read_text(errors="replace")
        except OSError:
            continue
    blocks = []
    for match in _LOG_LINE.finditer(text):
        for name in (p.strip() for p in match.group(1).split(",")):
            path = Path(name)
            if not name or not path.is_file() or name in (b[0] for b in blocks):
                continue
            tail = path.read_text(errors="replace").rstrip("\n").splitlines()[-lines:]
            blocks.append((name, tail))
    return "\n".join(f"--- the end of {name} (a failed job's log):\n" + "\n".join(f"    {line}" for line in tail)
                     for name, tail in blocks)
