"""`python -m rlvr_support import-hub-files`: fetch an import entry's files from a Hugging Face dataset repo and
write their manifest (repo, revision, commit, each file's path, size and sha256: imports/hub_files.py).

Run on the submit host by the local rule `import_hub_files` (workflow/rules/imports.smk, the `prefetch`
target); `import-samples --files-manifest` reads the files it lists.
"""

from __future__ import annotations

from rlvr_support.cli.args import json_arg as _json


def cmd_import_hub_files(a):
    from rlvr_support.imports.hub_files import fetch_hub_files, unpinned_note
    from rlvr_support.storage.atomic import write_json

    manifest = fetch_hub_files(a.hub)
    # the commit the sidecar records beside the manifest's own (lineage/provenance.py)
    a.prov_resolved = {"hub": {k: manifest[k] for k in ("repo", "revision", "commit")}}
    if note := unpinned_note(a.hub, manifest["commit"]):
        print(note)
    write_json(a.out, manifest)
    print(f"{manifest['repo']} at {manifest['revision']} (commit {manifest['commit'] or 'unknown'}): "
          f"{len(manifest['files'])} file(s), {sum(f['bytes'] for f in manifest['files'])} bytes -> {a.out}")
    for f in manifest["files"]:
        print(f"  {f['repo_path']}  sha256 {f['sha256']}")


def register(verb) -> None:
    s = verb("import-hub-files", cmd_import_hub_files,
             "Fetch an import entry's files from a Hugging Face dataset repo and write their manifest "
             "(each file's path, size and sha256).")
    s.add_argument("--hub", type=_json, required=True,
                   help="the entry's `hub` as JSON: {repo: org/name, revision: commit | branch | tag, files: [patterns]}")
    s.add_argument("--out", required=True, help="the manifest (.json)")
