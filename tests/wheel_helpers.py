"""Small wheels for the wheel data source's tests (data/sources/wheels.py): built here, put where the wheel
cache keeps them, so that a source reads them offline as it reads a downloaded one."""

from __future__ import annotations

import hashlib
import zipfile
from pathlib import Path

REAL = Path(__file__).parent / "data" / "real"


def build_wheel(folder: Path, package: str, version: str, members: dict[str, bytes]) -> Path:
    """A wheel of `package==version` holding `members` (path -> bytes), in `folder`."""
    name = package.replace("-", "_")
    path = folder / f"{name}-{version}-py3-none-any.whl"
    folder.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        for member, data in members.items():
            z.writestr(member, data)
        z.writestr(f"{name}-{version}.dist-info/METADATA",
                   f"Metadata-Version: 2.1\nName: {package}\nVersion: {version}\n")
    return path


def cache_wheel(cache: Path, package: str, version: str, members: dict[str, bytes]) -> Path:
    """Build the wheel inside the wheel cache `cache` ($RLVR_WHEEL_CACHE), where fetch_wheel finds it."""
    return build_wheel(cache / package.lower() / version, package, version, members)


def wheel_spec(package: str, version: str, path: str, data: bytes, **extra) -> dict:
    """A source's `wheel:` block pinning `data` at `path`."""
    return {"package": package, "version": version, "path": path, "sha256": hashlib.sha256(data).hexdigest(), **extra}
