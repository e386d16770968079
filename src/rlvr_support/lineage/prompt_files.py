"""Which prompt files in a folder a study may count: those whose provenance sidecar records the data job
the study's config asks for (data/prompt_job.py), so a results tree that holds another study's prompts
(the toy world's, left by `make run`) is not taken for this one's.

The budget reads prompt files outside Snakemake (`python -m rlvr_support budget --configfile ...` in any
folder); inside the workflow its rule's inputs are this config's by construction and pass the same check.
"""

from __future__ import annotations

from pathlib import Path

from rlvr_support.data.prompt_job import job_differences
from rlvr_support.lineage.integrity import own_problems
from rlvr_support.lineage.sidecar import described, sha256_file


def prompt_file_problem(job: dict, task: str, path: str | Path) -> str | None:
    """Why the prompt file `path` is not the one the data job `job` (data/prompt_job.py prompt_job) makes
    for `task`; None when its provenance sidecar records that job and describes this very file."""
    try:
        desc = described(path)
    except ValueError as e:  # not a sidecar this code can read
        return str(e)
    if desc.rec is None:
        return f"no provenance sidecar ({desc.sidecar.name}): nothing says which config's data made it"
    if problems := own_problems(path, sha256_file(path), desc):  # edited or replaced since its job wrote it
        return f"{problems[0].kind}: {problems[0].detail}"
    differ = job_differences(job, task, desc.rec.get("verb"), desc.rec.get("args") or {})
    if not differ:
        return None
    made_by = ", ".join(c["path"] for c in desc.rec.get("configfiles") or [])
    return f"made with another {', '.join(differ)} than this config's" + (f" (by {made_by})" if made_by else "")


def prompt_files(jobs: dict[str, dict], prompts_dir: str | Path | None) -> tuple[dict[str, Path], dict[Path, str]]:
    """({task: its prompt file} for the files in `prompts_dir` made by `jobs[task]`, {file: why} for the
    files there that were not); a task without a file is in neither."""
    used, ignored = {}, {}
    for task, job in jobs.items():
        path = Path(prompts_dir) / f"{task}.jsonl" if prompts_dir else None
        if path is None or not path.is_file():
            continue
        why = prompt_file_problem(job, task, path)
        if why is None:
            used[task] = path
        else:
            ignored[path] = why
    return used, ignored


def prompt_files_line(used: dict[str, Path], ignored: dict[Path, str]) -> str | None:
    """One line: the prompt files counted, and those ignored with why; None when there were none."""
    if not used and not ignored:
        return None
    parts = [f"used {', '.join(str(p) for p in used.values())} (their provenance records this config's data)"
             ] if used else []
    by_why: dict[str, list[str]] = {}
    for path, why in ignored.items():
        by_why.setdefault(why, []).append(str(path))
    parts += [f"ignored {', '.join(paths)}: {why}; counted from this config's sources instead"
              for why, paths in by_why.items()]
    return "Prompt files: " + "; ".join(parts) + "."
