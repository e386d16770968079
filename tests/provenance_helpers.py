"""Small results trees with real sidecars, written through the project's own provenance writer
(lineage/provenance.py), for the tests of audit and of the input checks without Snakemake."""

from __future__ import annotations

import argparse
from pathlib import Path

from rlvr_support.lineage import provenance as prov


def declare(out: str | Path, verb: str, **inputs) -> Path:
    """Give the existing file `out` the sidecar a run of `verb` on `inputs` (dest -> path) would
    write (the inputs are hashed and checked as a job's are); returns the sidecar."""
    args = argparse.Namespace(verb=verb, fn=None, out=str(out),
                              **{k: [str(x) for x in v] if isinstance(v, list) else str(v) for k, v in inputs.items()})
    rec = prov.begin(args, [verb])
    return prov.finish(rec)[0]
