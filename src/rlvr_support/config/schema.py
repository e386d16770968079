"""The config's JSON schema (workflow/schemas/config.schema.yaml): its path, and its contents read once."""

from __future__ import annotations

import functools
from pathlib import Path

import yaml

SCHEMA = Path(__file__).resolve().parents[3] / "workflow" / "schemas" / "config.schema.yaml"


def config_schema(path: str | Path = SCHEMA) -> dict:
    """The schema at `path`; the project's is read once per process and shared (callers must not modify it)."""
    return _project_schema() if Path(path) == SCHEMA else yaml.safe_load(Path(path).read_text())


@functools.lru_cache(maxsize=1)
def _project_schema() -> dict:
    return yaml.safe_load(SCHEMA.read_text())


def resolve(node: dict, defs: dict) -> tuple[dict, str | None]:
    """(the node with its `$ref` merged in, the name of the `$defs` entry); keys written beside a `$ref`
    (a description of this use) win over the definition's."""
    ref = None
    while isinstance(node, dict) and "$ref" in node:
        ref = node["$ref"].rsplit("/", 1)[-1]
        if ref not in defs:
            raise ValueError(f"{node['$ref']}: no such entry in $defs")
        node = {**defs[ref], **{k: v for k, v in node.items() if k != "$ref"}}
    return node, ref
