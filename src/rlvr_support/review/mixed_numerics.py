"""Results whose jobs computed under different numerics: what `audit` reports besides checksums.

Every sidecar records how its job computed (provenance.numerics_record). Two jobs of one study
that ran other kernels (another torch capability, MKL branch, numpy dispatch or OpenBLAS kernel set,
another torch or MKL version, another thread count for the same rule, other GPUs or CUDA) are
parts of two different runs, even when every checksum matches: a table built from them is
reproducible nowhere. `numerics_facts` names what must agree, read from what each library said it
ran with (so a pinned run on an Intel and one on an AMD CPU agree; an unpinned one on AVX-512 and
one on AVX2 do not); a fact a job does not have (a table job loads no torch, a CPU job has no GPU)
is not compared for it, nor is a sidecar written before numerics were recorded (`unrecorded`; the
audit counts them). `mixed_numerics` turns the disagreements into audit problems, and
`numerics_summary` states the facts of a set of sidecars for a docs header.
"""

from __future__ import annotations

import json
from collections import defaultdict

from rlvr_support.lineage.integrity import Problem


def _mkl_branch(mkl: dict | None) -> str | None:
    """The MKL branch a job ran: its CNR branch, or (CNR off) the one MKL picked for the CPU."""
    if not mkl:
        return None
    branch = mkl["cbwr"] if mkl["cbwr"] not in ("OFF", "AUTO") else f"{mkl['auto_branch']} (picked by MKL for the CPU)"
    return f"{mkl['version'].removeprefix('Intel(R) oneAPI Math Kernel Library Version ')} branch {branch}"


def numerics_facts(rec: dict) -> dict[str, str]:
    """{fact: value} of one sidecar's numerics that must be the same in every job of a study."""
    n = rec.get("numerics")
    if n is None:  # written before sidecars recorded numerics: nothing to compare (`unrecorded` counts them)
        return {}
    facts = {"pinned": json.dumps(n["spec"], sort_keys=True) if n.get("pinned") else "no"}
    if t := n.get("torch"):
        facts["torch"] = t["version"]
        facts["torch CPU kernel capability"] = t["capability"]
        if mkl := _mkl_branch(t.get("mkl")):
            facts["MKL"] = mkl
        facts[f"torch threads of rule {rec.get('rule')}"] = str(t["threads"])
    if np := n.get("numpy"):
        facts["numpy"] = f"{np['version']}, dispatch {'+'.join(np['dispatch']) or 'baseline'}"
        if np.get("openblas"):
            facts["numpy's OpenBLAS kernels"] = np["openblas"]["core"]
    if g := n.get("gpu"):
        facts["GPUs"] = ", ".join(g["devices"]) if g.get("devices") else "asked for, none used by torch here"
        facts["CUDA / cuDNN / driver"] = f"{g.get('cuda')} / {g.get('cudnn')} / {g.get('driver')}"
    return facts


def _by_fact(records: dict[str, dict]) -> dict[str, dict[str, list[str]]]:
    """{fact: {value: [files]}} over `records` ({file shown: its sidecar record})."""
    out: dict[str, dict[str, list[str]]] = defaultdict(lambda: defaultdict(list))
    for name, rec in sorted(records.items()):
        for fact, value in numerics_facts(rec).items():
            out[fact][value].append(name)
    return out


def mixed_numerics(records: dict[str, dict]) -> list[Problem]:
    """One problem per fact on which the jobs disagree, naming a file of each side."""
    problems = []
    for fact, values in _by_fact(records).items():
        if len(values) < 2:
            continue
        ranked = sorted(values.items(), key=lambda kv: (-len(kv[1]), kv[0]))
        (common, most), rest = ranked[0], ranked[1:]
        for value, files in rest:
            problems.append(Problem(files[0], "mixed-numerics",
                                    f"{fact} is {value} for {len(files)} file(s) (e.g. this one) but {common} for "
                                    f"{len(most)} (e.g. {most[0]}): the jobs ran under different numerics, so the "
                                    "results mix two runs; rerun these under the study's numerics "
                                    "(snakemake --forcerun <their rules>)"))
    return problems


def unrecorded(records: dict[str, dict]) -> list[str]:
    """The files whose sidecars predate numerics recording (their jobs' numerics are unknown)."""
    return sorted(name for name, rec in records.items() if rec.get("numerics") is None)


def numerics_summary(records: dict[str, dict]) -> dict[str, list[str]]:
    """{fact: its distinct values} over `records`, facts in a stable order (one value each in a clean tree)."""
    return {fact: sorted(values) for fact, values in _by_fact(records).items()}
