"""`python -m rlvr_support import-tokenizer`: declare an imported label's tokenizer (imports.<label>.tokenizer:
a folder or a hub id): record where its files are, their checksums and hub commit, and write its manifest.

Run by `import_tokenizer` (workflow/rules/imports.smk), a local rule: a hub id is fetched on the submit host;
registered by cli/main.py.
"""

from __future__ import annotations

import json

from rlvr_support.cli.args import json_arg as _json


def cmd_import_tokenizer(a):
    from rlvr_support.imports.tokenizers import declare_tokenizer
    from rlvr_support.storage.atomic import write_json

    manifest = declare_tokenizer(a.cfg)
    write_json(a.out, manifest)
    print(json.dumps(manifest, indent=1))


def register(verb) -> None:
    s = verb("import-tokenizer", cmd_import_tokenizer,
             "Declare an imported label's tokenizer (imports.<label>.tokenizer: a folder or a hub id): record where "
             "its files are, their checksums and hub commit, and write its manifest.")
    s.add_argument("--cfg", type=_json, required=True,
                   help="the config's imports.<label>.tokenizer entry as JSON: {path, revision}")
    s.add_argument("--out", required=True, help="the manifest (tokenizer.json)")
