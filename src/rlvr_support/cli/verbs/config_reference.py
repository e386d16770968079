"""`python -m rlvr_support config-reference`: docs/configuration.md from the config schema (config/reference.py).

Run by hand after an edit of workflow/schemas/config.schema.yaml (no rule runs it); tests/test_config_reference.py
fails when the committed page is not what this writes. Registered by cli/main.py.
"""

from __future__ import annotations

import sys
from pathlib import Path


def cmd_config_reference(a):
    from rlvr_support.config.reference import load_schema, missing_descriptions, reference_markdown
    from rlvr_support.storage.atomic import write_text

    schema = load_schema(a.schema)
    missing = missing_descriptions(schema)
    if missing:
        raise ValueError(f"{a.schema}: {len(missing)} keys have no description: {', '.join(missing)}")
    page = reference_markdown(schema)
    if a.check:
        if not a.out:
            raise ValueError("--check needs --out, the page to compare")
        if not Path(a.out).is_file() or Path(a.out).read_text() != page:
            print(f"{a.out} is not what the schema gives: run python -m rlvr_support config-reference --out {a.out}",
                  file=sys.stderr)
            return 1
        return 0
    if a.out:
        write_text(a.out, page)
    else:
        sys.stdout.write(page)
    return 0


def register(verb) -> None:
    from rlvr_support.config.validate import SCHEMA

    s = verb("config-reference", cmd_config_reference,
             "Write the configuration reference (every key: type, default, description, example) from the config "
             "schema; refuses a schema with a key that has no description.")
    s.add_argument("--out", help="the page to write (docs/configuration.md); default: print it")
    s.add_argument("--schema", default=str(SCHEMA), help="the config schema (default: the checkout's)")
    s.add_argument("--check", action="store_true",
                   help="write nothing; exit 1 when --out differs from what it would write")
    s.set_defaults(prov=False)
