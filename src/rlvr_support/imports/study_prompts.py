"""Imported prompts matched to the study's own prompts of one eval set (a mixed study).

When an import joins a study that has its own prompts (the toy world, a `datasets` world), its
samples must carry the study's prompt ids, so that the scorer reads the study's gold answers and
every table pairs the imported label's samples with the other checkpoints' on the same prompts.
Only the eval split is matched: the prompts file also holds the training prompts, which no
checkpoint is sampled on. Prompts are matched by their text (`prompt_keys.normalise_prompt`: the one key every format has),
or, with `match: id`, by the source's document key against the prompt ids' key part (for a
source that numbers documents the way the study does).

The two prompt sets must be the same: an imported prompt the study does not have, or a study
prompt the import lacks, is an error naming how many prompts each side has and a few that do not
match, raised after the whole source was read and before any output is renamed into place.
"""

from __future__ import annotations

import json
from pathlib import Path

from rlvr_support.config.benchmarks import prompt_benchmark
from rlvr_support.imports.prompt_keys import text_key
from rlvr_support.imports.task_fields import prompt_key_of

MATCHES = ("text", "id")
_SHOWN = 5


class PromptMismatch(ValueError):
    """The imported prompt set is not the study's."""


class StudyPrompts:
    """The study's prompts of one eval set, looked up by an imported prompt's key or text."""

    def __init__(self, path: str | Path, match: str = "text"):
        if match not in MATCHES:
            raise ValueError(f"import: match {match!r} is not one of {', '.join(MATCHES)}")
        self.path, self.match = Path(path), match
        self.benchmark: dict[str, str] = {}  # study prompt id -> its benchmark
        self._by: dict[str, str] = {}  # the matching key -> study prompt id
        with self.path.open(encoding="utf-8") as f:
            for line in f:
                if not line.strip():
                    continue
                rec = json.loads(line)
                if rec.get("split", "eval") != "eval":
                    continue  # the sample job draws from the eval split only (sampling/jobs.py)
                key = text_key(rec["prompt"]) if match == "text" else prompt_key_of(rec["id"])
                if key in self._by:
                    raise ValueError(f"{self.path}: prompts {self._by[key]!r} and {rec['id']!r} have the same "
                                     f"{'text' if match == 'text' else 'id key'}: imported prompts cannot be matched")
                self._by[key] = rec["id"]
                self.benchmark[rec["id"]] = prompt_benchmark(rec)
        self.unmatched: list[str] = []  # imported prompt keys with no study prompt
        self.matched: set[str] = set()

    def id_of(self, key: str, text: str) -> str | None:
        """The study prompt id of an imported prompt (key `key`, text `text`); None, remembered, if none."""
        pid = self._by.get(text_key(text) if self.match == "text" else key)
        if pid is None:
            self.unmatched.append(key)
        else:
            self.matched.add(pid)
        return pid

    def check_same_set(self, source: str) -> None:
        """Raise PromptMismatch unless every imported prompt matched and every study prompt was imported."""
        missing = sorted(set(self.benchmark) - self.matched)
        if not self.unmatched and not missing:
            return
        imported = len(self.matched) + len(self.unmatched)
        parts = [f"{source}: its prompts are not the study's ({self.path}, matched by {self.match}): "
                 f"{imported} imported, {len(self.benchmark)} in the study, {len(self.matched)} in both"]
        if self.unmatched:
            parts.append(f"{len(self.unmatched)} imported prompt(s) the study lacks, e.g. "
                         f"{', '.join(self.unmatched[:_SHOWN])}")
        if missing:
            parts.append(f"{len(missing)} study prompt(s) not imported, e.g. {', '.join(missing[:_SHOWN])}")
        raise PromptMismatch("; ".join(parts))
