"""The tokenizer an imported label's samples are counted in (`imports.<label>.tokenizer`, or its `model`'s:
config/import_models.py): declared by a manifest, loaded by the jobs, and applied to response text.

`declare_tokenizer` writes what `results/imports/<label>/tokenizer.json` holds (the `import_tokenizer`
local rule, on the submit host: a hub id is fetched there into the Hugging Face cache): the folder of the
tokenizer's files, the revision asked for, the commit a hub snapshot holds, the size of its vocabulary and
the sha256 of each tokenizer file (not of weights a model folder beside them may hold), as a checkpoint's
manifest records its weights (models/base_models.py). `tokenizer_of` loads the tokenizer of such a
manifest or of a checkpoint's.

`text_token_ids` is how a response that came as text gets tokens: its text as the tokenizer splits it, with
no special token added. That is the tokenizer's own split of the text, which is the sampled sequence except
where a model sampled a split the tokenizer would not choose; the openings table and the import job use
this one definition.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

# the files of a tokenizer (a hub snapshot fetches only these; the manifest hashes only these)
TOKENIZER_PATTERNS = ("*.json", "*.model", "*.txt", "*.tiktoken", "*.jinja")


def tokenizer_files(folder: Path) -> list[Path]:
    """The tokenizer's files of `folder` (TOKENIZER_PATTERNS), sorted by name."""
    return sorted({p for pattern in TOKENIZER_PATTERNS for p in folder.glob(pattern) if p.is_file()})


def resolve_tokenizer_dir(path: str, revision: str | None = None) -> Path:
    """A local folder as it is; otherwise a hub id, fetched (or found in the Hugging Face cache) as a snapshot
    of its tokenizer files."""
    local = Path(path).expanduser()
    if local.is_dir():
        return local.resolve()
    if local.exists() or path.startswith((".", "/", "~")) or path.count("/") != 1:
        raise FileNotFoundError(f"tokenizer {path!r} is neither a folder nor a hub id (org/name)")
    from huggingface_hub import snapshot_download

    try:
        return Path(snapshot_download(path, revision=revision, allow_patterns=list(TOKENIZER_PATTERNS)))
    except Exception as e:
        raise ValueError(f"tokenizer {path!r}: cannot fetch from the Hugging Face hub: "
                         f"{type(e).__name__}: {e}") from None


def declare_tokenizer(spec: dict) -> dict:
    """The manifest of the tokenizer `spec` ({path, revision}) names (module doc); loading it first, so a
    folder without a usable tokenizer (or asking for custom code) fails here, not in a later job."""
    from rlvr_support.models.base_models import sha256_file
    from rlvr_support.models.loading import load_tokenizer

    folder = resolve_tokenizer_dir(spec["path"], spec.get("revision"))
    tok = load_tokenizer(folder)
    return {"tokenizer_dir": str(folder), "path": spec["path"], "revision": spec.get("revision"),
            # a hub snapshot's folder is named by the commit it holds
            "commit": folder.name if folder.parent.name == "snapshots" else None,
            "vocab_size": len(tok), "sha256": {p.name: sha256_file(p) for p in tokenizer_files(folder)}}


def tokenizer_of(manifest_path: str | Path):
    """The tokenizer a manifest declares: an imported label's (`tokenizer_dir`, declare_tokenizer) or a
    checkpoint's (the one saved with its model)."""
    from rlvr_support.models.loading import checkpoint_dir, load_tokenizer

    manifest = json.loads(Path(manifest_path).read_text())
    if "tokenizer_dir" in manifest:
        return load_tokenizer(manifest["tokenizer_dir"])
    return load_tokenizer(checkpoint_dir(manifest_path))


def text_token_ids(tokenizer, texts: Sequence[str | None]) -> list[list[int]]:
    """Each response text as `tokenizer` splits it, without special tokens (module doc); None as ''."""
    if not len(texts):
        return []
    return [list(ids) for ids in tokenizer([str(t or "") for t in texts], add_special_tokens=False)["input_ids"]]
