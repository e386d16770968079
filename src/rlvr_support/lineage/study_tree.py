"""A results tree belongs to one study: the `study:` name of the config that first ran in it.

Two studies in one working directory would share `results/data/prompts/*.jsonl` and every table path: the
second one's plan rewrites the first one's prompts, and its budget reads them as its own. So the first run that
starts a job in a directory records its study in `results/.study`, and a run of another study there is refused
before any job, naming the directory and the way out (`--directory`). The same study with more seeds, another
remedy or an edited key is the same tree: its reruns are Snakemake's to decide.
"""

from __future__ import annotations

import json
from pathlib import Path

from rlvr_support.lineage.sidecar import STUDY_STAMP as STAMP
from rlvr_support.storage.atomic import write_text


def recorded_study(results: str | Path) -> dict | None:
    """What `results/.study` records ({study, configfiles}), or None for a tree without one."""
    path = Path(results) / STAMP
    if not path.is_file():
        return None
    try:
        return json.loads(path.read_text())
    except ValueError as e:
        raise ValueError(f"{path}: not the JSON this pipeline writes ({e}); delete it if {results}/ holds "
                         "one study only") from e


def study_conflict(results: str | Path, study: str, configfiles: list[str]) -> str | None:
    """The error for a run of `study` in a directory whose results tree belongs to another study, else None."""
    recorded = recorded_study(results)
    if recorded is None or recorded.get("study") == study:
        return None
    here = Path.cwd()
    given = " ".join(configfiles) or "<config>"
    return (f"{here / results}/ holds the results of study '{recorded.get('study')}' (made with "
            f"{' '.join(recorded.get('configfiles', [])) or 'its config'}), and this run is study '{study}': its "
            f"prompts, checkpoints and tables would overwrite or read the other study's. Give this study its own "
            f"working directory: snakemake --directory <dir> --configfile {given} -- <targets> (a relative "
            f"--configfile is read from the directory snakemake starts in). If it is the same study renamed, "
            f"edit 'study' in {results}/{STAMP}.")


def record_study(results: str | Path, study: str, configfiles: list[str]) -> None:
    """Record the study of this tree when its first job starts (kept as it is afterwards)."""
    if recorded_study(results) is None:
        write_text(Path(results) / STAMP, json.dumps({"study": study, "configfiles": configfiles}, indent=1) + "\n")
